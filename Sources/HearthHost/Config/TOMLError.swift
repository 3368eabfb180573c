public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound
/// A TOML syntax or structure error, positioned at the offending character.
public struct TOMLError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, counted in Unicode scalars (a tab counts as one column).
    public var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, the format editors and terminals turn into links.
    public var description: String { "\(file):\(line):\(column): \(message)" }
}
