import Synchronization
import HearthStore

/// A batch file one pass holds the claim on, while its lines are handed out and their
/// outcomes recorded; closed when both are done.
final class HeldBatch: Sendable {
    let name: String
    let batch: OutboxBatch
    let claim: OutboxClaim
    let log: OutboxBatchLog
    private struct Counts {
        /// Messages not finished when claimed, minus those finished since.
        var unfinished: Int
        /// Lines handed out whose outcome is not recorded yet.
        var outstanding = 0
        var allHandedOut = false
        var closed = false
    }
    private let counts: Mutex<Counts>

    init(name: String, batch: OutboxBatch, claim: OutboxClaim, log: OutboxBatchLog, unfinished: Int) {
        self.name = name
        self.batch = batch
        self.claim = claim
        self.log = log
        counts = Mutex(Counts(unfinished: unfinished))
    }

    func finishedOne() { counts.withLock { $0.unfinished -= 1 } }
    func handedOut() { counts.withLock { $0.outstanding += 1 } }

    /// One handed-out line's outcome is recorded.
    func returned(data: DataDirectory) {
        let done = counts.withLock { c in
            c.outstanding -= 1
            return c.allHandedOut && c.outstanding == 0
        }
        if done { close(data: data) }
    }

    /// Every line has been looked at.
    func allHandedOut(data: DataDirectory) {
        let done = counts.withLock { c in
            c.allHandedOut = true
            return c.outstanding == 0
        }
        if done { close(data: data) }
    }

    /// Ends the pass's hold: flushes the log, removes the batch (then its log) when every
    /// message is finished, and releases the claim.
    func close(data: DataDirectory) {
        let unfinished = counts.withLock { c -> Int? in
            if c.closed { return nil }
            c.closed = true
            return c.unfinished
        }
        guard let unfinished else { return }
        defer {
            log.closeFile()
            claim.release()
        }
        do throws(FileIO.Failure) {
            try log.flush()
            guard unfinished <= 0 else { return }
            // The batch first: a log left alone by a crash is removed by the next pass,
            // while a batch without its log would be delivered all over again.
            try FileIO.remove(DirectoryOutboxFolders.batchPath(name, data: data))
            try FileIO.remove(DirectoryOutboxFolders.batchLogPath(name, data: data))
        } catch {
            // The records are flushed again by nobody: their messages are sent again (at least once).
            closeFailure.withLock { $0 = error.description }
        }
    }

    let closeFailure = Mutex<String?>(nil)
}
