import Foundation
import HearthStore

/// A webhook signing key, read at delivery time from `secretFile` (trailing newline trimmed)
/// or `secretEnv`. Its description never shows the key.
package struct WebhookSecret: Sendable, CustomStringConvertible {
    /// The HMAC key bytes (see ``WebhookSignature/key(fromSecret:)``).
    package let key: [UInt8]

    package init(key: [UInt8]) { self.key = key }

    /// Parses the secret text as configured (`whsec_…` or a plain secret).
    package init(secret: String) throws(WebhookSecretError) {
        key = try WebhookSignature.key(fromSecret: secret)
    }

    package var description: String { "WebhookSecret(redacted)" }

    /// Reads the secret from `file` (when set) or else the environment variable `env`.
    /// A trailing `\n` (or `\r\n`) in the file is not part of the secret.
    package static func load(file: String?, env: String?, environment: [String: String]) throws(WebhookSecretError) -> WebhookSecret {
        if let file {
            let bytes: [UInt8]?
            do { bytes = try FileIO.readSmallFile(file) } catch {
                throw WebhookSecretError("cannot read the secret file \(file): \(String(cString: strerror(error.errno)))")
            }
            guard let bytes else { throw WebhookSecretError("the secret file \(file) does not exist") }
            var text = String(decoding: bytes, as: UTF8.self)
            while let last = text.last, last.isNewline { text.removeLast() }
            do { return try WebhookSecret(secret: text) } catch {
                throw WebhookSecretError("the secret in \(file): \(error.description)")
            }
        }
        if let env {
            guard let value = environment[env], !value.isEmpty else {
                throw WebhookSecretError("the environment variable \(env) (secretEnv) is not set or empty")
            }
            do { return try WebhookSecret(secret: value) } catch {
                throw WebhookSecretError("the secret in $\(env): \(error.description)")
            }
        }
        throw WebhookSecretError("no secretFile or secretEnv is configured")
    }
}
