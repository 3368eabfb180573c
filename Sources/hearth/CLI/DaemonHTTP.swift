import Logging
import HearthKit
import HearthHost
import HearthHTTP

/// The HTTP client the daemon uses for run-monitoring pings.
enum DaemonHTTP {
    /// A pinger over `transport` (the daemon's ``LazyCurlTransport``: its ``CurlHTTPClient`` and
    /// curl thread exist only once something is sent, so a daemon without `pingUrl`s — or one
    /// that gains them on SIGHUP — pays only when it pings).
    static func pinger(config: HearthConfig, transport: any HTTPTransport, logger: Logger) -> RunPinger {
        RunPinger(transport: transport, timeout: min(config.http.timeout, .seconds(10)), logger: logger)
    }
}
