public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound
/// A configuration problem (exit 78): names the file, the line and the key, and what is accepted.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line, line > 0 { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
