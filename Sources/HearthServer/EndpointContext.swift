import Hummingbird
import NIOCore

/// The request context of the daemon's endpoint: Hummingbird's core storage, the peer's
/// address (recorded in the audit log for actions) and who the caller is.
struct EndpointContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The operator token the request proves (`Authorization: Bearer …` or a session cookie),
    /// set by ``AccessMiddleware`` for every route but the apps' calls (``CallableRoutes``,
    /// whose bearer is an app user's ID token); nil: none.
    var identity: Credentials.Identity?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The peer's IP address (`127.0.0.1`, `::1`), or `unknown`.
    var peer: String { remoteAddress?.ipAddress ?? "unknown" }
}
