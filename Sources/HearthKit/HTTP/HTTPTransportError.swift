/// Why an ``HTTPTransport`` got no complete response.
///
/// The `url` in each case is only the scheme, host and port of the request URL (see
/// ``displayURL(_:)``): paths and query strings can carry secrets (webhook URLs often do), and
/// request headers and bodies are never part of an error.
public enum HTTPTransportError: Error, Sendable, CustomStringConvertible {
    /// No complete response within the request's total timeout (or the connect timeout).
    case timedOut(url: String)
    /// The connection could not be made (refused, unreachable, DNS failure, proxy failure) or
    /// broke before the response was complete (reset or closed mid-response).
    case connectionFailed(url: String, detail: String)
    /// The TLS handshake or certificate verification failed.
    case tls(url: String, detail: String)
    /// The request cannot be sent as given (bad URL or scheme, bad method or header), or the
    /// client has been shut down.
    case invalidRequest(String)
    /// The calling task was cancelled, or the client shut down, before the response arrived.
    case cancelled
    /// Any other libcurl failure; `code` is the `CURLcode`. `url` is empty when the client could
    /// not start (libcurl missing, out of memory) before any request.
    case other(url: String, code: Int, detail: String)

    /// Whether sending the same request again later may succeed: true for timeouts, connection
    /// failures and unclassified transfer errors; false for TLS failures (fix the certificate or
    /// `caFile` first), invalid requests and cancellation.
    public var isRetryable: Bool {
        switch self {
        case .timedOut, .connectionFailed, .other: true
        case .tls, .invalidRequest, .cancelled: false
        }
    }

    public var description: String {
        switch self {
        case .timedOut(let url):
            "HTTP request to \(url) timed out; the server is slow or unreachable (retry later, or raise the timeout)"
        case .connectionFailed(let url, let detail):
            "HTTP connection to \(url) failed: \(detail) (check that the server is up and reachable, and any http_proxy/https_proxy/no_proxy settings)"
        case .tls(let url, let detail):
            "TLS failure talking to \(url): \(detail) (check the server's certificate and host name, or set caFile when it uses a private CA)"
        case .invalidRequest(let reason):
            "invalid HTTP request: \(reason)"
        case .cancelled:
            "HTTP request cancelled before a response arrived"
        case .other(let url, let code, let detail) where url.isEmpty:
            "HTTP client cannot start (libcurl error \(code)): \(detail)"
        case .other(let url, let code, let detail):
            "HTTP request to \(url) failed (libcurl error \(code)): \(detail)"
        }
    }

    /// The part of `url` that is safe to show: `scheme://host[:port]`, without user info, path,
    /// query or fragment. Text that does not look like an absolute URL is replaced entirely.
    public static func displayURL(_ url: String) -> String {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
            return "<not an absolute URL>"
        }
        let scheme = url[..<colon].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else { return "<not an absolute URL>" }
        let rest = url[url.index(colon, offsetBy: 3)...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        return "\(scheme)://\(authority)"
    }
}
