/// The page's files, embedded in the binary (`PackageResources`), each served at its path with its type.
enum StudioFiles {
    struct File: Sendable {
        var path: String
        var bytes: [UInt8]
        var contentType: String
    }

    /// `index.html`, served at `/`.
    static let page = PackageResources.index_html

    /// The files beside the page: its style sheet and scripts.
    static let all = [
        File(path: "/studio.css", bytes: PackageResources.studio_css, contentType: "text/css; charset=utf-8"),
        File(path: "/studio.js", bytes: PackageResources.studio_js, contentType: javaScript),
        File(path: "/recorder.js", bytes: PackageResources.recorder_js, contentType: javaScript),
    ]

    static let javaScript = "text/javascript; charset=utf-8"
}
