/// A JSON value as Hearth stores it.
///
/// Integers that fit in `Int64` stay integers (never through `Double`), so a document's
/// `points: 9007199254740993` survives a rewrite exactly. A number whose text neither form
/// would write back as it was (`12345678901234567890`, `1.10`, `1E2`, `-0.0`) is kept as its
/// text (``JSONNumber``), so an untouched field is rewritten byte for byte
/// (docs/data-directory.md#numbers). Objects keep their key order.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// A number kept as written, because `.int`/`.double` would change its text.
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The type name used in error messages (`expected integer, found string "12"`).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .number(let n): n.isIntegerText ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The type name plus a short rendering of the value, for "found …" in messages.
    public var foundDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "boolean \(b)"
        case .int(let i): return "integer \(i)"
        case .double(let d): return "number \(JSONWriter.format(d))"
        case .number(let n): return "\(n.isIntegerText ? "integer" : "number") \(n.text)"
        case .string(let s):
            let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return "string " + JSONWriter.quoted(shown)
        case .array(let a): return "array of \(a.count)"
        case .object: return "object"
        }
    }

    public var isNull: Bool { if case .null = self { true } else { false } }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var intValue: Int64? {
        switch self {
        case .int(let i): i
        case .number(let n): n.exactInt64
        default: nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// Integers and numbers as `Double` (for amounts written as `12.0`).
    public var numberValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        case .number(let n): n.doubleValue
        default: nil
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
