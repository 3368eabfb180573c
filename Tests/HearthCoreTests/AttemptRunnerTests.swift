import Foundation
import HearthKit
import HearthStore
@testable import HearthHost
import HearthTesting
import Testing

/// One attempt without a daemon (``AttemptRunner``): every failure to start — a slot claim, a
/// write claim, the runner — is recorded and saved the same way.
@Suite("Attempt runner")
struct AttemptRunnerTests {
    static let t0 = Timestamp.parseISO8601("2026-11-18T12:00:00Z")!

    struct StoreDown: Error, CustomStringConvertible {
        var description: String { "the store is down" }
    }

    struct CannotStart: Error, CustomStringConvertible {
        var description: String { "the job's lock is held" }
    }

    static func config() -> HearthConfig {
        var c = HearthConfig(dataDir: "")
        c.jobs["probe"] = JobConfig(name: "probe", schedule: "*/15 * * * *", timeZone: TimeZone(identifier: "UTC")!, triggers: ["gifts"])
        return c
    }

    static func attempts(_ store: any StorageBackend, runner: (any SchedulerJobRunner)? = nil) -> AttemptRunner {
        let clock = ManualSchedulerClock(t0)
        return AttemptRunner(
            runner: runner ?? ScriptedJobRunner(clock: clock), data: store, clock: clock, holder: "test", pinger: nil, logger: DaemonHarness.quiet)
    }

    @Test func aSlotThatCannotBeClaimedIsAFailedAttemptSavedToTheHistory() async throws {
        let store = ClaimFailingStore(try InMemoryStore())
        let outcome = await Self.attempts(store).run("probe", PendingRun(logicalTime: Self.t0, origin: .schedule), config: Self.config())
        let record = try #require(outcome.record)
        #expect(record.status == .failed)
        #expect(record.error == "cannot claim the slot: the store is down")
        #expect((record.trigger, record.logicalTime, record.attempt) == (.schedule, Self.t0, 1))
        #expect(try store.runRecords(job: "probe", status: nil, limit: nil).map(\.runID) == [record.runID])
    }

    @Test func writesThatCannotBeClaimedAreAFailedAttemptSavedTheSameWayAndClaimedAgainOnRetry() async throws {
        let store = ClaimFailingStore(try InMemoryStore())
        let path = try DocumentPath(parsing: "gifts/a")
        let changes = TriggerChanges(batches: [.init(paths: [path], sequence: 7, chain: 0, seen: Self.t0)], due: Self.t0)
        let outcome = await Self.attempts(store).run("probe", PendingRun(logicalTime: Self.t0, origin: .write(changes)), config: Self.config())
        let record = try #require(outcome.record)
        #expect(record.status == .failed)
        #expect(record.error == "cannot claim the writes that started the run: the store is down")
        #expect((record.trigger, record.attempt) == (.write, 1))
        #expect(try store.runRecords(job: "probe", status: nil, limit: nil).map(\.runID) == [record.runID])
        guard case .write(let kept) = outcome.run.origin else { Issue.record("not a triggered run: \(outcome.run.origin)"); return }
        #expect(!kept.claimed)
    }

    @Test func aRunAskedForOverHTTPThatCannotStartIsSavedUnderItsTicket() async throws {
        let store = try InMemoryStore()
        let runner = ScriptedJobRunner(clock: ManualSchedulerClock(Self.t0)) { _ in throw CannotStart() }
        let request = RunNowRequest(ticket: "probe-ticket", parameters: [:], dryRun: true, force: false)
        let outcome = await Self.attempts(store, runner: runner).run("probe", PendingRun(logicalTime: Self.t0, origin: .runNow(request)), config: Self.config())
        let record = try #require(outcome.record)
        #expect((record.runID, record.trigger, record.status, record.dryRun) == ("probe-ticket", .runNow, .failed, true))
        #expect(record.error == "the job's lock is held")
        #expect(try store.runRecords(job: "probe", status: nil, limit: nil).map(\.runID) == ["probe-ticket"])
    }

