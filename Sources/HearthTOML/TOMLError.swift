/// A TOML syntax or structure error, positioned at the offending character.
package struct TOMLError: Error, Sendable, CustomStringConvertible {
    package var file: String
    /// 1-based line.
    package var line: Int
    /// 1-based column, counted in Unicode scalars (a tab counts as one column).
    package var column: Int
    package var message: String

    package init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, the format editors and terminals turn into links.
    package var description: String { "\(file):\(line):\(column): \(message)" }
}
