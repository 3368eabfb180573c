public import Foundation
public import HearthKit

// The `[push]`, `[[webhooks]]` and `[outbox]` sections as plain options; HearthHost reads
// them from the config file (docs/configuration.md).

/// `[push]`.
public struct PushConfig: Sendable, Equatable {
    public typealias Provider = PushProviderKind
    public var provider: Provider = .none
    public var fcmServiceAccountFile: String?
    public var fcmServiceAccountEnv: String?
    public var fcmEndpoint = "https://fcm.googleapis.com"
    /// Overrides the service account's `token_uri` (tests).
    public var fcmTokenURI: String?
    public var apnsKeyFile: String?
    public var apnsKeyEnv: String?
    public var apnsKeyID: String?
    public var apnsTeamID: String?
    public var apnsTopic: String?
    public var apnsEndpoint = "https://api.push.apple.com"
    /// `apns-priority`: 10 (send now) or 5 (power-friendly).
    public var apnsPriority = 10
    /// How long APNs keeps a push for an offline device (`apns-expiration` = now + this; 0 = once).
    public var apnsExpiration: Duration = .seconds(86_400)
    public var webhookURL: String?
    public var webhookSecretFile: String?
    public var webhookSecretEnv: String?
    public init() {}
}

/// `[[webhooks]]`.
public struct WebhookConfig: Sendable, Equatable {
    public var name: String
    public var url: String
    public var secretFile: String?
    public var secretEnv: String?
    /// Event types sent to this endpoint; empty = all.
    public var events: [String]
    public init(name: String, url: String, secretFile: String? = nil, secretEnv: String? = nil, events: [String] = []) {
        self.name = name
        self.url = url
        self.secretFile = secretFile
        self.secretEnv = secretEnv
        self.events = events
    }
}

/// `[outbox]`.
public struct OutboxConfig: Sendable, Equatable {
    public var maxAttempts = 8
    public var maxAge: Duration = .seconds(86_400)
    public var concurrency = 100
    public init() {}
}
