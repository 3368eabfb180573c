import Hummingbird
import HTTPTypes
import NIOCore

/// Lets a request through only with `Authorization: Bearer <token>`, compared in constant time
/// (docs/operations/monitoring.md#the-token); anything else gets a bare 401.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    init(token: String) {
        self.token = Array(token.utf8)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], Self.matches(header, token: token) else {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Bearer"
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .unauthorized, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "unauthorized\n")))
        }
        return try await next(request, context)
    }

    /// Whether `header` is `Bearer <token>`; the time taken depends on the lengths only.
    static func matches(_ header: String, token: [UInt8]) -> Bool {
        let given = Array(header.utf8)
        let prefix = Array("Bearer ".utf8)
        guard given.count > prefix.count else { return false }
        var schemeDiffers = false
        for i in 0..<prefix.count { schemeDiffers = schemeDiffers || (given[i] | 0x20) != (prefix[i] | 0x20) }
        return !schemeDiffers && constantTimeEqual(Array(given[prefix.count...]), token)
    }

    /// Compares every byte of the longer input, whatever differs first.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
