import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import HearthTestSupport
import Logging
import Testing

/// A job may change only the collections its descriptor declares in `writes:`
/// (docs/runs-and-plans.md#runs).
@Suite struct DeclaredWritesTests {
    static let quiet = Logger(label: "test") { HearthLogHandler(label: $0, level: .critical, format: .text) }

    static func runner(_ dir: TempDirectory, scenario: String) throws -> Runner {
        var c = HearthConfig(dataDir: dir.path)
        var p = JobPolicy()
        p.retries = 0
        c.jobs["probe"] = JobConfig(
            name: "probe", schedule: "*/15 * * * *", timeZone: TimeZone(identifier: "UTC")!, policy: p, params: ["scenario": .string(scenario)])
        return Runner(config: c, data: try DataDirectory(root: dir.path), registry: ProbeJob.registry, environment: JobEnvironment(), logger: quiet)
    }

    @Test func aJobWritingACollectionItDidNotDeclareFailsAndCommitsNothing() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let scenario = ProbeJob.scenario { ctx in
            try ProbeJob.mark(ctx)
            ctx.create(try DocumentPath("users", "u1"), JSONObject([("points", .int(5))]))
        }
        let outcome = try await Self.runner(dir, scenario: scenario).run("probe", options: RunOptions(startTime: Timestamp.parseISO8601("2026-11-18T12:00:00Z")))
        #expect(outcome.record.status == .failed)
        let error = try #require(outcome.error as? UndeclaredWriteError)
        #expect(error.description == """
            job probe wrote users/u1.json, but "users" is not in its declared writes ["marks"]; add "users" to `writes:` in the job's \
            JobDescriptor, or stop writing there. Nothing was committed.
            """)
        #expect(dir.read("users/u1.json") == nil)
        #expect((try FileIO.list(dir.path + "/marks") ?? []).isEmpty)
    }

    @Test func aDryRunOfAnUndeclaredWriteFailsWithTheSameMessage() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let scenario = ProbeJob.scenario { ctx in
            ctx.create(try DocumentPath(components: ["marks", "m1", "notes", "n1"]), JSONObject([]))
        }
        let outcome = try await Self.runner(dir, scenario: scenario).run(
            "probe", options: RunOptions(startTime: Timestamp.parseISO8601("2026-11-18T12:00:00Z"), dryRun: true))
        #expect(outcome.record.status == .failed)
        #expect("\(outcome.error!)".hasPrefix(#"job probe wrote marks/m1/notes/n1.json, but "marks/m1/notes" is not in its declared writes ["marks"]; add "marks/*/notes" to `writes:`"#))
    }
}