    @Test func aRetryIsRecordedAsTriggerRetryWithTheSameLogicalTimeAndItsOriginsTicketNotAsRunID() {
        let request = RunNowRequest(ticket: "probe-ticket", parameters: [:], dryRun: false, force: true)
        let retry = PendingRun(logicalTime: Self.t0, origin: .runNow(request)).retry
        #expect((retry.trigger, retry.attempt, retry.logicalTime) == (.retry, 2, Self.t0))
        #expect(retry.runID == nil)
        #expect(retry.ticket == "probe-ticket" && retry.force)
    }
}

/// An ``InMemoryStore`` whose slot and write claims throw.
private struct ClaimFailingStore: StorageBackend {
    let base: InMemoryStore

    init(_ base: InMemoryStore) { self.base = base }

    func claimSlot(job: String, logicalTime: Date, holder: String, lease: Duration) async throws -> Bool { throw AttemptRunnerTests.StoreDown() }
    func claimChanges(job: String, sequences: [Int64], holder: String) async throws -> Set<Int64> { throw AttemptRunnerTests.StoreDown() }

    var location: String { base.location }
    var features: StorageFeatures { base.features }
    var outbox: any OutboxClaimingQueue { base.outbox }
    func lockJob(_ job: String, holder: String, timeout: Duration) async throws -> any StorageLock { try await base.lockJob(job, holder: holder, timeout: timeout) }
    func recoverInterruptedCommits(holder: String, timeout: Duration) async throws -> CommitRecovery {
        try await base.recoverInterruptedCommits(holder: holder, timeout: timeout)
    }
    func commit(_ commit: RunCommit, holder: String, timeout: Duration) async throws -> CommitResult { try await base.commit(commit, holder: holder, timeout: timeout) }
    func commitDocuments(_ changeset: Changeset, id: String, holder: String, timeout: Duration) async throws -> CommitResult {
        try await base.commitDocuments(changeset, id: id, holder: holder, timeout: timeout)
    }
    func disabledEndpoints() throws -> [String: DisabledEndpoint] { try base.disabledEndpoints() }
    func disableEndpoint(_ name: String, _ entry: DisabledEndpoint) throws { try base.disableEndpoint(name, entry) }
    func saveRecord(_ record: RunRecord) async throws { try await base.saveRecord(record) }
    func writeRecord(_ record: RunRecord) throws { try base.writeRecord(record) }
    func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date) async throws {
        try await base.enqueue(message, job: job, runID: runID, createdAt: createdAt)
    }
    func runRecords(job: String?, status: RunRecord.Status?, limit: Int?) throws -> [RunRecord] { try base.runRecords(job: job, status: status, limit: limit) }
    func runRecord(id: String) throws -> RunRecord? { try base.runRecord(id: id) }
    func pruneRunRecords(job: String, keep: Int) throws { try base.pruneRunRecords(job: job, keep: keep) }
    func schedulerState(job: String) -> SchedulerState? { base.schedulerState(job: job) }
    func saveSchedulerState(_ entry: SchedulerState) throws { try base.saveSchedulerState(entry) }
    func pauses() throws -> [String: JobPause] { try base.pauses() }
    func setPause(_ pause: JobPause) throws { try base.setPause(pause) }
    func clearPause(job: String) throws { try base.clearPause(job: job) }
    func appendAudit(_ entry: AuditEntry) throws { try base.appendAudit(entry) }
    func auditEntries(job: String?, limit: Int?) throws -> [AuditEntry] { try base.auditEntries(job: job, limit: limit) }
    func documentIDs(in collection: String) throws(StoreError) -> [String] { try base.documentIDs(in: collection) }
    func read(_ path: DocumentPath) -> DocumentRead { base.read(path) }
    func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead] { try base.readCollection(collection) }
}
