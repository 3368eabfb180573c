import Foundation
import Testing
import HearthTestSupport

/// CLI behaviour a user's tour once found wrong, each on the real binary: history by end time,
/// wall-clock durations after `--now <past>`, dry runs never the last result, `--version`,
/// and dropped outbox messages shown by `hearth outbox list`.
@Suite("Operations CLI")
struct OperationsCLITests {
    static let job = "leaderboard-rebuild"

    static func seeded() async throws -> TempDirectory {
        let dir = try TempDirectory("hearth-ops-cli")
        let seed = try await HearthProcess.run(["seed", "--out", "data", "--users", "20"], in: dir.path)
        try #require(seed.status == 0, "\(seed.stderr)")
        return dir
    }

    static func json(_ r: HearthProcess.Result) throws -> [[String: Any]] {
        try #require(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    }

    static func date(_ v: Any?) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return (v as? String).flatMap(f.date(from:))
    }

    @Test func historyIsByEndTimeDurationsAreWallClockAndDryRunsAreNeverTheLastResult() async throws {
        let dir = try await Self.seeded()
        defer { dir.remove() }
        let before = Date()
        // A dry run at a later logical time first, then a real run in the past: the real run
        // ended last, so it is listed first, and it lasted well under a minute.
        let dry = try await HearthProcess.run(["run", Self.job, "--data", "data", "--dry-run", "--now", "2026-11-20T00:00:00Z"], in: dir.path)
        #expect(dry.status == 0, "\(dry.stderr)")
        let real = try await HearthProcess.run(["run", Self.job, "--data", "data", "--now", "2026-11-01T00:00:00Z", "--no-deliver"], in: dir.path)
        #expect(real.status == 0, "\(real.stderr)")
        let history = try Self.json(try await HearthProcess.run(["history", Self.job, "--data", "data", "--format", "json"], in: dir.path))
        try #require(history.count == 2)
        #expect(history.map { $0["dryRun"] as? Bool } == [false, true])
        #expect(history[0]["logicalTime"] as? String == "2026-11-01T00:00:00.000Z")
        let start = try #require(Self.date(history[0]["start"]))
        let end = try #require(Self.date(history[0]["end"]))
        #expect(start >= before.addingTimeInterval(-1), "the start is the wall clock's, not --now: \(start)")
        #expect(end.timeIntervalSince(start) < 60)
        #expect(end >= (Self.date(history[1]["end"]) ?? .distantFuture))

        // Another dry run, newest of all: `list` still shows the real run as the last result.
        let again = try await HearthProcess.run(["run", Self.job, "--data", "data", "--dry-run"], in: dir.path)
        #expect(again.status == 0)
        let list = try Self.json(try await HearthProcess.run(["list", "--data", "data", "--format", "json"], in: dir.path))
        let last = try #require(list.first { $0["job"] as? String == Self.job }?["lastRun"] as? [String: Any])
        #expect(last["runId"] as? String == history[0]["runId"] as? String)
        #expect(last["dryRun"] as? Bool == false)
        let text = try await HearthProcess.run(["list", "--data", "data"], in: dir.path)
        #expect(text.stdout.contains("succeeded at \(history[0]["end"] as? String ?? "?")"))
    }

    @Test func versionPrintsTheVersionAndTheCommitAndExitsZero() async throws {
        let r = try await HearthProcess.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("0.9.0"))
        // Built from this checkout: the commit is HEAD's (or HEAD moved since the build).
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        if let git = ExternalTool.find(["git"]) {
            let head = try await ExternalTool.run(git, ["-C", root, "rev-parse", "--short=12", "HEAD"])
            let sha = head.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(r.stdout == "0.9.0 (git \(sha))\n" || r.stdout == "0.9.0 (built from git before \(sha), the checkout's HEAD now)\n", "\(r.stdout)")
        }
    }

    @Test func outboxListShowsHowManyMessagesWereDroppedAndWhere() async throws {
        let dir = try await Self.seeded()
        defer { dir.remove() }
        let empty = try await HearthProcess.run(["outbox", "list", "--data", "data"], in: dir.path)
        #expect(empty.stdout == "The outbox is empty.\n")
        for n in 1...2 {
            try dir.write("data/.hearth/outbox/dropped/push-x-\(n).json", """
                {"id": "push-x-\(n)", "kind": "push", "recipient": "u1", "title": "t", "payload": {"userId": "u1", "tokens": [], "title": "t", "body": "b", "data": {}},
                 "job": "gift-settle", "runId": "r", "createdAt": "2026-11-24T08:00:00.000Z", "attempts": 0, "reason": "skipped: no push provider configured",
                 "finishedAt": "2026-11-24T08:00:00.000Z"}
                """)
        }
        let r = try await HearthProcess.run(["outbox", "list", "--data", "data"], in: dir.path)
        #expect(r.status == 0)
        let root = URL(fileURLWithPath: dir.path + "/data").standardizedFileURL.path
        #expect(r.stdout == "Nothing pending, no dead letters. 2 messages were dropped (nothing to deliver them to: no subscribing endpoint or no push provider): \(root)/.hearth/outbox/dropped/ (the newest 1000 are kept; `hearth outbox list --format json` shows them).\n", "\(r.stdout)")
        let json = try Self.json(try await HearthProcess.run(["outbox", "list", "--data", "data", "--format", "json"], in: dir.path))
        #expect(json.map { $0["state"] as? String } == ["dropped", "dropped"])
    }
}
