import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

/// `job.succeeded` / `job.failed`: emitted by the runner for every real run (docs/outbox-and-webhooks.md#delivery-retries-dead-letters).
@Suite("outbox: job events from the runner")
struct OutboxJobEventTests {
    let f: OutboxFixture

    init() throws {
        f = try OutboxFixture()
    }

    func runner(events: [String]?) throws -> Runner {
        var toml = "dataDir = \(JSONWriter.quoted(f.data.root))\n"
        if let events {
            toml += """
                [[webhooks]]
                name = "ops"
                url = "http://127.0.0.1:9/hook"
                secretFile = \(JSONWriter.quoted(f.secretFile))
                events = [\(events.map(JSONWriter.quoted).joined(separator: ", "))]

                """
        }
        let config = try ConfigLoader(jobs: ProbeJob.registry.descriptors, environment: [:]).parse(toml, file: f.dir.path + "/hearth.toml")
        return Runner(config: config, data: f.data, registry: ProbeJob.registry)
    }

    func run(_ runner: Runner, dryRun: Bool = false, _ behaviour: @escaping ProbeJob.Behaviour) async throws -> RunOutcome {
        let scenario = ProbeJob.scenario(behaviour)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        return try await runner.run("probe", options: RunOptions(trigger: .cli, logicalTime: now, startTime: now, dryRun: dryRun, parameters: ["scenario": scenario]))
    }

    @Test func aSucceededRunCommitsJobSucceededWithoutCountingItInThePlan() async throws {
        defer { f.remove() }
        let outcome = try await run(try runner(events: ["job.succeeded"])) { _ in }
        #expect(outcome.error == nil)
        #expect(outcome.plan.isEmpty)
        #expect(outcome.plan.summaryLine == "No changes.")
        #expect(outcome.record.messagesQueued == 0)
        let queued = try DirectoryOutboxFolders.messages(in: .pending, data: f.data)
        #expect(queued.map(\.id) == ["job.succeeded-probe-\(outcome.record.runID)"])
        let event = try #require(queued.first)
        #expect(event.kind == .event)
        #expect(event.recipient == "job.succeeded")
        #expect(event.payload["job"] == .string("probe"))
        #expect(event.payload["runId"] == .string(outcome.record.runID))
        #expect(event.payload["logicalTime"] == .string("2027-01-15T08:00:00.000Z"))
        #expect(event.payload["counts"]?.objectValue?["created"] == .int(0))
        #expect(event.payload["error"] == .null)
    }

    @Test func noEventIsQueuedWhenNoEndpointSubscribes() async throws {
        defer { f.remove() }
        _ = try await run(try runner(events: ["job.failed"])) { _ in }
        _ = try await run(try runner(events: nil)) { _ in throw JobSetupError("boom") }
        #expect(try DirectoryOutboxFolders.messages(in: .pending, data: f.data).isEmpty)
    }

    @Test func aFailedRunQueuesJobFailedDirectly() async throws {
        defer { f.remove() }
        let outcome = try await run(try runner(events: [])) { ctx in
            ctx.create(try DocumentPath("marks", "m1"), JSONObject([("x", .int(1))]))
            throw JobSetupError("the scorer is down")
        }
        #expect(outcome.record.status == .failed)
        #expect(!FileManager.default.fileExists(atPath: f.data.root + "/marks/m1.json"))
        let queued = try DirectoryOutboxFolders.messages(in: .pending, data: f.data)
        #expect(queued.map(\.recipient) == ["job.failed"])
        #expect(queued.first?.payload["status"] == .string("failed"))
        #expect(queued.first?.payload["error"] == .string("the scorer is down"))
    }

    @Test func aDryRunQueuesNoEvent() async throws {
        defer { f.remove() }
        _ = try await run(try runner(events: []), dryRun: true) { _ in }
        _ = try await run(try runner(events: []), dryRun: true) { _ in throw JobSetupError("boom") }
        #expect(try DirectoryOutboxFolders.messages(in: .pending, data: f.data).isEmpty)
    }
}
