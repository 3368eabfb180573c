/// A webhook signing secret cannot be read or used. The message names the file or the
/// environment variable, never the secret itself.
package struct WebhookSecretError: Error, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
