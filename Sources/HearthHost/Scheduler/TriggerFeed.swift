/// The daemon's side of the store's change feed (docs/triggers.md#what-the-daemon-does-with-writes):
/// the task reading it, the collections it watches, and the writes it brought that wait for
/// their run.
struct TriggerFeed: Sendable {
    /// The writes gathered per job.
    var gathered = GatheredWrites()
    var task: Task<Void, Never>?
    var watched: Set<String> = []
    /// Changes each time a feed is (re)opened or closed: a feed opened for an older one is not used.
    var generation = 0
    /// Jobs that read everything once the feed being opened is open (at start, after a reload
    /// that changed the watched collections).
    var awaiting: Set<String> = []
    /// Whether "the store has no change feed" was logged.
    var noFeedLogged = false
}
