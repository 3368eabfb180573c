import Foundation
import Logging
import Hummingbird
import HTTPTypes
import NIOCore
import HearthKit
import HearthHost

/// The callable protocol on the endpoint (docs/callables.md#the-protocol): `POST
/// /{project}/{region}/{name}` (what Firebase's SDKs send to an emulator host or a custom
/// domain) and `POST /call/{name}`, with CORS preflight for `[callable] origins`.
///
/// These routes are the app's, not the operator's: they ignore `[[server.tokens]]` (their
/// `Authorization` carries the app user's ID token) and answer every failure in the protocol's
/// shape. Checks, in order: the function (404 `NOT_FOUND`), the request (not `POST`, not
/// `application/json`, a body that is not an object whose only field is `data`: 400
/// `INVALID_ARGUMENT` "Bad Request", as Firebase's own server library says it), the token (401
/// `UNAUTHENTICATED` "Unauthenticated"), then the run. The token never reaches a log.
struct CallableRoutes: Sendable {
    let daemon: SchedulerDaemon
    let verifier: (any CallerVerifier)?
    let metrics: DaemonMetrics
    let logger: Logger

    /// A call's body is at most this large (a document is at most 1 MiB).
    static let maxBody = 1 << 20
    static let allowedHeaders = "Authorization, Content-Type"

    /// Whether `path` is a callable route's, so the endpoint's own tokens do not guard it.
    static func matches(_ path: Substring) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if parts.count == 2 { return parts.first == "call" && !parts.last!.isEmpty }
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty } && !["jobs", "outbox", "runs"].contains(parts.first!)
    }

    /// Every method on `path`: `POST` calls, `OPTIONS` is a browser's preflight, the rest are
    /// malformed calls.
    func register(_ path: RouterPath, on router: Router<EndpointContext>) {
        for method in [HTTPRequest.Method.get, .put, .delete, .patch, .head] {
            router.on(path, method: method) { request, context in await answer(request, name: try context.parameters.require("name"), method: method) }
        }
        router.post(path) { request, context in await answer(request, name: try context.parameters.require("name"), method: .post) }
        router.on(path, method: .options) { request, _ in await preflight(request) }
    }

    private func answer(_ request: Request, name: String, method: HTTPRequest.Method) async -> Response {
        let started = ContinuousClock.now
        var request = request
        let answer: CallAnswer
        if let jc = await daemon.config.jobs[name], jc.callable, jc.enabled {
            answer = await self.answer(&request, name: name, method: method)
            let elapsed = started.duration(to: .now)
            metrics.callAnswered(job: name, code: answer.code, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        } else {
            // No series for a name that is not a callable job: any caller can send any name.
            answer = .error(CallError(.notFound, "no callable function named \(name)"))
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        await allowOrigin(request, &headers)
        let body = JSONWriter.compact(.object(answer.body))
        return Response(status: HTTPResponse.Status(code: answer.httpStatus), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The answer to a call of `name`, a callable job.
    private func answer(_ request: inout Request, name: String, method: HTTPRequest.Method) async -> CallAnswer {
        let badRequest = CallAnswer.error(CallError(.invalidArgument, "Bad Request"))
        guard method == .post, Self.isJSON(request.headers[.contentType]) else { return badRequest }
        guard let buffer = try? await request.collectBody(upTo: Self.maxBody),
              case .object(let body)? = try? JSONParser.parse(Array(buffer.readableBytesView)),
              body.count == 1, let data = body["data"]
        else { return badRequest }
        var call = Call(data: data)
        if let authorization = request.headers[.authorization] {
            guard authorization.hasPrefix("Bearer "), let verifier else { return .error(CallError(.unauthenticated, "Unauthenticated")) }
            do {
                (call.uid, call.claims) = try await verifier.verify(String(authorization.dropFirst(7)))
            } catch {
                logger.info("call refused: the ID token is not accepted", metadata: ["job": "\(name)", "reason": "\(error)"])
                return .error(CallError(.unauthenticated, "Unauthenticated"))
            }
        }
        return await daemon.call(job: name, call)
    }

    /// `application/json`, with or without parameters (`; charset=utf-8`), in any case.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return type.lowercased() == "application/json"
    }

    /// A browser's preflight: allowed for the configured origins only.
    private func preflight(_ request: Request) async -> Response {
        var headers = HTTPFields()
        guard await allowOrigin(request, &headers) else {
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .forbidden, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "origin not allowed: add it to [callable] origins\n")))
        }
        headers[.accessControlAllowMethods] = "POST"
        headers[.accessControlAllowHeaders] = Self.allowedHeaders
        headers[.accessControlMaxAge] = "3600"
        return Response(status: .noContent, headers: headers)
    }

    /// Adds `Access-Control-Allow-Origin` (and `Vary: Origin`) when the request's `Origin` is
    /// one of `[callable] origins`; false when it is not.
    @discardableResult
    private func allowOrigin(_ request: Request, _ headers: inout HTTPFields) async -> Bool {
        headers[.vary] = "Origin"
        guard let origin = request.headers[.origin], await daemon.config.callableOrigins.contains(origin) else { return false }
        headers[.accessControlAllowOrigin] = origin
        return true
    }
}
