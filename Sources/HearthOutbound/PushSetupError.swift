/// A push provider cannot be built from the configuration: a credential file is missing,
/// unreadable or malformed, or a setting is absent. The message names the file (or the
/// environment variable) and the field, never a secret's content.
package struct PushSetupError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
