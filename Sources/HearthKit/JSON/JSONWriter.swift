/// Serializes JSON the way Hearth writes documents: 2-space indent, one key per line,
/// `"key": value`, a trailing newline — the same layout as JavaScript's
/// `JSON.stringify(value, null, 2)`. Non-ASCII characters and `/` are written as they are.
public enum JSONWriter {
    /// A document's bytes, in a buffer of their size (a changeset keeps every one it writes).
    public static func document(_ object: JSONObject) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(.object(object), indent: 0, pretty: true, into: &out)
        out.append(0x0A)
        return [UInt8](fitting: out)
    }

    /// Single-line rendering, for diffs and journal entries.
    public static func compact(_ value: JSONValue) -> String {
        String(decoding: compactBytes(value), as: UTF8.self)
    }

    /// Single-line rendering as UTF-8 bytes (a request body, a log record).
    package static func compactBytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        writeCompact(value, into: &out)
        return out
    }

    /// Appends the single-line rendering of `value` to `out`.
    package static func writeCompact(_ value: JSONValue, into out: inout [UInt8]) {
        write(value, indent: 0, pretty: false, into: &out)
    }

    public static func pretty(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, indent: 0, pretty: true, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        writeString(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Shortest text that reads back as the same `Double`; integral values keep a `.0`.
    public static func format(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return "\(d)"
    }

    /// Whether ``format(_:)`` of `d` is exactly `text`.
    static func writesAsItself(_ d: Double, _ text: String) -> Bool {
        format(d) == text
    }

    private static func newline(_ indent: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        for _ in 0..<indent { out.append(0x20); out.append(0x20) }
    }

    package static func write(_ value: JSONValue, indent: Int, pretty: Bool, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .int(let i): out.append(contentsOf: Array(String(i).utf8))
        case .double(let d): out.append(contentsOf: Array(format(d).utf8))
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: [0x5B, 0x5D]); return }
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                if pretty { newline(indent + 1, into: &out) }
                write(item, indent: indent + 1, pretty: pretty, into: &out)
            }
            if pretty { newline(indent, into: &out) }
            out.append(0x5D)
        case .object(let obj):
            if obj.isEmpty { out.append(contentsOf: [0x7B, 0x7D]); return }
            out.append(0x7B)
            for (i, (k, v)) in obj.enumerated() {
                if i > 0 { out.append(0x2C) }
                if pretty { newline(indent + 1, into: &out) }
                writeString(k, into: &out)
                out.append(0x3A)
                if pretty { out.append(0x20) }
                write(v, indent: indent + 1, pretty: pretty, into: &out)
            }
            if pretty { newline(indent, into: &out) }
            out.append(0x7D)
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, into: &out) }
    }

    /// Copies each run of bytes that needs no escape in one go (most strings are one run).
    private static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(0x22)
        var run = 0
        for (i, b) in bytes.enumerated() where b < 0x20 || b == 0x22 || b == 0x5C {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
            run = i + 1
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
            default:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        out.append(0x22)
    }
}
