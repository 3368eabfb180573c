package import Foundation
import Crypto
import HearthKit
package import HearthStore

/// Webhook endpoints disabled by a `410 Gone`, kept by the storage backend (the data
/// directory's `.hearth/outbox/disabled-endpoints.json`, PostgreSQL's `disabled_endpoints`
/// table; docs/outbox-and-webhooks.md), so that every deliverer on the store skips them.
///
/// An entry holds only while the endpoint's configuration is the same: the hash covers its
/// `url`, `secretFile` and `secretEnv` (never the secret's value), so editing any of them
/// enables the endpoint again.
package struct DisabledEndpoints: Sendable {
    package typealias Entry = DisabledEndpoint

    package let store: any StorageBackend

    package init(store: any StorageBackend) { self.store = store }

    /// The configuration hash an entry is keyed by: SHA-256 of url, secretFile, secretEnv.
    package static func configHash(_ endpoint: WebhookConfig) -> String {
        let text = [endpoint.url, endpoint.secretFile ?? "", endpoint.secretEnv ?? ""].joined(separator: "\u{0}")
        return SHA256.hash(data: Array(text.utf8)).prefix(16).map { b in
            let s = String(b, radix: 16)
            return b < 16 ? "0" + s : s
        }.joined()
    }

    /// Every entry, whether or not it still matches the configuration (none when the store
    /// cannot be read: the endpoints are tried, and a 410 disables them again).
    package func entries() -> [String: Entry] {
        (try? store.disabledEndpoints()) ?? [:]
    }

    /// The names of the configured endpoints that are disabled (their configuration is unchanged
    /// since the 410).
    package func disabledNames(among endpoints: [WebhookConfig]) -> Set<String> {
        let all = entries()
        return Set(endpoints.filter { all[$0.name]?.configHash == Self.configHash($0) }.map(\.name))
    }

    /// Records that `endpoint` answered 410.
    package func disable(_ endpoint: WebhookConfig, reason: String, at date: Date) throws {
        try store.disableEndpoint(endpoint.name, Entry(configHash: Self.configHash(endpoint), disabledAt: date, reason: reason))
    }
}
