/// A configuration problem (exit 78): names the file, the line and the key, and what is accepted.
package struct ConfigError: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var message: String

    package init(file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    package var description: String {
        if let line, line > 0 { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
