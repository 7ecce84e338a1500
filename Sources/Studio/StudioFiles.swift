// SPDX-License-Identifier: GPL-3.0-or-later
/// The page's files, embedded in the binary (`PackageResources`), each served at its path with its type.
enum StudioFiles {
    struct File: Sendable {
        var path: String
        var bytes: [UInt8]
        var contentType: String
    }

    /// `index.html`, served at `/`.
    static let page = PackageResources.index_html

    /// The files beside the page: its style sheet, its script (`studio.js`, the module the page loads), the modules
    /// it imports, one concern each, and the capture worklet, loaded at the first recording. No build step: each is
    /// served as it is in Page/.
    static let all =
        [
            File(path: "/studio.css", bytes: PackageResources.studio_css, contentType: "text/css; charset=utf-8"),
            File(path: "/studio.js", bytes: PackageResources.studio_js, contentType: javaScript),
            File(path: "/recorder.js", bytes: PackageResources.recorder_js, contentType: javaScript),
        ] + modules.map { File(path: "/modules/\($0.name)", bytes: $0.bytes, contentType: javaScript) }

    /// The page's modules, in Page/modules/.
    static let modules: [(name: String, bytes: [UInt8])] = [
        ("state.js", PackageResources.state_js), ("words.js", PackageResources.words_js),
        ("announce.js", PackageResources.announce_js), ("api.js", PackageResources.api_js),
        ("pages.js", PackageResources.pages_js), ("prompts.js", PackageResources.prompts_js),
        ("takes.js", PackageResources.takes_js), ("microphone.js", PackageResources.microphone_js),
        ("recording.js", PackageResources.recording_js), ("texts.js", PackageResources.texts_js),
        ("keyboard.js", PackageResources.keyboard_js),
    ]

    static let javaScript = "text/javascript; charset=utf-8"
}
