public import Foundation
public import HearthKit
import HearthStore

/// One run of a job over an ``InMemoryStore``, for a job's tests: no file, no server, no clock
/// but `now` (docs/jobs/README.md#writing-a-job).
///
///     let ctx = try TestJobContext(StreakReset.self, documents: [
///         "streaks/u1_login": #"{"userId": "u1", "isActive": true, …}"#,
///     ], now: "2026-11-18T12:00:00Z")
///     try await ctx.run()
///     #expect(ctx.warnings == [])
///     try await ctx.commit()
///     #expect(ctx.store.text("streaks/u1_login") == …)
///
/// The job is built as the runner builds it (its parameters' defaults, then `parameters` checked
/// against its declaration); ``run()`` runs it once and checks its writes against its declared
/// `writes:`; ``commit()`` commits its changeset into the store with the version check a real
/// run's commit makes.
public struct TestJobContext: Sendable {
    /// Where the job reads and the commit writes.
    public let store: InMemoryStore
    /// The context the job runs with: its changeset, warnings and issues after ``run()``.
    public let context: JobContext
    public let descriptor: JobDescriptor
    private let job: any RunnableJob

    /// - Parameters:
    ///   - documents: the store's documents, path (`users/u1`) → JSON text.
    ///   - now: the run's instant, both its logical time (`T`) and its start (`S`), unless
    ///     `logicalTime` says otherwise.
    ///   - parameters: as on the command line (`--param days=3`): `["days": "3"]`.
    ///   - policy: what invalid documents do (the configuration's default: skipped, with a warning).
    ///   - changes: for a run as a trigger starts it, the documents written
    ///     (``JobContext/changes``); nil: a run that reads everything.
    ///   - call: for a callable job, the app's call (``JobContext/call``); after ``run()``,
    ///     ``result`` is its answer, and a refusal is the ``CallError`` `run()` throws.
    public init(
        _ job: any Job.Type, documents: [String: String] = [:], now: Date, logicalTime: Date? = nil,
        timeZone: TimeZone = TimeZone(identifier: "UTC")!, parameters: [String: String] = [:], environment: JobEnvironment = JobEnvironment(),
        dryRun: Bool = false, policy: InvalidDocumentPolicy = .skip, changes: ChangedDocuments? = nil,
        call: Call? = nil
    ) throws {
        try self.init(
            job, store: try InMemoryStore(documents: documents), now: now, logicalTime: logicalTime, timeZone: timeZone,
            parameters: parameters, environment: environment, dryRun: dryRun, policy: policy, changes: changes, call: call)
    }

    /// `now` as an ISO 8601 instant (`2026-11-18T12:00:00Z`).
    public init(
        _ job: any Job.Type, documents: [String: String] = [:], now: String, logicalTime: String? = nil,
        timeZone: TimeZone = TimeZone(identifier: "UTC")!, parameters: [String: String] = [:], environment: JobEnvironment = JobEnvironment(),
        dryRun: Bool = false, policy: InvalidDocumentPolicy = .skip, changes: ChangedDocuments? = nil,
        call: Call? = nil
    ) throws {
        try self.init(
            job, documents: documents, now: try Self.instant(now), logicalTime: try logicalTime.map(Self.instant), timeZone: timeZone,
            parameters: parameters, environment: environment, dryRun: dryRun, policy: policy, changes: changes, call: call)
    }

    /// A run over an existing store (a second run after a first one's ``commit()``), `now` as
    /// an ISO 8601 instant.
    public init(
        _ job: any Job.Type, store: InMemoryStore, now: String, logicalTime: String? = nil,
        timeZone: TimeZone = TimeZone(identifier: "UTC")!, parameters: [String: String] = [:], environment: JobEnvironment = JobEnvironment(),
        dryRun: Bool = false, policy: InvalidDocumentPolicy = .skip, changes: ChangedDocuments? = nil,
        call: Call? = nil
    ) throws {
        try self.init(
            job, store: store, now: try Self.instant(now), logicalTime: try logicalTime.map(Self.instant), timeZone: timeZone,
            parameters: parameters, environment: environment, dryRun: dryRun, policy: policy, changes: changes, call: call)
    }

    /// A run over an existing store (a second run after a first one's ``commit()``).
    public init(
        _ job: any Job.Type, store: InMemoryStore, now: Date, logicalTime: Date? = nil,
        timeZone: TimeZone = TimeZone(identifier: "UTC")!, parameters: [String: String] = [:], environment: JobEnvironment = JobEnvironment(),
        dryRun: Bool = false, policy: InvalidDocumentPolicy = .skip, changes: ChangedDocuments? = nil,
        call: Call? = nil
    ) throws {
        let definition = JobDefinition(job)
        let params = try JobParameters.resolve(specs: definition.descriptor.parameters, config: [:], commandLine: parameters)
        self.store = store
        self.descriptor = definition.descriptor
        self.job = try definition.make(parameters: params, environment: environment)
        self.context = JobContext(
            jobName: definition.descriptor.name, runID: "test", isDryRun: dryRun, logicalTime: logicalTime ?? now, startTime: now,
            timeZone: timeZone, parameters: params, store: store, policy: policy, changes: changes, call: call)
    }

    /// Runs the job once, then checks that it wrote only the collections it declares.
    public func run() async throws {
        try await job.run(context)
        try descriptor.checkDeclaredWrites(context.changeset)
    }

    /// A callable run's answer (``JobContext/answer(_:)``).
    public var result: JSONValue? { context.result }

    /// What the run would commit.
    public var changeset: Changeset { context.changeset }

    /// The run's warnings as its run record keeps them: invalid documents first, then the
    /// job's own.
    public var warnings: [String] { context.issues.map(\.description) + context.warnings }

    /// The line `hearth run` (or, for a dry run, `hearth plan`) ends with for this run:
    /// `Applied: 0 to create, 2 to update, 0 to delete; 0 pushes, 0 webhooks.` or `No changes.`
    public var summaryLine: String { changeset.summaryLine(dryRun: context.isDryRun) }

    /// Commits the run's changeset into the store; ``TestCommitConflict`` when a document it
    /// writes changed since the run read it (nothing is written then).
    public func commit() async throws {
        let record = RunRecord(
            runID: context.runID, job: context.jobName, trigger: .cli, logicalTime: context.logicalTime, start: context.startTime,
            end: context.startTime, attempt: 1, status: warnings.isEmpty ? .succeeded : .succeededWithWarnings, dryRun: false)
        let commit = RunCommit(job: context.jobName, runID: context.runID, changeset: changeset, record: record)
        if case .conflict(let paths) = try await store.commit(commit, holder: "test", timeout: .seconds(1)) {
            throw TestCommitConflict(paths: paths)
        }
    }

    static func instant(_ text: String) throws -> Date {
        guard let date = Timestamp.parseISO8601(text) else { throw TestInstantError(text: text) }
        return date
    }
}
