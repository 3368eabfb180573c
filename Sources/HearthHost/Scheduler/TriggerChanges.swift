import Foundation
import HearthKit
import HearthStore

/// The writes a job's next triggered run takes (docs/triggers.md#what-the-daemon-does-with-writes),
/// kept for its retries.
struct TriggerChanges: Sendable {
    /// One batch of writes gathered for the run.
    struct Batch: Sendable, Equatable {
        /// The documents written; nil: the run must read everything.
        var paths: [DocumentPath]?
        var sequence: Int64?
        /// The writing commit's ``RunCommit/chain`` (0: not a job's commit).
        var chain: Int
        /// When the daemon learned of it (nil: the run at start, which no write started).
        var seen: Date?
    }

    var batches: [Batch] = []
    /// When the run may start: `triggerDelay` after the first write.
    var due: Date
    /// Whether ``ChangeFeed/claimChanges(job:sequences:holder:)`` was asked (a retry
    /// does not ask again).
    var claimed = false

    /// Whether the run must read everything (a batch could not name its documents, writes
    /// were lost, the daemon just started).
    var readsEverything: Bool { batches.contains { $0.paths == nil } }
    var sequences: [Int64] { batches.compactMap(\.sequence) }
    var firstSeen: Date? { batches.compactMap(\.seen).min() }
    /// The run's ``RunCommit/chain``: one more link than the longest chain that wrote.
    var chain: Int { (batches.map(\.chain).max() ?? 0) + 1 }

    /// The documents written, each once, in the order they were seen.
    var paths: [DocumentPath] {
        var seen = Set<DocumentPath>()
        var out: [DocumentPath] = []
        for b in batches {
            for p in b.paths ?? [] where seen.insert(p).inserted { out.append(p) }
        }
        return out
    }

    func runOptions(trigger: RunRecord.Trigger, logicalTime: Date, attempt: Int) -> RunOptions {
        var options = RunOptions(trigger: trigger, logicalTime: logicalTime, attempt: attempt)
        options.chain = chain
        if !readsEverything {
            let paths = self.paths
            options.changes = ChangedDocuments(paths)
            options.triggerPaths = paths.prefix(RunRecord.maxTriggerPaths).map(\.description)
            options.triggerPathCount = paths.count
        }
        return options
    }
}
