public import Foundation

/// The validated configuration (SPEC §6). Built by ``ConfigLoader``; every field has the
/// documented default so a missing config section means "the defaults".
public struct HearthConfig: Sendable {
    /// The file it was read from (nil: built-in defaults).
    public var file: String?
    /// Absolute data directory.
    public var dataDir: String
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    public var historyLimit: Int = 200
    public var lockTimeout: Duration = .seconds(30)
    public var shutdownGrace: Duration = .seconds(30)
    public var defaults = JobPolicy()
    /// Per-job settings for every registered job (defaults merged in).
    public var jobs: [String: JobConfig] = [:]
    public var notificationTypes: [String] = ["gift_received", "friend_request", "friend_accepted", "achievement_unlocked"]
    public var push = PushConfig()
    public var webhooks: [WebhookConfig] = []
    public var outbox = OutboxConfig()
    public var http = HTTPConfig()
    /// `[scheduler] allowSecondIntervals`: accept `every N seconds` (for tests only).
    public var allowSecondIntervals = false
    /// Things worth telling the operator that are not errors (e.g. a secret file readable by others).
    public var warnings: [String] = []

    public init(file: String? = nil, dataDir: String) {
        self.file = file
        self.dataDir = dataDir
    }
}

/// `[push]`.
public struct PushConfig: Sendable, Equatable {
    public enum Provider: String, Sendable, CaseIterable { case fcm, apns, webhook, none }
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

/// `[http]`.
public struct HTTPConfig: Sendable, Equatable {
    public var caFile: String?
    public var connectTimeout: Duration = .seconds(5)
    public var timeout: Duration = .seconds(15)
    public init() {}
}
