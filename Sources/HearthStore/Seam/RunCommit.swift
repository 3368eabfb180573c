package import Foundation
package import HearthKit

/// One real run's commit: its changeset (documents, outbox messages, ledger) and what Hearth
/// commits with it.
package struct RunCommit: Sendable {
    package var job: String
    package var runID: String
    package var changeset: Changeset
    /// The run record, committed with the documents.
    package var record: RunRecord
    /// Messages beyond the changeset's, e.g. `job.succeeded` (not part of the plan).
    package var events: [OutboxMessage]
    /// The `createdAt` of the changeset's messages: the start time the job saw (`--now`), which
    /// the record's wall-clock `start` may not be.
    package var messagesCreatedAt: Date
    /// How many writes in a row led to this commit (docs/triggers.md#chains): 0 for a run the
    /// schedule, the CLI or HTTP started; 1 for a run an app's write started; n + 1 for a run
    /// a commit with chain n started. The change feed reports it with the commit's writes
    /// (``ChangeBatch/chain``).
    package var chain: Int

    package init(job: String, runID: String, changeset: Changeset, record: RunRecord, events: [OutboxMessage] = [], messagesCreatedAt: Date? = nil, chain: Int = 0) {
        self.chain = chain
        self.job = job
        self.runID = runID
        self.changeset = changeset
        self.record = record
        self.events = events
        self.messagesCreatedAt = messagesCreatedAt ?? record.start
    }
}
