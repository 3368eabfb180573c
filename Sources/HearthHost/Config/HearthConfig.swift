package import Foundation
package import HearthStore
package import HearthOutbound
package import HearthHTTP
package import HearthAuth

/// The validated configuration (docs/configuration.md#keys). Built by ``ConfigLoader``; every field has the
/// documented default so a missing config section means "the defaults".
package struct HearthConfig: Sendable {
    /// The file it was read from (nil: built-in defaults).
    package var file: String?
    /// Absolute data directory; empty when `[store] kind = "postgres"` and none is set (nothing
    /// then reads or writes one).
    package var dataDir: String
    package var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    package var historyLimit: Int = 200
    package var lockTimeout: Duration = .seconds(30)
    package var shutdownGrace: Duration = .seconds(30)
    package var defaults = JobPolicy()
    /// Per-job settings for every registered job (defaults merged in).
    package var jobs: [String: JobConfig] = [:]
    /// Command jobs (`[jobs.NAME] command = [...]`, docs/functions.md), by name; each also has
    /// its ``JobConfig`` in ``jobs``.
    package var functions: [String: FunctionConfig] = [:]
    package var notificationTypes: [String] = ["gift_received", "friend_request", "friend_accepted", "achievement_unlocked"]
    package var push = PushConfig()
    package var webhooks: [WebhookConfig] = []
    package var outbox = OutboxConfig()
    package var http = HTTPConfig()
    /// `[callable] origins`: the browser origins whose CORS preflight the callable routes answer
    /// (docs/callables.md#browsers); empty: none.
    package var callableOrigins: [String] = []
    /// `[server]`: the daemon's HTTP endpoint (nil: off).
    package var server: ServerConfig?
    /// `[auth]`: how callable functions check ID tokens (docs/operations/callable-auth.md);
    /// nil: no `[auth]`.
    package var auth: AuthConfig?
    /// `[store]`: the storage backend (kind, PostgreSQL URL source, lease timeout) and the
    /// modes of new documents and collection directories.
    package var storage = StoreConfig()
    /// `[store] fileMode` / `dirMode`: modes of new documents and collection directories.
    package var store: FileOwnership {
        get { storage.ownership }
        set { storage.ownership = newValue }
    }
    /// `[scheduler] allowSecondIntervals`: accept `every N seconds` (for tests only).
    package var allowSecondIntervals = false
    /// Things worth telling the operator that are not errors (e.g. a secret file readable by others).
    package var warnings: [String] = []

    package init(file: String? = nil, dataDir: String) {
        self.file = file
        self.dataDir = dataDir
    }
}
