/// Response header lines as libcurl hands them to ``CurlHTTPClient``'s header callback
/// (CURLOPT_HEADERFUNCTION), one at a time.
enum CurlHeaderLine {
    /// Adds `line` (CR LF included) to `headers`. A status line starts a new response (after
    /// `100 Continue` or a proxy's `CONNECT` reply), so only the final response's headers are kept.
    static func append(_ line: UnsafeRawBufferPointer, to headers: inout [(name: String, value: String)]) {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A { end -= 1 }
        guard end > 0 else { return }
        if end >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            headers.removeAll(keepingCapacity: true)
        } else if line[0] == 0x20 || line[0] == 0x09 {
            // An obsolete folded continuation of the previous header.
            if !headers.isEmpty {
                let more = trimmedText(line, from: 0, to: end)
                headers[headers.count - 1].value += " " + more
            }
        } else if let colon = line[..<end].firstIndex(of: UInt8(ascii: ":")) {
            let name = String(unsafeUninitializedCapacity: colon) { name in
                for index in 0..<colon {
                    let byte = line[index]
                    name[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                }
                return colon
            }
            headers.append((name: name, value: trimmedText(line, from: colon + 1, to: end)))
        }
    }

    /// `bytes[from..<to]` without surrounding spaces and tabs, decoded as UTF-8 (invalid bytes repaired).
    static func trimmedText(_ bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> String {
        var start = from
        var end = to
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
}
