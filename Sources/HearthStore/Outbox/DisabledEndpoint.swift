package import Foundation

/// A webhook endpoint disabled by a `410 Gone` (docs/outbox-and-webhooks.md): kept by the
/// storage backend so that every deliverer on it skips the endpoint. It holds only while the
/// endpoint's configuration hashes to `configHash` (its url, secretFile and secretEnv; never the
/// secret's value), so editing any of them enables the endpoint again.
package struct DisabledEndpoint: Sendable, Equatable {
    package var configHash: String
    package var disabledAt: Date
    package var reason: String

    package init(configHash: String, disabledAt: Date, reason: String) {
        self.configHash = configHash
        self.disabledAt = disabledAt
        self.reason = reason
    }
}
