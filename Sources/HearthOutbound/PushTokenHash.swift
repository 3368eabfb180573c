import Crypto

/// A short, stable, non-reversible name for a device token (ids, log lines).
enum PushTokenHash {
    /// The first 12 hex digits of SHA-256(token).
    static func short(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).prefix(6).map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }
}
