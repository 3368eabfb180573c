/// The one part of `Cache-Control` (RFC 9111 §5.2) the key cache reads.
enum CacheControl {
    /// `max-age=N` in seconds (the first one; quoted values allowed), or nil when the header or
    /// the directive is absent or not a non-negative integer.
    static func maxAge(_ header: String?) -> Int64? {
        guard let header else { return nil }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingSpaces.lowercased() == "max-age" else { continue }
            var value = parts[1].trimmingSpaces
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            guard let seconds = Int64(value), seconds >= 0 else { return nil }
            return seconds
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}
