// SPDX-License-Identifier: GPL-3.0-or-later
/// `value` with exactly `places` decimals, rounded half away from zero, as every message, report and log line writes
/// a measure: `decimal(12.3456, places: 2)` is `12.35`, `decimal(-1.25, places: 1)` is `-1.3`. A value that rounds
/// to zero has no sign (`decimal(-0.04, places: 1)` is `0.0`); one that is not finite is written as Swift writes it
/// (`inf`, `-inf`, `nan`), as is one too large for a whole number of its last place.
///
/// Without Foundation's formatters: the speaking executables and the module do not load Foundation, whose loading is
/// most of a short process's start.
public func decimal(_ value: Double, places: Int) -> String {
    precondition((0...18).contains(places), "decimal places outside 0...18")
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(value) * Double(scale)).rounded()
    guard scaled.isFinite, scaled < 9.2e18 else { return "\(value)" }
    let units = Int(scaled)
    let whole = "\(value < 0 && units > 0 ? "-" : "")\(units / scale)"
    guard places > 0 else { return whole }
    let fraction = String(units % scale)
    return whole + "." + String(repeating: "0", count: places - fraction.count) + fraction
}
