import Hummingbird
import HTTPTypes
import NIOCore

/// The endpoint's door (docs/operations/monitoring.md#tokens-and-roles): with any token
/// configured, every request but `/login` (and `/healthz`, `/readyz` unless
/// `healthNeedsToken`) needs a `read` or `operate` token, as `Authorization: Bearer …` or a
/// session cookie from `/login`; anything else gets a bare 401. The actions (every `POST`)
/// check `operate` themselves (``ActionRoutes``), with or without configured tokens. The
/// callable routes are the apps', with their own tokens (``CallableRoutes``).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = EndpointContext
    let credentials: Credentials
    let healthNeedsToken: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // The apps' calls carry their users' ID tokens, not the endpoint's (``CallableRoutes``).
        if CallableRoutes.matches(path[...]) { return try await next(request, context) }
        var context = context
        context.identity = credentials.identify(authorization: request.headers[.authorization], cookie: request.headers[.cookie])
        // POSTs (the actions, /login, /logout) check the identity themselves, answering JSON with
        // the fix, and need `operate` even when no token is configured.
        let open = request.method == .post || path == "/login" || (!healthNeedsToken && (path == "/healthz" || path == "/readyz"))
        guard credentials.required, !open, context.identity == nil else { return try await next(request, context) }
        return Self.unauthorized(request)
    }

    /// 401: a bare text for programs, a page linking to `/login` for a browser.
    static func unauthorized(_ request: Request) -> Response {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer"
        headers[.cacheControl] = "no-store"
        if request.method == .get, request.headers[.accept]?.contains("text/html") == true {
            headers[.contentType] = "text/html; charset=utf-8"
            let page = HTML.page(title: "Sign in", refresh: nil, body: "<h1>Hearth</h1><p>This endpoint needs a token. <a href=\"/login\">Sign in</a>.</p>")
            return Response(status: .unauthorized, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
        }
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: .unauthorized, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "unauthorized\n")))
    }
}
