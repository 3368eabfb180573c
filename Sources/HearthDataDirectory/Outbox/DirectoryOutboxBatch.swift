import Foundation
import Synchronization
import HearthKit
import HearthStore

/// Messages one ``DirectoryOutbox`` claim holds: message files and lines of held batches.
struct DirectoryOutboxBatch: OutboxQueueBatch {
    enum Entry: Sendable {
        /// A message file, its claim, and whether it held a message at all.
        case file(String, OutboxClaim, valid: Bool)
        /// Line `index` of a held batch.
        case line(HeldBatch, Int)
    }

    let outbox: DirectoryOutbox
    private(set) var entries: [Entry] = []
    private(set) var messages: [OutboxEnvelope] = []
    var skipped = OutboxClaimSkips()

    init(outbox: DirectoryOutbox) {
        self.outbox = outbox
    }

    mutating func add(_ entry: Entry, _ envelope: OutboxEnvelope) {
        entries.append(entry)
        messages.append(envelope)
    }

    mutating func notDue(_ date: Date) {
        if let e = skipped.earliestNotDue, e <= date { return }
        skipped.earliestNotDue = date
    }

    func finish(_ outcomes: [OutboxOutcome]) async throws {
        let outbox = self.outbox
        try await BlockingIO.run { () throws(OutboxFinishFailure) in try outbox.record(outcomes, of: self) }
        // A batch log that could not be written: its records are lost, their messages are
        // sent again next pass.
        var failed: [String: String] = [:]
        for case .line(let held, _) in entries {
            if let error = held.closeFailure.withLock({ $0 }) { failed["batch \(held.name)"] = error }
        }
        if !failed.isEmpty { throw OutboxFinishFailure(failed: failed) }
    }

    /// The dead letter name of invalid line `index` of batch `name`.
    static func invalidLineKey(_ name: String, _ index: Int) -> String { "\(name)-\(OutboxBatch.invalidLineID(index))" }
}
