/// One outbound HTTP request, as handed to an ``HTTPTransport``.
///
/// Header names are sent as given (HTTP/2 lower-cases them on the wire). Header values and the
/// body often carry credentials (bearer tokens, signatures), so no error or log line produced by
/// the transport ever includes them.
public struct HTTPRequest: Sendable {
    /// The request method, e.g. `GET`, `POST`. Must be an HTTP token (letters, digits, `!#$%&'*+-.^_`|~`).
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Request headers in the order they are sent. A header with an empty value is sent as such.
    public var headers: [(name: String, value: String)]
    /// The request body; sent when non-empty, or always for `POST`, `PUT` and `PATCH`
    /// (an empty body then goes out with `Content-Length: 0`).
    public var body: [UInt8]
    /// Limit for the whole exchange (connect, send, receive). `nil` uses the client's default.
    public var timeout: Duration?
    /// Limit for establishing the connection (TCP and TLS). `nil` uses the client's default.
    public var connectTimeout: Duration?

    public init(
        method: String = "GET",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        timeout: Duration? = nil,
        connectTimeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }
}
