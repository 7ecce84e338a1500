// SPDX-License-Identifier: GPL-3.0-or-later
import HTTPService
import NIOHTTP1
import NetworkServer
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who may use a studio: requests that carry its token, name the address they came to (or the host it was told to
/// listen on) as their Host, and come from its own page or from no page. The token keeps out whoever has not got the
/// address the studio printed: other users and programs of the machine, and web pages. Host and Origin are a second
/// wall, as in Jupyter: a page whose domain name was made to point at this machine (DNS rebinding) sends its own
/// domain as the Host, and a page of another site sends its own Origin, so neither reaches the pack even if it has
/// the token.
///
/// The token travels as the page's query parameter `token` (the address the studio prints), as the header
/// `X-Studio-Token` on the API (`/api/…`, which the page's script sends), and as the cookie `studio-token-PORT` for
/// the page's own files, which the page sets (HttpOnly, SameSite=Strict) when it is served.
struct StudioAccess: Sendable {
    let token: String
    /// The host it was asked to listen on, as given: a request may name it (`localhost`) as well as the address.
    let listenHost: String

    /// The cookie that carries the token, named for the port: two studios on one machine share a host's cookies.
    static func cookieName(port: Int) -> String { "studio-token-\(port)" }

    /// - Throws: `StudioError.forbidden` naming what is missing or wrong.
    func check(_ request: HTTPRequest) throws(StudioError) {
        let head = request.head
        let local = request.localAddress
        let port = local?.port ?? 0
        var addresses = [listenHost] + (local?.ipAddress.map { [$0] } ?? [])
        // An IPv4 client of a server on `::` arrives at an IPv4-mapped address, and names the IPv4 one.
        if let mapped = addresses.last, mapped.hasPrefix("::ffff:"), mapped.contains(".") {
            addresses.append(String(mapped.dropFirst(7)))
        }
        let own = addresses.map { ServerAddress.hostAndPort($0, port) }.uniqued
        let hosts = head.headers["host"]
        guard hosts.count == 1, own.contains(where: { $0.lowercased() == hosts[0].lowercased() }) else {
            throw .forbidden(
                reason:
                    "the Host \(hosts.map { "\"\($0)\"" }.joined(separator: ", ")) is not this studio's address; expected \(own.joined(separator: " or "))"
            )
        }
        let origins = head.headers["origin"]
        guard origins.isEmpty || origins == ["http://\(hosts[0])"] else {
            throw .forbidden(
                reason:
                    "the Origin \(origins.map { "\"\($0)\"" }.joined(separator: ", ")) is not this studio's page; expected http://\(hosts[0]) or none"
            )
        }
        let given: String?
        let expected: String
        if request.path == "/" {
            given = request.queryParameters["token"]
            expected = "the query parameter token of the address voicebank studio printed"
        } else if request.path.hasPrefix("/api/") {
            given = head.headers.first(name: "x-studio-token")
            expected = "the header X-Studio-Token with the token of the address voicebank studio printed"
        } else {
            given = cookie(head, name: Self.cookieName(port: port))
            expected = "the cookie the studio's page sets; open the address voicebank studio printed"
        }
        guard let given else { throw .forbidden(reason: "the request carries no token; expected \(expected)") }
        guard Self.isEqualInConstantTime(given, token) else {
            throw .forbidden(reason: "the request's token is not this studio's; expected \(expected)")
        }
    }

    private func cookie(_ head: HTTPRequestHead, name: String) -> String? {
        for header in head.headers["cookie"] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, String(parts[0]).trimmingSpaces == name { return String(parts[1]) }
            }
        }
        return nil
    }

    /// The header that sets the cookie, on the page.
    func setCookie(port: Int) -> (String, String) {
        ("set-cookie", "\(Self.cookieName(port: port))=\(token); Path=/; HttpOnly; SameSite=Strict")
    }

    /// Compares every byte whatever the first difference, so that timing tells nothing of the token.
    private static func isEqualInConstantTime(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// A new token: 24 bytes of /dev/urandom in hex.
    ///
    /// - Throws: `StudioError.noRandomness`.
    static func newToken() throws(StudioError) -> String {
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .noRandomness(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 24)
        guard read(descriptor, &bytes, bytes.count) == bytes.count else {
            throw .noRandomness(reason: String(cString: strerror(errno)))
        }
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
