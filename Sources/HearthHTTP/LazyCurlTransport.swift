import Synchronization
package import HearthKit

/// An ``HTTPTransport`` that creates its ``CurlHTTPClient`` (and the client's thread) on the
/// first request, so commands and jobs that never call out pay nothing: not even loading libcurl.
package final class LazyCurlTransport: HTTPTransport {
    private let options: HTTPClientOptions
    private let client = Mutex<CurlHTTPClient?>(nil)

    package init(options: HTTPClientOptions) {
        self.options = options
    }

    /// Timeouts and CA from the config's `[http]`.
    package convenience init(config: HTTPConfig) {
        self.init(options: HTTPClientOptions(config))
    }

    package func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        let made = try client.withLock { (c: inout CurlHTTPClient?) throws(HTTPTransportError) -> CurlHTTPClient in
            if let c { return c }
            do throws(HTTPTransportError) {
                let new = try CurlHTTPClient(options: options)
                c = new
                return new
            } catch .other(url: "", let code, let detail) {
                // libcurl could not be loaded or started: say which request needed it.
                throw .other(url: HTTPTransportError.displayURL(request.url), code: code, detail: detail)
            }
        }
        return try await made.send(request)
    }
}
