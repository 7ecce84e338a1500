// SPDX-License-Identifier: GPL-3.0-or-later
import HTTPService
import NIOCore
import NIOHTTP1
import Testing

/// The HTTP core's route table: path patterns with parameters, the first route that matches, 405 with `Allow` for a
/// path whose routes take other methods, 404 naming the routes for a path none has.
@Suite struct RouteTableTests {
    /// A site whose handlers answer with what they were told: the route and its parameters.
    final class EchoSite: Sendable {
        static let routes = RouteTable<EchoSite>([
            Route(.GET, "/", EchoSite.echo("page")),
            Route(.POST, "/api/takes", EchoSite.echo("keep")),
            Route(.POST, "/api/takes/check", EchoSite.echo("check")),
            Route(.DELETE, "/api/takes/:id", EchoSite.echo("discard")),
            Route(.POST, "/api/takes/:id/position", EchoSite.echo("reposition")),
            Route(.GET, "/api/takes/:id/audio", EchoSite.echo("audio")),
            Route(.GET, "/renders/:name", EchoSite.echo("render")),
            Route(.GET, "/process", EchoSite.echo("mary")),
            Route(.POST, "/process", EchoSite.echo("mary")),
        ])

        static func echo(_ name: String) -> @Sendable (EchoSite) -> (HTTPRequest) throws(APIError) -> HTTPAnswer {
            { _ in
                { request in
                    let parameters = request.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    return .body(
                        .ok, Array(([name] + parameters).joined(separator: " ").utf8), contentType: "text/plain")
                }
            }
        }
    }

    func answer(_ method: HTTPMethod, _ uri: String) -> Result<String, APIError> {
        let request = HTTPRequest(head: HTTPRequestHead(version: .http1_1, method: method, uri: uri), body: [])
        do throws(APIError) {
            guard case .body(_, let bytes, _, _) = try EchoSite.routes.answer(request, site: EchoSite()) else {
                return .success("a job")
            }
            return .success(String(decoding: bytes, as: UTF8.self))
        } catch {
            return .failure(error)
        }
    }

    @Test(
        "a request finds its route, with the path's parameters and never its query",
        arguments: [
            (HTTPMethod.GET, "/?token=T", "page"), (.POST, "/api/takes?prompt=3", "keep"),
            (.POST, "/api/takes/check", "check"), (.DELETE, "/api/takes/12", "discard id=12"),
            (.POST, "/api/takes/12/position?position=final", "reposition id=12"),
            (.GET, "/api/takes/7/audio", "audio id=7"), (.GET, "/renders/3.wav", "render name=3.wav"),
            (.GET, "/process?INPUT_TEXT=Hi", "mary"), (.POST, "/process", "mary"),
        ])
    func found(method: HTTPMethod, uri: String, expected: String) throws {
        #expect(try answer(method, uri).get() == expected)
    }

    @Test(
        "a path whose routes take other methods is 405, with Allow listing them",
        arguments: [
            (HTTPMethod.DELETE, "/process", "GET, POST", "DELETE is not a method of /process; expected GET or POST"),
            (.GET, "/api/takes/12", "DELETE", "GET is not a method of /api/takes/12; expected DELETE"),
            (
                .PUT, "/api/takes/check", "POST, DELETE",
                "PUT is not a method of /api/takes/check; expected POST or DELETE"
            ),
        ])
    func methodNotAllowed(method: HTTPMethod, uri: String, allow: String, message: String) {
        guard case .failure(let error) = answer(method, uri) else {
            Issue.record("\(method) \(uri) was answered")
            return
        }
        #expect(error.status == .methodNotAllowed)
        #expect(error.allow == allow)
        #expect(error.message == message)
    }

    @Test(
        "a path no route has is 404, naming every route; a parameter is one whole segment, never empty",
        arguments: ["/v2/everything", "/api/takes/12/position/more", "/api/takes//audio", "/renders/", "/api"])
    func notFound(uri: String) {
        guard case .failure(let error) = answer(.GET, uri) else {
            Issue.record("GET \(uri) was answered")
            return
        }
        #expect(error.status == .notFound)
        #expect(error.allow == nil)
        #expect(
            error.message
                == "no endpoint GET \(uri); expected GET /, POST /api/takes, POST /api/takes/check, DELETE /api/takes/ID, POST /api/takes/ID/position, GET /api/takes/ID/audio, GET /renders/NAME, GET /process or POST /process"
        )
    }

    @Test("a pattern matches its own shape only")
    func patterns() {
        let pattern: PathPattern = "/api/recordings/:id/end"
        #expect(pattern.match("/api/recordings/4/end") == ["id": "4"])
        #expect(pattern.match("/api/recordings/4") == nil)
        #expect(pattern.match("/api/recordings/4/end/") == nil)
        #expect(pattern.description == "/api/recordings/ID/end")
        #expect(PathPattern("/").match("/") == [:])
        #expect(PathPattern("/").match("") == nil)
    }
}
