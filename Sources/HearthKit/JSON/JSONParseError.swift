/// Why bytes are not a valid JSON document; `line` and `column` are 1-based.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int

    public var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
}
