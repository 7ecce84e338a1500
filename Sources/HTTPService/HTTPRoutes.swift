// SPDX-License-Identifier: GPL-3.0-or-later
import NIOHTTP1

/// A site's routes as a table: each a method, a path pattern and the handler that answers it. The table finds the
/// route of a request, with its path's parameters, and answers what no route takes: a path no route has with 404, a
/// path whose routes take other methods with 405 and an `Allow` header that lists them.
///
/// ```swift
/// static let routes = RouteTable<SpeechSite>([
///     Route(.GET, "/v1/models", SpeechSite.models),
///     Route(.POST, "/api/takes/:id/position", StudioSite.reposition),   // request.parameters["id"]
/// ])
/// ```
package struct RouteTable<Site>: Sendable {
    package let routes: [Route<Site>]

    package init(_ routes: [Route<Site>]) { self.routes = routes }

    /// What the table makes of a request: its route with the path's parameters, or why there is none.
    package enum Match {
        case found(Route<Site>, parameters: [String: String])
        /// Routes have the path but take other methods.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    /// The first route whose method and pattern match; else the methods the routes with a matching pattern take.
    package func match(_ method: HTTPMethod, _ path: String) -> Match {
        let segments = PathPattern.segments(of: path)
        var allowed: [HTTPMethod] = []
        for route in routes {
            guard let parameters = route.pattern.match(segments) else { continue }
            if route.method == method { return .found(route, parameters: parameters) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    /// The answer of the request's route, told its path's parameters.
    ///
    /// - Throws: what the route throws; `APIError` 405 (with `Allow`) for a method its path's routes do not take, 404
    ///   for a path no route has, each naming what would be accepted.
    package func answer(_ request: HTTPRequest, site: Site) throws(APIError) -> HTTPAnswer {
        let method = request.head.method
        let path = request.path
        switch match(method, path) {
        case .found(let route, let parameters):
            var request = request
            request.parameters = parameters
            return try route.handler(site)(request)
        case .methodNotAllowed(let allowed):
            var error = APIError(
                status: .methodNotAllowed, type: "invalid_request_error",
                message: "\(method) is not a method of \(path); expected \(Self.list(allowed.map(\.rawValue)))")
            error.allow = allowed.map(\.rawValue).joined(separator: ", ")
            throw error
        case .notFound:
            throw APIError(
                status: .notFound, type: "not_found_error",
                message: "no endpoint \(method) \(path); expected \(Self.list(routes.map(\.description)))")
        }
    }

    /// `a`, `a or b`, `a, b or c`.
    private static func list(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
    }
}

/// One row of a `RouteTable`: a method, a path pattern, and the handler, a method of the site.
package struct Route<Site>: Sendable, CustomStringConvertible {
    package let method: HTTPMethod
    package let pattern: PathPattern
    package let handler: @Sendable (Site) -> (HTTPRequest) throws(APIError) -> HTTPAnswer

    package init(
        _ method: HTTPMethod, _ pattern: PathPattern,
        _ handler: @escaping @Sendable (Site) -> (HTTPRequest) throws(APIError) -> HTTPAnswer
    ) {
        self.method = method
        self.pattern = pattern
        self.handler = handler
    }

    /// `POST /api/takes/ID/position`, as a 404's message lists the routes.
    package var description: String { "\(method.rawValue) \(pattern)" }
}

/// A path with parameters: `/api/takes/:id/position` matches `/api/takes/12/position` with `id` = `12`. A parameter
/// is one whole segment, never empty; the other segments match only themselves.
package struct PathPattern: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }
    private let segments: [Segment]

    package init(_ pattern: String) {
        segments = Self.segments(of: pattern).map {
            $0.hasPrefix(":") ? .parameter(String($0.dropFirst())) : .literal(String($0))
        }
    }

    package init(stringLiteral pattern: String) { self.init(pattern) }

    /// The segments of a path: `/api/takes/12` → `api`, `takes`, `12`; `/` → one empty segment.
    static func segments(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }

    /// The parameters of `path` when it matches; `nil` when it does not.
    package func match(_ path: String) -> [String: String]? { match(Self.segments(of: path)) }

    func match(_ path: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let literal): guard part == literal else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }

    /// `/api/takes/ID/position`: each parameter's name in capitals.
    package var description: String {
        "/"
            + segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .parameter(let name): name.uppercased()
                }
            }.joined(separator: "/")
    }
}
