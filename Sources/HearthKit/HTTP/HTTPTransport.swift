/// Sends HTTP requests. ``CurlHTTPClient`` is the real implementation; code that sends things
/// depends on this protocol so its own tests can substitute a scripted transport.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    ///
    /// Throws only when no complete response was received: timeout, connection or TLS failure,
    /// an invalid request, or cancellation of the calling task.
    func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse
}
