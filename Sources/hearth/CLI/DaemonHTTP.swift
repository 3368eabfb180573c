import HearthCore
import Logging
import Synchronization

/// The HTTP client the daemon uses for run-monitoring pings.
enum DaemonHTTP {
    /// A pinger whose ``CurlHTTPClient`` (and its thread) is created on the first ping, so a
    /// daemon without `pingUrl`s — or one that gains them on SIGHUP — pays only when it pings.
    static func pinger(config: HearthConfig, logger: Logger) -> RunPinger {
        let options = HTTPClientOptions(connectTimeout: config.http.connectTimeout, timeout: config.http.timeout, caFile: config.http.caFile)
        return RunPinger(transport: LazyCurlTransport(options: options), timeout: min(config.http.timeout, .seconds(10)), logger: logger)
    }
}

/// Creates its ``CurlHTTPClient`` on first use.
final class LazyCurlTransport: HTTPTransport {
    private let options: HTTPClientOptions
    private let client = Mutex<CurlHTTPClient?>(nil)

    init(options: HTTPClientOptions) {
        self.options = options
    }

    func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        let made = try client.withLock { (c: inout CurlHTTPClient?) throws(HTTPTransportError) -> CurlHTTPClient in
            if let c { return c }
            let new = try CurlHTTPClient(options: options)
            c = new
            return new
        }
        return try await made.send(request)
    }
}
