// SPDX-License-Identifier: GPL-3.0-or-later
/// What the speech-dispatcher module could not do, with the input that caused it.
public enum SpeechServiceError: Error, Equatable, CustomStringConvertible {
    /// The voice pack the configuration names (or the default pack) could not be opened.
    case packUnavailable(path: String, reason: String)
    /// The module's configuration file exists but could not be read.
    case configurationUnreadable(path: String, reason: String)
    /// A line of the configuration file is not `Name "value"`.
    case configurationLine(path: String, line: Int, text: String)
    /// A message could not be planned or rendered.
    case speechFailed(request: String, reason: String)
    /// The server's end of standard output is gone.
    case outputClosed(reason: String)

    public var description: String {
        switch self {
        case .packUnavailable(let path, let reason):
            "cannot open the voice pack \(path): \(reason); name a readable pack with VoicePack \"PATH\" in "
                + "the module's configuration, or set $CONCAT_SYNTH_BANK"
        case .configurationUnreadable(let path, let reason):
            "cannot read the module configuration \(path): \(reason)"
        case .configurationLine(let path, let line, let text):
            "\(path):\(line): cannot read \"\(text)\": expected a setting such as VoicePack \"/path/to/pack.sqlite\""
        case .speechFailed(let request, let reason):
            "cannot speak \"\(request.prefix(80))\": \(reason)"
        case .outputClosed(let reason):
            "cannot write to the server: \(reason)"
        }
    }
}
