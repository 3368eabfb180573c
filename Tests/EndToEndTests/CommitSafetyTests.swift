import Foundation
import Testing
import HearthTestSupport

@Suite("crash safety and conflicts")
struct CommitSafetyTests {
    /// Kills a committing `hearth run` with SIGKILL at random points, then checks that after
    /// the next writing command the data is exactly all-before or all-after.
    @Test func sigkillDuringCommitLeavesAllBeforeOrAllAfter() async throws {
        let iterations = Int(ProcessInfo.processInfo.environment["HEARTH_CRASH_ITERATIONS"] ?? "") ?? 200
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let pristine = s.path + "/pristine"
        #expect(try await HearthProcess.run(["seed", "--out", pristine, "--users", "40", "--seed", "3"]).status == 0)
        let before = TreeSnapshot(pristine)
        // The expected after-state: one uninterrupted run on a copy.
        let reference = s.path + "/reference"
        try FileManager.default.copyItem(atPath: pristine, toPath: reference)
        let args = ["run", "leaderboard-rebuild", "--now", "2026-11-18T12:00:00Z"]
        let fault = ["HEARTH_FAULT_COMMIT_STEP_DELAY_US": "300"]
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try await HearthProcess.run(args + ["--data", reference], environment: fault).status == 0)
        // Kill anywhere within the length of an uninterrupted run: that covers the commit
        // (~44 files at 300 µs a step) and the job before it, so both outcomes occur.
        let full = clock.now - started
        let fullMicros = UInt32(full.components.seconds * 1_000_000 + full.components.attoseconds / 1_000_000_000_000)
        let after = TreeSnapshot(reference)
        #expect(!after.sameContent(as: before))

        var rng = SystemRandomNumberGenerator()
        var outcomes = (before: 0, after: 0, completed: 0)
        for i in 0..<iterations {
            let data = s.path + "/run\(i)"
            try FileManager.default.copyItem(atPath: pristine, toPath: data)
            let running = try HearthProcess.start(args + ["--data", data], environment: fault)
            try await Task.sleep(for: .microseconds(UInt32.random(in: 1_000...max(fullMicros, 2_000), using: &rng)))
            kill(running.process.processIdentifier, SIGKILL)
            await running.waitForExit()
            if running.process.terminationReason == .exit { outcomes.completed += 1 }
            let recover = try await HearthProcess.run(["recover", "--data", data])
            #expect(recover.status == 0)
            let journal = (try? FileManager.default.contentsOfDirectory(atPath: data + "/.hearth/journal")) ?? []
            #expect(journal.isEmpty, "journal left after recover: \(journal)")
            let state = TreeSnapshot(data)
            if state.sameContent(as: before) {
                outcomes.before += 1
            } else if state.sameContent(as: after) {
                outcomes.after += 1
            } else {
                let diff = Set(state.files.keys).symmetricDifference(after.files.keys).sorted().prefix(5)
                Issue.record("iteration \(i): data is neither all-before nor all-after (differing paths: \(Array(diff)))")
                break
            }
            try FileManager.default.removeItem(atPath: data)
        }
        print("crash test: \(iterations) SIGKILLs → \(outcomes.before) all-before, \(outcomes.after) all-after (\(outcomes.completed) finished before the kill)")
        #expect(outcomes.before + outcomes.after == iterations)
        #expect(outcomes.before > 0)
        #expect(outcomes.after > 0)
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
