import Foundation
import HearthKit
import HearthStore
@testable import HearthHost
import HearthTesting
import Synchronization
import Testing

/// A call is a run (docs/callables.md#a-call-is-a-run): the runner's call mode over the
/// in-memory store — the answer, the record, nothing written on a refusal, re-runs on a
/// conflict and `ABORTED` after five.
@Suite("Call runs")
struct CallRunTests {
    static let t0 = Timestamp.parseISO8601("2026-11-18T12:00:00Z")!

    /// `counter`: adds `data.by` to `counters/c` and answers the new value; refuses a `by`
    /// that is not a positive integer. Its scenario may first change the counter behind the
    /// run's back (a concurrent writer).
    struct CounterJob: Job {
        static let scenarioParameter = Parameter.string("scenario", default: "", help: "interference key")
        static let descriptor = JobDescriptor(
            name: "counter", summary: "test callable", defaultSchedule: "", parameters: [scenarioParameter], reads: ["counters"], writes: ["counters"],
            callable: true)
        static let interference = Mutex<[String: @Sendable (Int) throws -> Void]>([:])
        static let attempts = Mutex<[String: Int]>([:])
        let scenario: String

        init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
            scenario = parameters[Self.scenarioParameter]
        }

        func run(_ context: JobContext) async throws {
            let call = try context.requireCall()
            guard case .object(let data) = call.data, case .int(let by)? = data["by"], by > 0 else {
                throw CallError(.invalidArgument, "send {\"by\": N}, N ≥ 1", reason: "invalid_request")
            }
            guard let counter = try context.document(DocumentPath("counters", "c")) else { throw NoCounter() }
            let attempt = Self.attempts.withLock { $0[scenario, default: 0] += 1; return $0[scenario]! }
            try Self.interference.withLock { $0[scenario] }?(attempt)
            let value = (counter.object["value"]?.intValue ?? 0) + by
            context.update(counter) { $0["value"] = .int(value) }
            context.answer(.object(JSONObject([("value", .int(value))])))
        }
    }

    struct NoCounter: Error, CustomStringConvertible {
        var description: String { "counters/c does not exist" }
    }

    static func runner(_ store: InMemoryStore) -> Runner {
        var config = HearthConfig(dataDir: "")
        var jc = JobConfig(name: "counter", schedule: "", timeZone: TimeZone(identifier: "UTC")!)
        jc.callable = true
        config.jobs["counter"] = jc
        return Runner(config: config, data: store, registry: JobRegistry([CounterJob.self]), clock: FixedClock(t0), environment: JobEnvironment())
    }

    static func callOptions(_ data: String, uid: String? = "u1", scenario: String = UUID().uuidString) throws -> RunOptions {
        var options = RunOptions(trigger: .call, parameters: ["scenario": scenario])
        options.call = Call(data: try JSONParser.parse(Array(data.utf8)), uid: uid)
        return options
    }

    @Test func aCallCommitsItsWritesAndIsAnsweredWithItsResultAndItsRecordNamesTheCaller() async throws {
        let store = try InMemoryStore(documents: ["counters/c": #"{"value": 1}"#])
        let outcome = try await Self.runner(store).run("counter", options: try Self.callOptions(#"{"by": 2}"#))
        #expect(outcome.answer == .result(.object(JSONObject([("value", .int(3))]))))
        #expect(store.object("counters/c")?["value"] == .int(3))
        let record = try #require(try store.runRecords(job: "counter", status: nil, limit: nil).first)
        #expect((record.trigger, record.status, record.callerUID, record.answer, record.updated) == (.call, .succeeded, "u1", "OK", 1))
        #expect(record.json["call"] == .object(JSONObject([("uid", .string("u1")), ("answer", .string("OK"))])))
    }

    @Test func aCallTheJobRefusesWritesNothingAndIsARunThatSucceededWithTheRefusalAsItsAnswer() async throws {
        let store = try InMemoryStore(documents: ["counters/c": #"{"value": 1}"#])
        let outcome = try await Self.runner(store).run("counter", options: try Self.callOptions(#"{"by": 0}"#))
        #expect(outcome.answer == .error(CallError(.invalidArgument, "send {\"by\": N}, N ≥ 1", reason: "invalid_request")))
        #expect(outcome.answer?.httpStatus == 400)
        #expect(store.text("counters/c") == #"{"value": 1}"#)
        let record = try #require(try store.runRecords(job: "counter", status: nil, limit: nil).first)
        #expect((record.status, record.answer, record.error) == (.succeeded, "INVALID_ARGUMENT", nil))
    }

    @Test func aCallWhoseDocumentChangesUnderItRunsAgainOnTheNewStateAndCountsTheConflicts() async throws {
        let store = try InMemoryStore(documents: ["counters/c": #"{"value": 1}"#])
        let scenario = UUID().uuidString
        // Another writer adds 10 during each of the first three attempts.
        CounterJob.interference.withLock {
            $0[scenario] = { attempt in if attempt <= 3 { try store.write("counters/c", #"{"value": \#(1 + 10 * attempt)}"#) } }
        }
        let outcome = try await Self.runner(store).run("counter", options: try Self.callOptions(#"{"by": 2}"#, scenario: scenario))
        #expect(outcome.answer == .result(.object(JSONObject([("value", .int(33))]))))
        #expect(store.object("counters/c")?["value"] == .int(33))
        #expect(outcome.record.conflicts == 3)
    }

    @Test func aCallThatMeetsAConflictSixTimesIsAnsweredAbortedAndWritesNothing() async throws {
        let store = try InMemoryStore(documents: ["counters/c": #"{"value": 0}"#])
        let scenario = UUID().uuidString
        CounterJob.interference.withLock { $0[scenario] = { attempt in try store.write("counters/c", #"{"value": \#(attempt)}"#) } }
        let outcome = try await Self.runner(store).run("counter", options: try Self.callOptions(#"{"by": 5}"#, scenario: scenario))
        #expect(outcome.answer?.code == "ABORTED")
        #expect(outcome.answer?.httpStatus == 409)
        #expect(CounterJob.attempts.withLock { $0[scenario] } == 1 + Runner.maxCallReruns)
        #expect(store.text("counters/c") == #"{"value": 6}"#)
        #expect((outcome.record.status, outcome.record.answer, outcome.record.conflicts) == (.conflict, "ABORTED", 6))
    }

    @Test func aCallWhoseJobFailsIsAnsweredInternalWithoutTheReasonWhichStaysInTheRecord() async throws {
        let store = try InMemoryStore(documents: [:])
        let outcome = try await Self.runner(store).run("counter", options: try Self.callOptions(#"{"by": 1}"#))
        #expect(outcome.answer == .error(CallError(.internal, "INTERNAL")))
        #expect(outcome.record.status == .failed)
        #expect(outcome.record.answer == "INTERNAL")
        #expect(outcome.record.error == "counters/c does not exist")
    }

    @Test func aDryCallIsAnsweredAsARealOneWouldBeAndWritesNothing() async throws {
        let store = try InMemoryStore(documents: ["counters/c": #"{"value": 1}"#])
        var options = try Self.callOptions(#"{"by": 2}"#)
        options.dryRun = true
        let outcome = try await Self.runner(store).run("counter", options: options)
        #expect(outcome.answer == .result(.object(JSONObject([("value", .int(3))]))))
        #expect(outcome.record.updated == 1)
        #expect(store.text("counters/c") == #"{"value": 1}"#)
    }

    @Test func aJobThatIsNotCallableOrNeedsATokenTheCallLacksIsRefusedBeforeItRuns() throws {
        var jc = JobConfig(name: "x", schedule: "", timeZone: TimeZone(identifier: "UTC")!)
        #expect(jc.refusal(of: Call(data: .null, uid: "u1"))?.code == .notFound)
        jc.callable = true
        #expect(jc.refusal(of: Call(data: .null, uid: nil))?.code == .unauthenticated)
        #expect(jc.refusal(of: Call(data: .null, uid: "u1")) == nil)
        jc.callAuth = .optional
        #expect(jc.refusal(of: Call(data: .null, uid: nil)) == nil)
    }

    @Test func everyCodeIsAnsweredWithTheProtocolsHTTPStatus() {
        let statuses = Dictionary(uniqueKeysWithValues: CallError.Code.allCases.map { ($0.rawValue, $0.httpStatus) })
        #expect(statuses == [
            "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404, "ALREADY_EXISTS": 409,
            "PERMISSION_DENIED": 403, "UNAUTHENTICATED": 401, "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400, "ABORTED": 409,
            "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503, "DATA_LOSS": 500,
        ])
        #expect(JSONWriter.compact(.object(CallAnswer.error(CallError(.failedPrecondition, "no", reason: "r")).body))
            == #"{"error":{"status":"FAILED_PRECONDITION","message":"no","details":{"reason":"r"}}}"#)
        #expect(JSONWriter.compact(.object(CallAnswer.result(.null).body)) == #"{"result":null}"#)
    }
}
