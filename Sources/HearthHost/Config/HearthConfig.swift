public import Foundation
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

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
