import Foundation
import Logging
import Synchronization
import HearthStore

/// Delivery of batched messages (``OutboxBatch``): a pass claims each batch with a `flock` on
/// its file (``OutboxClaim``: the batch file is never replaced, only unlinked when finished),
/// sends its due messages alongside the single-file ones, records each outcome in the batch's
/// delivery log, and removes the batch once every message in it is finished.
extension OutboxDeliverer {
    /// One unit of work of a pass.
    enum WorkItem: Sendable {
        /// A single message file in `pending/`.
        case file(String)
        /// Line `line` of a claimed batch.
        case batched(ClaimedBatch, line: Int)
    }

    /// A batch this pass holds the claim on.
    final class ClaimedBatch: Sendable {
        let name: String
        let batch: OutboxBatch
        let claim: OutboxClaim
        let log: OutboxBatchLog
        /// Messages not finished when claimed, minus those finished since.
        let unfinished: Mutex<Int>

        init(name: String, batch: OutboxBatch, claim: OutboxClaim, log: OutboxBatchLog, unfinished: Int) {
            self.name = name
            self.batch = batch
            self.claim = claim
            self.log = log
            self.unfinished = Mutex(unfinished)
        }

        func finishedOne() {
            unfinished.withLock { $0 -= 1 }
        }
    }

    /// The items of a pass, produced lazily: single files first, then each batch's lines, a
    /// batch being claimed and read only when its turn comes.
    struct WorkList {
        var files: IndexingIterator<[String]>
        var batches: IndexingIterator<[String]>
        var current: (batch: ClaimedBatch, next: Int)?
        var claimed: [ClaimedBatch] = []
        let deliverer: OutboxDeliverer

        init(files: [String], batches: [String], deliverer: OutboxDeliverer) {
            self.files = files.makeIterator()
            self.batches = batches.makeIterator()
            self.deliverer = deliverer
        }

        mutating func next(_ report: inout OutboxDeliveryReport) -> WorkItem? {
            if let name = files.next() { return .file(name) }
            while true {
                if let (batch, line) = current {
                    if line < batch.batch.lines.count {
                        current = (batch, line + 1)
                        return .batched(batch, line: line)
                    }
                    current = nil
                }
                guard let name = batches.next() else { return nil }
                if let batch = deliverer.claimBatch(name, report: &report) {
                    claimed.append(batch)
                    current = (batch, 0)
                }
            }
        }
    }

    /// Claims and reads batch `name`; nil (with the reason in the report) when another
    /// deliverer holds it, it is gone, or it cannot be read.
    func claimBatch(_ name: String, report: inout OutboxDeliveryReport) -> ClaimedBatch? {
        let path = OutboxStore.batchPath(name, data: data)
        do {
            let claim: OutboxClaim
            switch try OutboxClaim.tryClaim(path) {
            case .claimed(let c): claim = c
            case .busy:
                report.add(.busy(recheck: clock().addingTimeInterval(Self.busyRecheck)))
                return nil
            case .gone: return nil
            }
            let logPath = OutboxStore.batchLogPath(name, data: data)
            let batch = OutboxBatch(batch: try claim.read(), log: try FileIO.readSmallFile(logPath))
            return ClaimedBatch(name: name, batch: batch, claim: claim, log: OutboxBatchLog(path: logPath), unfinished: batch.lines.count - batch.finishedCount)
        } catch {
            logger.error("cannot read an outbox batch: \(error)", metadata: ["batch": "\(name)"])
            report.add(.failed(error.description))
            return nil
        }
    }

