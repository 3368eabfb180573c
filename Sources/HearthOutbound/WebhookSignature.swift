import Crypto
import Foundation

/// Standard Webhooks signatures (<https://www.standardwebhooks.com>): the receiver recomputes
/// `v1,` + base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")) and compares.
///
/// The key is the secret's bytes, except that a secret starting with `whsec_` carries its key
/// base64-encoded after the prefix (the form Standard Webhooks tooling generates).
package enum WebhookSignature {
    /// The bytes that are signed: `id.timestamp.body`.
    package static func signedContent(id: String, timestamp: Int64, body: [UInt8]) -> [UInt8] {
        var content = Array("\(id).\(timestamp).".utf8)
        content.append(contentsOf: body)
        return content
    }

    /// The `webhook-signature` header value: `v1,<base64 HMAC-SHA256>`.
    package static func sign(id: String, timestamp: Int64, body: [UInt8], key: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: signedContent(id: id, timestamp: timestamp, body: body), using: SymmetricKey(data: key))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The HMAC key for a configured secret: `whsec_<base64>` gives the decoded bytes, any
    /// other text its UTF-8 bytes. Throws when a `whsec_` secret is not valid base64 or empty
    /// (the message never includes the secret).
    package static func key(fromSecret secret: String) throws(WebhookSecretError) -> [UInt8] {
        if secret.hasPrefix("whsec_") {
            let encoded = String(secret.dropFirst("whsec_".count))
            guard let data = Data(base64Encoded: encoded), !data.isEmpty else {
                throw WebhookSecretError("the secret starts with whsec_ but the rest is not valid base64; use whsec_ followed by the base64 of the key bytes, or a plain secret without the prefix")
            }
            return Array(data)
        }
        guard !secret.isEmpty else { throw WebhookSecretError("the secret is empty") }
        return Array(secret.utf8)
    }
}
