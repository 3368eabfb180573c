/// A JSON number kept as the text it was written with (docs/data-directory.md#numbers).
///
/// The parser keeps a number this way only when `.int`/`.double` would not write it back as
/// it was: an integer beyond `Int64` (`12345678901234567890`), trailing zeros (`1.10`), an
/// exponent (`1E2`, `1e-7`), more digits than a `Double` holds, `-0`, `-0.0`. The text is
/// valid JSON number syntax and its value is within `Double`'s range (the parser checks both).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number exactly as written in the document.
    public let text: String

    /// `text` must be a JSON number (RFC 8259 grammar); only the parser and tests build these.
    package init(unchecked text: String) {
        self.text = text
    }

    public var description: String { text }

    /// Whether the text is an integer (no fraction, no exponent).
    public var isIntegerText: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The value when the text is an integer that fits `Int64` (`-0` is 0); else nil.
    public var exactInt64: Int64? {
        isIntegerText ? Int64(text) : nil
    }

    /// The nearest `Double` (every kept number is within range).
    public var doubleValue: Double? {
        Double(text).flatMap { $0.isFinite ? $0 : nil }
    }

    /// The value as an `Int64` when it is a whole number that fits: an integer text within
    /// `Int64`, or a fraction/exponent form of a whole number (`1E2`, `100.0`) within range.
    public var int64Value: Int64? {
        if isIntegerText { return Int64(text) }
        guard let d = doubleValue, d == d.rounded(), abs(d) < 9.2e18 else { return nil }
        return Int64(d)
    }
}