    /// One message of a batch: attempted, and its outcome appended to the batch's log.
    func process(line index: Int, of claimed: ClaimedBatch, now: Date, pass: Pass) async -> Result {
        var envelope: OutboxEnvelope
        switch claimed.batch.entry(at: index) {
        case .live(let e): envelope = e
        case .finished: return .vanished
        case .invalid: return await deadLetterInvalidLine(index, of: claimed)
        }
        let id = envelope.id
        switch await advance(&envelope, now: now, pass: pass) {
        case .notDue(let date):
            return .notDue(date)
        case .retrying(let tokensRemoved, let endpointsDisabled):
            claimed.log.append(OutboxBatch.record(id: id, outcome: "pending", envelope: envelope))
            return .retrying(next: envelope.dueAt, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
        case .finished(nil, let tokensRemoved, let endpointsDisabled):
            claimed.log.append(OutboxBatch.record(id: id, outcome: "delivered"))
            claimed.finishedOne()
            return .delivered(tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
        case .finished(let folder?, let tokensRemoved, let endpointsDisabled):
            let final = envelope
            return await Self.offload { [self] in
                var envelope = final
                do throws(FileIO.Failure) {
                    // Stored in its folder first: a crash before the log record sends it again.
                    try store(&envelope, name: OutboxStore.fileName(id) + ".json", in: folder, pass: pass)
                } catch {
                    logger.error("cannot finish an outbox message: \(error)", metadata: ["id": "\(id)"])
                    return .failed(error.description)
                }
                claimed.log.append(OutboxBatch.record(id: id, outcome: folder.rawValue))
                claimed.finishedOne()
                return finished(envelope, in: folder, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
            }
        }
    }

    /// A batch line that is not a message (the batch was edited by hand): its text becomes the
    /// dead letter `dead/<batch>-line<N>.txt`, for a person to look at.
    private func deadLetterInvalidLine(_ index: Int, of claimed: ClaimedBatch) async -> Result {
        let line = claimed.batch.lines[index]
        let key = "\(claimed.name)-\(OutboxBatch.invalidLineID(index))"
        let dir = OutboxStore.directory(.dead, in: data)
        return await Self.offload { [logger] in
            do throws(FileIO.Failure) {
                try FileIO.makeDirectories(dir, within: data.root)
                try FileIO.writeAtomically(dir + "/" + key + ".txt", Array(line) + [0x0A])
                try FileIO.fsyncDirectory(dir)
            } catch {
                return .failed(error.description)
            }
            logger.error("outbox batch line is not a valid message; moved to dead letters", metadata: ["file": "\(key).txt"])
            claimed.log.append(OutboxBatch.record(id: OutboxBatch.invalidLineID(index), outcome: "dead"))
            claimed.finishedOne()
            return .dead(tokensRemoved: 0, endpointsDisabled: 0)
        }
    }

    /// Ends a pass's hold on a batch: flushes its log, removes the batch (then its log) when
    /// every message is finished, and releases the claim. Returns an error to report, if any.
    func close(_ claimed: ClaimedBatch) async -> String? {
        await Self.offload { [data, logger] () -> String? in
            defer {
                claimed.log.closeFile()
                claimed.claim.release()
            }
            do throws(FileIO.Failure) {
                try claimed.log.flush()
                guard claimed.unfinished.withLock({ $0 }) <= 0 else { return nil }
                // The batch first: a log left alone by a crash is removed by the next pass,
                // while a batch without its log would be delivered all over again.
                try FileIO.remove(OutboxStore.batchPath(claimed.name, data: data))
                try FileIO.remove(OutboxStore.batchLogPath(claimed.name, data: data))
                return nil
            } catch {
                logger.error("cannot record outbox delivery: \(error)", metadata: ["batch": "\(claimed.name)"])
                return error.description
            }
        }
    }

    /// Removes delivery logs whose batch is gone (a crash between the two unlinks).
    func removeOrphanLogs(_ listing: OutboxStore.PendingListing) {
        let batches = Set(listing.batches)
        for name in listing.logs where !batches.contains(name) {
            do {
                // Looked at again: the listing is not atomic against a deliverer finishing a batch.
                if try FileIO.lstatPath(OutboxStore.batchPath(name, data: data)) == nil {
                    try FileIO.remove(OutboxStore.batchLogPath(name, data: data))
                }
            } catch {
                logger.warning("cannot remove a finished batch's delivery log: \(error)", metadata: ["batch": "\(name)"])
            }
        }
    }
}
