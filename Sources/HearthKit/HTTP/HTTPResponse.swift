/// A complete HTTP response. Any status is a response, including 3xx (redirects are never
/// followed) and 4xx/5xx: deciding what a status means is the caller's business.
public struct HTTPResponse: Sendable {
    /// The final status code (interim `1xx` responses are skipped).
    public var status: Int
    /// Response headers of the final response in the order received, names lower-cased.
    public var headers: [(name: String, value: String)]
    /// The response body, as received (no content decoding is requested or applied).
    public var body: [UInt8]
    /// The protocol version the response came over: `"1.1"`, `"1.0"`, `"2"` or `"3"`.
    public var httpVersion: String

    public init(
        status: Int,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        httpVersion: String = "1.1"
    ) {
        self.status = status
        self.headers = headers.map { (name: $0.name.lowercased(), value: $0.value) }
        self.body = body
        self.httpVersion = httpVersion
    }

    /// For headers whose names are lower-case already (the client's own parsing).
    package init(status: Int, lowercasedHeaders: [(name: String, value: String)], body: [UInt8], httpVersion: String) {
        self.status = status
        self.headers = lowercasedHeaders
        self.body = body
        self.httpVersion = httpVersion
    }

    /// The value of the first header called `name` (compared case-insensitively), or `nil`.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }
}
