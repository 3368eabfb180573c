import HearthKit

/// A request checked and converted on the caller's side, so the curl thread only copies it into
/// libcurl.
struct CurlPreparedRequest: Sendable {
    var url: String
    var isHTTPS: Bool
    var method: String
    var headerLines: [String]
    var body: [UInt8]
    var sendsBody: Bool
    var timeoutMS: Int
    var connectTimeoutMS: Int

    init(_ request: HTTPRequest, options: HTTPClientOptions) throws(HTTPTransportError) {
        guard Self.hasHTTPScheme(request.url) else {
            throw .invalidRequest("URL \(HTTPTransportError.displayURL(request.url)) is not an absolute http:// or https:// URL")
        }
        guard !request.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalidRequest("URL for \(HTTPTransportError.displayURL(request.url)) contains spaces or control characters")
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(Self.isTokenByte) else {
            throw .invalidRequest("method \"\(request.method)\" is not an HTTP token")
        }
        var lines: [String] = []
        var hasExpect = false
        for header in request.headers {
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidRequest("header name \"\(header.name)\" is not an HTTP token")
            }
            // The value is not quoted here: it may be a secret.
            guard !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                throw .invalidRequest("value of header \(header.name) contains CR, LF or NUL")
            }
            if header.name.utf8.count == 6, header.name.lowercased() == "expect" { hasExpect = true }
            // libcurl: "Name:" removes an internal header, "Name;" sends it with an empty value.
            let blank = header.value.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 }
            lines.append(blank ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        // libcurl would add `Expect: 100-continue` to larger HTTP/1.1 bodies and then wait up to
        // a second for an interim response that many servers never send.
        if !hasExpect { lines.append("Expect:") }

        url = request.url
        isHTTPS = request.url.utf8.dropFirst(4).first.map { $0 | 0x20 == UInt8(ascii: "s") } ?? false
        method = request.method
        headerLines = lines
        body = request.body
        sendsBody = !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method)
        timeoutMS = Self.milliseconds(request.timeout ?? options.timeout)
        connectTimeoutMS = Self.milliseconds(request.connectTimeout ?? options.connectTimeout)
    }

    /// Whether `url` starts with `http://` or `https://`, in any case.
    static func hasHTTPScheme(_ url: String) -> Bool {
        var utf8 = url.utf8.makeIterator()
        for expected in "http".utf8 {
            guard let byte = utf8.next(), byte | 0x20 == expected else { return false }
        }
        var next = utf8.next()
        if let byte = next, byte | 0x20 == UInt8(ascii: "s") { next = utf8.next() }
        return next == UInt8(ascii: ":") && utf8.next() == UInt8(ascii: "/") && utf8.next() == UInt8(ascii: "/")
    }

    /// Whole milliseconds, at least 1 (libcurl reads 0 as "no timeout").
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let ms = seconds.multipliedReportingOverflow(by: 1000)
        if ms.overflow || ms.partialValue > Int64(Int32.max) { return Int(Int32.max) }
        return max(1, Int(ms.partialValue + attoseconds / 1_000_000_000_000_000))
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
