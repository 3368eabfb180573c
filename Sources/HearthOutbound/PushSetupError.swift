public import HearthKit
public import HearthStore
public import HearthSchedule
/// A push provider cannot be built from the configuration: a credential file is missing,
/// unreadable or malformed, or a setting is absent. The message names the file (or the
/// environment variable) and the field, never a secret's content.
public struct PushSetupError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
