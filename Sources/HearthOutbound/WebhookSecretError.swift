public import HearthKit
public import HearthStore
public import HearthSchedule
/// A webhook signing secret cannot be read or used. The message names the file or the
/// environment variable, never the secret itself.
public struct WebhookSecretError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
