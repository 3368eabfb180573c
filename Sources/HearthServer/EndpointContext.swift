import Hummingbird
import NIOCore

/// The request context of the daemon's endpoint: Hummingbird's core storage and the peer's
/// address (recorded in the audit log for actions).
struct EndpointContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The peer's IP address (`127.0.0.1`, `::1`), or `unknown`.
    var peer: String { remoteAddress?.ipAddress ?? "unknown" }
}
