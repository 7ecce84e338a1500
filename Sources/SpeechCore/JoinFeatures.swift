// SPDX-License-Identifier: GPL-3.0-or-later
/// What the units' join cost compares of a take, measured once when the take is aligned and kept in the voice pack:
/// the spectrum (a mel-spaced cepstrum), F0 and energy of the few milliseconds around the middle of each of its
/// phones, the only places where one take's units meet another's (a phone-pair runs from one phone's middle to the
/// next's, a word's first and last halves from its edges to their middles).
///
/// Flat, `valuesPerPhone` values a phone in the take's phone order: cepstral coefficients 1…`cepstrumCount`, F0 in Hz
/// (0 where the frame is not voiced), energy in dB (full scale 0) as stored, before the level the take plays at.
public struct JoinFeatures: Equatable, Sendable {
    public static let cepstrumCount = 12
    public static let valuesPerPhone = cepstrumCount + 2
    /// The place of F0 and of the energy among a phone's values.
    public static let f0Offset = cepstrumCount
    public static let energyOffset = cepstrumCount + 1

    public var values: [Float]

    public init(values: [Float]) { self.values = values }

    /// How many phones the features are of.
    public var phoneCount: Int { values.count / Self.valuesPerPhone }

    /// Whether `values` could be a measurement of `phoneCount` phones: the right count, every value finite, no F0
    /// below 0. A pack is a stranger's file; what an import writes always passes.
    public func isValid(phoneCount: Int) -> Bool {
        values.count == phoneCount * Self.valuesPerPhone && values.allSatisfy(\.isFinite)
            && stride(from: Self.f0Offset, to: values.count, by: Self.valuesPerPhone).allSatisfy { values[$0] >= 0 }
    }
}
