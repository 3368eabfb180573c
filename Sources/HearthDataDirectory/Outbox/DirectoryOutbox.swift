package import Foundation
import Synchronization
import HearthKit
package import HearthStore

/// The data directory's outbox (`.hearth/outbox/`, ``DirectoryOutboxFolders``) as a queue deliverers
/// claim from (docs/outbox-and-webhooks.md#delivery-retries-dead-letters).
///
/// **One value, one pass.** The first ``claimDue(limit:now:)`` lists `pending/`; each claim
/// then takes the next files and batch lines of that listing, single message files first, and
/// the claim that finds the listing exhausted comes back empty, prunes `dropped/` and ends the
/// pass (a later claim lists again). ``OutboxStore/outbox`` gives a fresh value each time.
///
/// **Claims.** A message file is claimed with an exclusive, non-blocking `flock` on the file
/// itself (``OutboxClaim``, which explains the choice over rename-into-`inflight/`), held
/// until its outcome is recorded; a batch (``OutboxBatch``) is claimed the same way, held while
/// its lines are handed out over one or more claims, and released once every claimed line's
/// outcome is in its delivery log. A file another deliverer holds is skipped this pass
/// (``OutboxClaimSkips/busy``); a killed deliverer's claims vanish with it.
///
/// **Crash safety.** A message never leaves `pending/` before it is finished: a single file's
/// new state is written as temp file + fsync + rename, a finished one unlinked; a dead (or
/// dropped) message is written into `dead/` (`dropped/`) before its pending file is unlinked
/// or its batch's log says so. A crash at any instant leaves the old or the new state, and at
/// worst sends a target again (at-least-once; receivers dedupe on `webhook-id`).
package final class DirectoryOutbox: OutboxClaimingQueue {
    package let data: DataDirectory
    private let state = Mutex<PassState?>(nil)
    /// What the last finished pass saw: the earliest due date of a message left pending.
    private let lastPass = Mutex<PassSummary?>(nil)

    package init(data: DataDirectory) {
        self.data = data
    }

    deinit {
        // A pass ended early (cancelled): record what was finished and let go of the batch.
        if let held = state.withLock({ $0?.current?.batch }) { held.close(data: data) }
    }

    // MARK: OutboxQueue

    package var droppedLocation: String { DirectoryOutboxFolders.directory(.dropped, in: data) + "/" }

    package func messages(in folder: OutboxFolder) throws -> [OutboxEnvelope] {
        try DirectoryOutboxFolders.messages(in: folder, data: data)
    }

    package func retry(id: String, now: Date) throws -> Bool {
        try DirectoryOutboxFolders.retry(id: id, now: now, data: data)
    }

    /// After a pass of this value: the earliest due date among the messages it left pending
    /// (retried, not due, or another deliverer's: then in ``OutboxClaimSkips/busyRecheck``);
    /// otherwise read from `pending/`.
    package func nextDueDate() throws -> Date? {
        if let summary = lastPass.withLock({ $0 }) { return summary.nextDue }
        return try DirectoryOutboxFolders.messages(in: .pending, data: data).map(\.dueAt).min()
    }

    package func hasPending() throws -> Bool { DirectoryOutboxFolders.hasPending(data) }

    /// Claims here are flocks and lines of batch files already read: a claim of 1,000 costs no
    /// more than 1,000 of one, and the pass waits for its slowest message 10 times less often.
    package var claimSize: Int { 1000 }

    // MARK: Claims

    package func claimDue(limit: Int, now: Date) async throws -> any OutboxQueueBatch {
        try await BlockingIO.run { () throws(FileIO.Failure) -> any OutboxQueueBatch in try self.claim(limit: max(1, limit), now: now) }
    }

    private func claim(limit: Int, now: Date) throws(FileIO.Failure) -> DirectoryOutboxBatch {
        try state.withLock { (s: inout PassState?) throws(FileIO.Failure) -> DirectoryOutboxBatch in
            if s == nil {
                let listing = try DirectoryOutboxFolders.pendingListing(data)
                removeOrphanLogs(listing)
                s = PassState(files: listing.files, batches: listing.batches)
            }
            var claim = DirectoryOutboxBatch(outbox: self)
            while claim.entries.count < limit, s!.next(into: &claim, now: now, data: data) {}
            if let d = claim.skipped.earliestNotDue { s!.summary.note(d) }
            if claim.skipped.busy > 0 { s!.summary.note(Date().addingTimeInterval(OutboxClaimSkips.busyRecheck)) }
            if claim.entries.isEmpty {
                // The listing is exhausted: the pass ends here.
                let pass = s!
                s = nil
                if pass.droppedStored > 0 { DirectoryOutboxFolders.pruneDropped(data) }
                let final = pass.summary
                lastPass.withLock { $0 = final }
            } else {
                lastPass.withLock { $0 = nil }
            }
            return claim
        }
    }

    /// Removes delivery logs whose batch is gone (a crash between the two unlinks).
    private func removeOrphanLogs(_ listing: DirectoryOutboxFolders.PendingListing) {
        let batches = Set(listing.batches)
        for name in listing.logs where !batches.contains(name) {
            // Looked at again: the listing is not atomic against a deliverer finishing a batch.
            do throws(FileIO.Failure) {
                if try FileIO.lstatPath(DirectoryOutboxFolders.batchPath(name, data: data)) == nil {
                    try FileIO.remove(DirectoryOutboxFolders.batchLogPath(name, data: data))
                }
            } catch {
                continue  // tried again next pass
            }
        }
    }

    /// Records the outcomes of `claim` (blocking). Outcomes are matched to the claimed
    /// messages by position.
    func record(_ outcomes: [OutboxOutcome], of claim: DirectoryOutboxBatch) throws(OutboxFinishFailure) {
        var failed: [String: String] = [:]
        for (index, entry) in claim.entries.enumerated() {
            let outcome = index < outcomes.count ? outcomes[index] : .untouched(id: claim.messages[index].id)
            do throws(FileIO.Failure) {
                try record(outcome, of: entry)
            } catch {
                failed[outcome.id] = error.description
            }
            if case .line(let held, _) = entry { held.returned(data: data) }
            if case .file(_, let fileClaim, _) = entry { fileClaim.release() }
        }
        if !failed.isEmpty { throw OutboxFinishFailure(failed: failed) }
    }

    private func record(_ outcome: OutboxOutcome, of entry: DirectoryOutboxBatch.Entry) throws(FileIO.Failure) {
        let pending = DirectoryOutboxFolders.directory(.pending, in: data)
        switch (entry, outcome) {
        case (_, .untouched):
            return
        case (.file(let name, _, _), .delivered):
            try FileIO.remove(pending + "/" + name)
        case (.file(let name, _, _), .retry(let envelope)):
            try FileIO.writeAtomically(pending + "/" + name, envelope.bytes)
            state.withLock { $0?.summary.note(envelope.dueAt) }
        case (.file(let name, _, let valid), .finished(let envelope, let folder)):
            if !valid {
                // Not a message: the file is kept as it was, for a person to look at.
                try DirectoryOutboxFolders.move(name, from: .pending, to: .dead, data: data)
                return
            }
            try store(envelope, name: name, in: folder)
            try FileIO.remove(pending + "/" + name)
        case (.line(let held, _), .delivered(let id)):
            held.log.append(OutboxBatch.record(id: id, outcome: "delivered"))
            held.finishedOne()
        case (.line(let held, _), .retry(let envelope)):
            held.log.append(OutboxBatch.record(id: envelope.id, outcome: "pending", envelope: envelope))
            state.withLock { $0?.summary.note(envelope.dueAt) }
        case (.line(let held, let index), .finished(let envelope, let folder)):
            if case .invalid = held.batch.entry(at: index) {
                // A line that is not a message (the batch was edited by hand): its text
                // becomes the dead letter `dead/<batch>-line<N>.txt`.
                let dir = DirectoryOutboxFolders.directory(.dead, in: data)
                try FileIO.makeDirectories(dir, within: data.root)
                try FileIO.writeAtomically(dir + "/" + DirectoryOutboxBatch.invalidLineKey(held.name, index) + ".txt", Array(held.batch.lines[index]) + [0x0A])
                try FileIO.fsyncDirectory(dir)
                held.log.append(OutboxBatch.record(id: OutboxBatch.invalidLineID(index), outcome: "dead"))
            } else {
                // Stored in its folder first: a crash before the log record sends it again.
                try store(envelope, name: DirectoryOutboxFolders.fileName(envelope.id) + ".json", in: folder)
                held.log.append(OutboxBatch.record(id: envelope.id, outcome: folder.rawValue))
            }
            held.finishedOne()
        }
    }

    /// Writes a dead or dropped message's final state into its folder (a dead letter durably).
    /// One pass keeps at most ``OutboxFolder/droppedRetention`` dropped messages (pruning keeps
    /// no more).
    private func store(_ envelope: OutboxEnvelope, name: String, in folder: OutboxFolder) throws(FileIO.Failure) {
        if folder == .dropped {
            let keep = state.withLock { s -> Bool in
                guard s != nil else { return true }
                defer { s!.droppedStored += 1 }
                return s!.droppedStored < OutboxFolder.droppedRetention
            }
            if !keep { return }
        }
        let dir = DirectoryOutboxFolders.directory(folder, in: data)
        try FileIO.makeDirectories(dir, within: data.root)
        try FileIO.writeAtomically(dir + "/" + name, envelope.bytes, sync: folder == .dead)
        if folder == .dead { try FileIO.fsyncDirectory(dir) }
    }

    // MARK: The pass

    struct PassSummary: Sendable {
        var nextDue: Date?

        mutating func note(_ date: Date) {
            if let current = nextDue, current <= date { return }
            nextDue = date
        }
    }

    /// Where a pass is in its listing.
    struct PassState {
        var files: [String]
        var batches: [String]
        var fileIndex = 0
        var batchIndex = 0
        /// The batch whose lines are being handed out, and the next line.
        var current: (batch: HeldBatch, next: Int)?
        var droppedStored = 0
        var summary = PassSummary()

        init(files: [String], batches: [String]) {
            self.files = files
            self.batches = batches
        }

        /// Adds the next message of the listing to `claim` (or counts it as skipped); false
        /// when the listing is exhausted.
        mutating func next(into claim: inout DirectoryOutboxBatch, now: Date, data: DataDirectory) -> Bool {
            if fileIndex < files.count {
                let name = files[fileIndex]
                fileIndex += 1
                claimFile(name, into: &claim, now: now, data: data)
                return true
            }
            if let (held, line) = current {
                if line < held.batch.lines.count {
                    current = (held, line + 1)
                    switch held.batch.entry(at: line) {
                    case .finished:
                        break
                    case .invalid:
                        held.handedOut()
                        claim.add(.line(held, line), OutboxEnvelope(object: JSONObject([("id", .string(DirectoryOutboxBatch.invalidLineKey(held.name, line)))])))
                    case .live(let envelope):
                        if envelope.dueAt > now {
                            claim.skipped.notDue += 1
                            claim.notDue(envelope.dueAt)
                        } else {
                            held.handedOut()
                            claim.add(.line(held, line), envelope)
                        }
                    }
                    return true
                }
                current = nil
                held.allHandedOut(data: data)
                return true
            }
            guard batchIndex < batches.count else { return false }
            let name = batches[batchIndex]
            batchIndex += 1
            let path = DirectoryOutboxFolders.batchPath(name, data: data)
            do throws(FileIO.Failure) {
                switch try OutboxClaim.tryClaim(path) {
                case .claimed(let fileClaim):
                    let logPath = DirectoryOutboxFolders.batchLogPath(name, data: data)
                    let batch = OutboxBatch(batch: try fileClaim.read(), log: try FileIO.readSmallFile(logPath))
                    let held = HeldBatch(name: name, batch: batch, claim: fileClaim, log: OutboxBatchLog(path: logPath), unfinished: batch.lines.count - batch.finishedCount)
                    current = (held, 0)
                case .busy: claim.skipped.busy += 1
                case .gone: break
                }
            } catch {
                claim.skipped.errors.append("cannot read the outbox batch \(name): \(error)")
            }
            return true
        }

        private func claimFile(_ name: String, into claim: inout DirectoryOutboxBatch, now: Date, data: DataDirectory) {
            let file = DirectoryOutboxFolders.directory(.pending, in: data) + "/" + name
            do throws(FileIO.Failure) {
                switch try OutboxClaim.tryClaim(file) {
                case .claimed(let fileClaim):
                    let bytes = try fileClaim.read()
                    guard let envelope = OutboxEnvelope(bytes: bytes), envelope.kind != nil else {
                        // Handed to the deliverer as a message of no kind: it becomes a dead letter.
                        claim.add(.file(name, fileClaim, valid: false), OutboxEnvelope(object: JSONObject([("id", .string(name))])))
                        return
                    }
                    if envelope.dueAt > now {
                        fileClaim.release()
                        claim.skipped.notDue += 1
                        claim.notDue(envelope.dueAt)
                        return
                    }
                    claim.add(.file(name, fileClaim, valid: true), envelope)
                case .busy: claim.skipped.busy += 1
                case .gone: break  // finished by another deliverer since the listing
                }
            } catch {
                claim.skipped.errors.append(error.description)
            }
        }
    }
}
