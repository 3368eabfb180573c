package import HearthKit

// The `[push]`, `[[webhooks]]` and `[outbox]` sections as plain options; HearthHost reads
// them from the config file (docs/configuration.md).

/// `[push]`.
package struct PushConfig: Sendable, Equatable {
    package typealias Provider = PushProviderKind
    package var provider: Provider = .none
    package var fcmServiceAccountFile: String?
    package var fcmServiceAccountEnv: String?
    package var fcmEndpoint = "https://fcm.googleapis.com"
    /// Overrides the service account's `token_uri` (tests).
    package var fcmTokenURI: String?
    package var apnsKeyFile: String?
    package var apnsKeyEnv: String?
    package var apnsKeyID: String?
    package var apnsTeamID: String?
    package var apnsTopic: String?
    package var apnsEndpoint = "https://api.push.apple.com"
    /// `apns-priority`: 10 (send now) or 5 (power-friendly).
    package var apnsPriority = 10
    /// How long APNs keeps a push for an offline device (`apns-expiration` = now + this; 0 = once).
    package var apnsExpiration: Duration = .seconds(86_400)
    package var webhookURL: String?
    package var webhookSecretFile: String?
    package var webhookSecretEnv: String?
    package init() {}
}

/// `[[webhooks]]`.
package struct WebhookConfig: Sendable, Equatable {
    package var name: String
    package var url: String
    package var secretFile: String?
    package var secretEnv: String?
    /// Event types sent to this endpoint; empty = all.
    package var events: [String]
    package init(name: String, url: String, secretFile: String? = nil, secretEnv: String? = nil, events: [String] = []) {
        self.name = name
        self.url = url
        self.secretFile = secretFile
        self.secretEnv = secretEnv
        self.events = events
    }
}

/// `[outbox]`.
package struct OutboxConfig: Sendable, Equatable {
    package var maxAttempts = 8
    package var maxAge: Duration = .seconds(86_400)
    package var concurrency = 100
    package init() {}
}
