import Foundation
import HearthKit

/// Keeps credentials out of push results: provider error text is cut to a sane length and any
/// occurrence of the device token (or another secret) is replaced by its last 6 characters.
enum PushRedaction {
    static func clean(_ text: String, hiding secrets: [String], limit: Int = 200) -> String {
        var s = text
        for secret in secrets where secret.count >= 8 {
            s = s.replacingOccurrences(of: secret, with: Redaction.redact(secret))
        }
        s = String(s.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) })
        if s.count > limit { s = String(s.prefix(limit)) + "…" }
        return s
    }
}
