#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the tools find a voice pack when they are not told.
public enum VoicePackLocation {
    /// The environment variable that names a pack for every command.
    public static let environmentVariable = "CONCAT_SYNTH_BANK"

    /// The default pack shipped in the repository's `voicebank/` folder, found from where this source file
    /// was compiled, so that a build in a fresh clone speaks without any setting.
    public static let defaultPackPath: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Sources/Voicebank/VoicePackLocation.swift
        return (components + ["voicebank", "default.sqlite"]).joined(separator: "/")
    }()

    /// `explicit` if given, else `$CONCAT_SYNTH_BANK` if set and not empty, else the default pack.
    public static func resolve(_ explicit: String?) -> String {
        if let explicit { return explicit }
        if let variable = getenv(environmentVariable), variable.pointee != 0 { return String(cString: variable) }
        return defaultPackPath
    }
}
