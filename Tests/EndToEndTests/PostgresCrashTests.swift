import Foundation
import Testing
import HearthTestSupport

/// SIGKILL of `hearth run` on the PostgreSQL backend (docs/storage/postgres.md#commits): the
/// database is all-before or all-after, never a mix. Each iteration runs on a fresh copy of
/// the imported database (`CREATE DATABASE … TEMPLATE`), is killed at a random moment in the
/// second half of an uninterrupted run's length (or just after), and is compared by
/// `hearth data export`. No `hearth recover`:
/// a commit is one transaction, and the server rolls back one whose client died.
@Suite("PostgreSQL crash safety")
struct PostgresCrashTests {
    @Test func sigkillDuringARunLeavesTheDatabaseAllBeforeOrAllAfter() async throws {
        let iterations = Int(ProcessInfo.processInfo.environment["HEARTH_CRASH_ITERATIONS"] ?? "") ?? 20
        let temp = try TempDirectory("hearth-pg-crash")
        defer { temp.remove() }
        let server = try await PostgresServer.shared()
        let pristine = try await server.database()
        try temp.write("pg.toml", "dataDir = \"data\"\n[store]\nkind = \"postgres\"\nurlEnv = \"HEARTH_TEST_PG\"\n")
        let config = ["--config", temp.path + "/pg.toml"]
        func hearth(_ args: [String], url: String, environment: [String: String] = [:]) async throws -> HearthProcess.Result {
            try await HearthProcess.run(args + config, environment: environment.merging(["HEARTH_TEST_PG": url]) { a, _ in a })
        }
        #expect(try await HearthProcess.run(["seed", "--out", temp.path + "/data", "--users", "100", "--seed", "7"]).status == 0)
        // Only what leaderboard-rebuild reads and writes: each iteration exports, reads back
        // and removes the whole database, and the run never opens the other collections.
        for collection in try FileManager.default.contentsOfDirectory(atPath: temp.path + "/data") where !["users", "transactions", ".hearth"].contains(collection) {
            try FileManager.default.removeItem(atPath: temp.path + "/data/" + collection)
        }
        #expect(try await hearth(["migrate"], url: pristine).status == 0)
        #expect(try await hearth(["data", "import", temp.path + "/data"], url: pristine).status == 0)
        #expect(try await hearth(["data", "export", temp.path + "/before"], url: pristine).status == 0)

        let run = ["run", "leaderboard-rebuild", "--now", "2026-11-18T12:00:00Z"]
        let slow = ["HEARTH_FAULT_COMMIT_STEP_DELAY_US": "150000"]
        let reference = try await server.database(copying: pristine)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try await hearth(run, url: reference, environment: slow).status == 0)
        let full = clock.now - started
        #expect(try await hearth(["data", "export", temp.path + "/after"], url: reference).status == 0)
        let before = TreeSnapshot(temp.path + "/before")
        let after = TreeSnapshot(temp.path + "/after")
        #expect(!after.sameContent(as: before))

        let fullMicros = UInt32(Double(full.components.seconds) * 1e6 + Double(full.components.attoseconds) / 1e12)
        let seed = try TestSeed()
        var rng = seed.generator()
        var (allBefore, allAfter, finished) = (0, 0, 0)
        // The window's scale: the reference run's length is one sample, and a loaded machine
        // can make it longer or shorter than the runs after it. From half the iterations on,
        // while every kill landed on the same side of the commit, the window moves toward the
        // other side, and the test goes on (up to twice the iterations) until both were seen.
        var scale = 1.0
        var i = 0
        while i < iterations || (allBefore == 0 || allAfter == 0) && i < 2 * iterations {
            defer { i += 1 }
            if i >= iterations / 2 {
                if allBefore == 0 { scale *= 0.8 } else if allAfter == 0 { scale *= 1.25 }
            }
            let url = try await server.database(copying: pristine)
            let running = try HearthProcess.start(run + config, environment: slow.merging(["HEARTH_TEST_PG": url]) { a, _ in a })
            // Between half an uninterrupted run and a little past its end: the commit (slowed
            // to 150 ms a statement) is the run's last part, so kills land before, inside and
            // after it.
            let micros = UInt32.random(in: (fullMicros / 2)...(fullMicros + fullMicros / 5), using: &rng)
            try await Task.sleep(for: .microseconds(UInt32(Double(micros) * scale)))
            kill(running.process.processIdentifier, SIGKILL)
            await running.waitForExit()
            if running.process.terminationReason == .exit { finished += 1 }
            let export = temp.path + "/export\(i)"
            #expect(try await hearth(["data", "export", export], url: url).status == 0)
            let state = TreeSnapshot(export)
            if state.sameContent(as: before) {
                allBefore += 1
            } else if state.sameContent(as: after) {
                allAfter += 1
            } else {
                Issue.record("iteration \(i): the database is neither all-before nor all-after; replay with \(seed)")
                break
            }
            try FileManager.default.removeItem(atPath: export)
        }
        print("postgres crash test: \(i) SIGKILLs → \(allBefore) all-before, \(allAfter) all-after (\(finished) finished before the kill; window scale \(scale))")
        #expect(allBefore + allAfter == i, "replay with \(seed)")
        #expect(allBefore > 0, "replay with \(seed)")
        #expect(allAfter > 0, "replay with \(seed)")
    }
}
