/// A strict JSON parser (RFC 8259) over UTF-8 bytes.
///
/// Rejects invalid UTF-8, trailing garbage, control characters in strings and nesting deeper
/// than ``maxDepth``. Integers that fit `Int64` are kept as `.int`, other numbers as `.double`
/// when that writes back the same text, else as their text (``JSONNumber``); a duplicated key keeps
/// its first position and its last value, as JavaScript's `JSON.parse` does.
public struct JSONParser: ~Copyable {
    public static let maxDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var pos = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    public static func parse(_ data: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = Array(data).withUnsafeBufferPointer { buf in
            Result { () throws(JSONParseError) in try parse(buf) }
        }
        return try result.get()
    }

    /// Parses bytes in place (a reader's buffer), without copying them into an array first.
    public static func parse(_ buf: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes: buf)
        p.skipWhitespace()
        let v = try p.parseValue()
        p.skipWhitespace()
        if p.pos != buf.count { throw p.error("unexpected content after the JSON value") }
        return v
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        let end = min(offset ?? pos, bytes.count)
        var line = 1
        var col = 1
        var i = 0
        while i < end {
            if bytes[i] == UInt8(ascii: "\n") { line += 1; col = 1 } else if bytes[i] & 0xC0 != 0x80 { col += 1 }
            i += 1
        }
        return JSONParseError(message: message, line: line, column: col)
    }

    private mutating func skipWhitespace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x0A, 0x0D, 0x09: pos += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard pos < bytes.count else { throw error("unexpected end of input") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            throw error("unexpected character '\(Character(Unicode.Scalar(bytes[pos])))'")
        }
    }

    private mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard pos + n <= bytes.count else { throw error("unexpected end of input") }
        let w = word.utf8Start
        for i in 0..<n where bytes[pos + i] != w[i] {
            throw error("invalid literal")
        }
        pos += n
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        var keys: [String] = []
        var values: [JSONValue] = []
        // Duplicate keys (the last one wins) are found by a linear scan while the object is
        // small, then through an index: a ledger object holds 100,000 keys.
        var index: [String: Int]?
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
                throw error(pos < bytes.count ? "expected a quoted key" : "unexpected end of input")
            }
            let key = try parseString()
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            pos += 1
            skipWhitespace()
            let value = try parseValue()
            if let i = index.map({ $0[key] }) ?? Self.position(of: key, in: keys) {
                values[i] = value
            } else {
                index?[key] = keys.count
                keys.append(key)
                values.append(value)
                if index == nil, keys.count > 32 {
                    index = Dictionary(uniqueKeysWithValues: zip(keys, keys.indices))
                }
            }
            skipWhitespace()
            guard pos < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "}") { pos += 1; break }
            throw error("expected ',' or '}' in object")
        }
        depth -= 1
        return .object(JSONObject(uniqueKeys: keys, values: values))
    }

    /// The position of `key` among `keys`, comparing lengths first: the keys of one object
    /// seldom share a length, and `==` of two different strings is a call into the runtime
    /// (2% of reading a collection in a profile; docs/performance.md#profiles-leaderboard-rebuild-steady-run-20000-users).
    private static func position(of key: String, in keys: [String]) -> Int? {
        let length = key.utf8.count
        for i in keys.indices where keys[i].utf8.count == length && keys[i] == key { return i }
        return nil
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return .array([])
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard pos < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "]") { pos += 1; break }
            throw error("expected ',' or ']' in array")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = pos
        var isInteger = true
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number") }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < bytes.count, isDigit(bytes[pos]) { throw error("leading zeros are not allowed in numbers") }
        } else {
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number: digit expected after '.'") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            isInteger = false
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number: digit expected in exponent") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if isInteger {
            var value: Int64 = 0
            var i = start
            let negative = bytes[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            var overflow = false
            while i < pos {
                let d = Int64(bytes[i] &- UInt8(ascii: "0"))
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { overflow = true; break }
                value = s
                i += 1
            }
            // `-0` would be written back as `0`: kept as text.
            if !overflow, !(negative && value == 0) { return .int(value) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw error("number out of range", at: start) }
        // A `.double` is written in its shortest form: kept only when that is this text.
        if !isInteger, JSONWriter.writesAsItself(d, text) { return .double(d) }
        return .number(JSONNumber(unchecked: text))
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private mutating func parseString() throws(JSONParseError) -> String {
        pos += 1
        let start = pos
        // Fast path: no escapes.
        var ascii = true
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<pos])
                pos += 1
                // ASCII is valid UTF-8 as it is: skip the (generic, slower) validating initializer.
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw error("invalid UTF-8 in string", at: start)
                }
                return s
            }
            ascii = ascii && b < 0x80
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("control character in string") }
            pos += 1
        }
        var buffer: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<pos]))
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                guard let s = String(validating: buffer, as: UTF8.self) else {
                    throw error("invalid UTF-8 in string", at: start)
                }
                return s
            }
            if b < 0x20 { throw error("control character in string") }
            if b != UInt8(ascii: "\\") {
                buffer.append(b)
                pos += 1
                continue
            }
            pos += 1
            guard pos < bytes.count else { break }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): buffer.append(0x22)
            case UInt8(ascii: "\\"): buffer.append(0x5C)
            case UInt8(ascii: "/"): buffer.append(0x2F)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    pos += 2
                    let low = try readHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired UTF-16 surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                buffer.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
            }
        }
        throw error("unterminated string", at: start - 1)
    }

    private mutating func readHex4() throws(JSONParseError) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw error("unexpected end of input in \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[pos]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }
}
