import Foundation
import Testing
import HearthTestSupport

@Suite("crash safety and conflicts")
struct CommitSafetyTests {
    /// Kills a committing `hearth run` with SIGKILL at random points, then checks that after
    /// the next writing command the data is exactly all-before or all-after.
    @Test func sigkillDuringCommitLeavesAllBeforeOrAllAfter() async throws {
        let iterations = Int(ProcessInfo.processInfo.environment["HEARTH_CRASH_ITERATIONS"] ?? "") ?? 100
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let pristine = s.path + "/pristine"
        #expect(try await HearthProcess.run(["seed", "--out", pristine, "--users", "40", "--seed", "3"]).status == 0)
        // Only what leaderboard-rebuild reads and writes: each iteration copies, reads back and
        // removes the tree, and the other collections (nearly 600 of the seed's 1,038 files)
        // are never opened by the run (that a run touches nothing else is checked by
        // SeedAndPlanTests on the whole tree).
        for collection in try FileManager.default.contentsOfDirectory(atPath: pristine) where !["users", "transactions", ".hearth"].contains(collection) {
            try FileManager.default.removeItem(atPath: pristine + "/" + collection)
        }
        // The expected after-state: one uninterrupted run on a copy. Kill anywhere within the
        // length of such a run: that covers the commit (~44 files at 300 µs a step) and the job
        // before it, so both outcomes occur.
        let reference = s.path + "/reference"
        try FileManager.default.copyItem(atPath: pristine, toPath: reference)
        _ = try await KillDuringCommit(args: ["run", "leaderboard-rebuild", "--now", "2026-11-18T12:00:00Z"])
            .run(pristine: pristine, reference: reference, scratch: s.path, iterations: iterations)
    }

    /// Another process changes a user between the job's read and its commit: the run notices
    /// at commit, re-runs from scratch, and the other writer's change survives.
    @Test func aConcurrentChangeIsDetectedReRunAndNotLost() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        try s.write("d/users/alice.json", #"{"name": "Alice", "totalPointsGifted": 150, "giftsGiven": 3}"#)
        try s.write("d/users/bob.json", #"{"name": "Bob", "totalPointsGifted": 50, "giftsGiven": 1}"#)
        let running = try HearthProcess.start(
            ["run", "leaderboard-rebuild", "--data", s.path + "/d", "--now", "2026-11-18T12:00:00Z", "--param", "periods=alltime"],
            environment: ["HEARTH_FAULT_PAUSE_BEFORE_COMMIT_MS": "1500"])
        let result = try await running.finish(after: "pausing 1500 ms before the commit") {
            // The app writes alice while the job is between its read and its commit.
            try s.write("d/users/alice.json", #"{"name": "Alice", "totalPointsGifted": 150, "giftsGiven": 3, "points": 777}"#)
        }
        #expect(result.status == 0)
        #expect(result.stderr.contains("conflict: documents changed while the job ran; re-running"))
        #expect(result.stdout.hasSuffix("Applied: 1 to create, 2 to update, 0 to delete; 0 pushes, 0 webhooks.\n"))
        #expect(s.read("d/users/alice.json") == """
            {
              "name": "Alice",
              "totalPointsGifted": 150,
              "giftsGiven": 3,
              "points": 777,
              "rank": 1,
              "generosityLevel": "Helper",
              "generosityScore": 6
            }

            """)
    }
}
