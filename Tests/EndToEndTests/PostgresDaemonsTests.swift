import Foundation
import Testing
import HearthTestSupport

/// Several `hearth daemon` on one PostgreSQL database (docs/storage/postgres.md#several-daemons):
/// every slot runs once, through the `slot_claims` row each daemon tries to insert first.
@Suite("several daemons on one PostgreSQL database")
struct PostgresDaemonsTests {
    static let others = [
        "leaderboard-rebuild", "weekly-bonus", "achievement-unlock", "streak-reset", "gig-quality-score",
        "notification-fanout", "gift-settle", "report-triage", "xp-leaderboard", "friend-notify", "conversation-sync",
    ]

    /// Three daemons, `xp-award` every 2 seconds, until six slots have run and a daemon lost a
    /// race for one (CI's length, about 12 s); `HEARTH_HA_SECONDS=60` runs them for a minute.
    @Test func threeDaemonsRunEverySlotExactlyOnce() async throws {
        let temp = try TempDirectory("hearth-pg-daemons")
        defer { temp.remove() }
        let (config, environment) = try await Self.prepare(temp)
        let daemons = try (0..<3).map { _ in try HearthProcess.start(["daemon", "--log-level", "debug"] + config, environment: environment) }
        defer { for d in daemons where d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        let changes = ChangeNotifier()
        let stderrs = daemons.map { StderrCollector($0.stderrPipe, changes: changes) }
        try await Self.keepRunning(stderrs, "six runs and a slot claimed by another daemon") { texts in
            Self.count("run succeeded", in: texts) >= 6 && Self.count("slot claimed by another daemon", in: texts) >= 1
        }
        for d in daemons { kill(d.process.processIdentifier, SIGTERM) }
        var claimedElsewhere = 0
        for (d, collector) in zip(daemons, stderrs) {
            await d.waitForExit()
            let stderr = try await collector.untilEnd()
            #expect(d.process.terminationStatus == 0, "\(stderr)")
            claimedElsewhere += Self.count("slot claimed by another daemon", in: [stderr])
            // Losing a slot to another daemon is the normal case, not an overlap.
            #expect(!stderr.contains("skipped-overlap"))
        }

        let (records, runsPerSlot) = try await Self.runsPerSlot(config, environment)
        #expect(runsPerSlot.count >= 5, "slots run: \(runsPerSlot.keys.sorted())")
        #expect(runsPerSlot.values.allSatisfy { $0 == 1 }, "slots run more than once: \(runsPerSlot.filter { $0.value > 1 })")
        #expect(records.allSatisfy { ($0["status"] as? String) == "succeeded" })
        // The daemons did race for the same slots.
        #expect(claimedElsewhere > 0)
    }

    /// One of three daemons SIGKILLed while its run waits to commit (fault injection pauses
    /// each run 1 s before its commit; the kill comes at a random moment of that pause, from a
    /// printed ``TestSeed``): its slot's claim outlives it by `leaseTimeout` (3 s here), then
    /// another daemon takes the slot over; the two others are stopped once that run is done (`HEARTH_HA_SECONDS=60` keeps them going for a minute). Every slot from the first to the last ran exactly once, the orphaned one included.
    /// The victim is whichever daemon pauses first: one daemon can lose every race for a claim
    /// for half a minute (CI saw it), so waiting for a chosen one is not enough.
    @Test func aSlotWhoseDaemonWasKilledMidRunIsRunOnceByAnotherAfterTheLease() async throws {
        let temp = try TempDirectory("hearth-pg-daemons")
        defer { temp.remove() }
        let (config, environment) = try await Self.prepare(temp, store: "leaseTimeout = \"3s\"\n", environment: ["HEARTH_FAULT_PAUSE_BEFORE_COMMIT_MS": "1000"])
        let daemons = try (0..<3).map { _ in try HearthProcess.start(["daemon", "--log-level", "info"] + config, environment: environment) }
        let changes = ChangeNotifier()
        defer { for d in daemons where d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        let stderrs = daemons.map { StderrCollector($0.stderrPipe, changes: changes) }
        let v = try await StderrCollector.first(toPrint: "hearth fault injection: pausing", among: stderrs, timeout: .seconds(30))
        // Killed at once, inside the 1 s pause before its commit, holding the slot: a kill
        // delayed on a loaded machine could come after the commit, and leave no slot to take over.
        kill(daemons[v].process.processIdentifier, SIGKILL)
        await daemons[v].waitForExit()
        let survivors = daemons.indices.filter { $0 != v }
        let takeover = "taking over a slot whose daemon stopped mid-run"
        // Until the survivor that took the slot over has run it.
        try await Self.keepRunning(stderrs, "run of the slot taken over") { texts in
            Self.count("run succeeded", in: survivors.map { texts[$0].components(separatedBy: takeover).dropFirst().joined() }) >= 1
        }
        for i in survivors { kill(daemons[i].process.processIdentifier, SIGTERM) }
        var tookOver = 0
        for i in survivors {
            await daemons[i].waitForExit()
            let stderr = try await stderrs[i].untilEnd()
            #expect(daemons[i].process.terminationStatus == 0, "\(stderr)")
            tookOver += stderr.components(separatedBy: "taking over a slot whose daemon stopped mid-run").count - 1
        }
        #expect(tookOver == 1)

        let (records, runsPerSlot) = try await Self.runsPerSlot(config, environment)
        let twice = Set(runsPerSlot.filter { $0.value > 1 }.keys)
        #expect(twice.isEmpty, "slots run more than once: \(records.filter { twice.contains($0["logicalTime"] as? String ?? "") }.map { "\($0["runId"] ?? "") \($0["trigger"] ?? "") \($0["start"] ?? "")" })")
        // No gap: the killed daemon's slot is among them.
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let slots = runsPerSlot.keys.compactMap { iso.date(from: $0) }.sorted()
        let first = try #require(slots.first)
        let last = try #require(slots.last)
        #expect(slots.count == Int(last.timeIntervalSince(first) / 2) + 1, "slots: \(runsPerSlot.keys.sorted())")
        #expect(records.contains { ($0["trigger"] as? String) == "catch-up" })
    }

    /// A paused job on a shared database: every slot is recorded once as `skipped-paused`, by
    /// whichever daemon claimed it, with no gap and no slot twice.
    @Test func aPausedJobsSlotsAreEachRecordedOnceAsSkippedPaused() async throws {
        let temp = try TempDirectory("hearth-pg-daemons")
        defer { temp.remove() }
        let (config, environment) = try await Self.prepare(temp)
        let pause = try await HearthProcess.run(["pause", "xp-award"] + config, environment: environment)
        #expect(pause.status == 0, "\(pause.stderr)")
        let daemons = try (0..<2).map { _ in try HearthProcess.start(["daemon", "--log-level", "info"] + config, environment: environment) }
        defer { for d in daemons where d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        // Until four slots are recorded. Polled: a paused slot is recorded without a log line,
        // so only the database tells (at most 60 s).
        try await eventually("four recorded slots", timeout: .seconds(60), pollEvery: .milliseconds(500)) {
            try await Self.runsPerSlot(config, environment).runs.count >= 4
        }
        for d in daemons { kill(d.process.processIdentifier, SIGTERM) }
        for d in daemons {
            let result = await d.finish()
            #expect(result.status == 0, "\(result.stderr)")
        }

        let (records, perSlot) = try await Self.runsPerSlot(config, environment)
        #expect(records.allSatisfy { ($0["status"] as? String) == "skipped-paused" }, "\(records.map { $0["status"] ?? "" })")
        #expect(perSlot.values.allSatisfy { $0 == 1 }, "slots recorded more than once: \(perSlot.filter { $0.value > 1 })")
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let slots = perSlot.keys.compactMap { iso.date(from: $0) }.sorted()
        #expect(slots.count >= 3, "slots: \(perSlot.keys.sorted())")
        if let first = slots.first, let last = slots.last {
            #expect(slots.count == Int(last.timeIntervalSince(first) / 2) + 1, "slots: \(perSlot.keys.sorted())")
        }
    }

    /// A seeded database with `xp-award` every 2 seconds and every other job disabled; the
    /// arguments and environment every `hearth` of the test gets. The configuration has no
    /// `dataDir`: the daemons keep everything in the database.
    /// `xp-award` has no triggers here: these tests are about slots, and every daemon would run
    /// a job with triggers once at start (docs/triggers.md#what-the-daemon-does-with-writes).
    static func prepare(_ temp: TempDirectory, store: String = "", environment extra: [String: String] = [:]) async throws -> (config: [String], environment: [String: String]) {
        let url = try await PostgresServer.shared().database()
        let disabled = others.map { "[jobs.\($0)]\nenabled = false\n" }.joined()
        try temp.write("pg.toml", """
            [scheduler]
            allowSecondIntervals = true
            [store]
            kind = "postgres"
            urlEnv = "HEARTH_TEST_PG"
            \(store)[jobs.xp-award]
            schedule = "every 2 seconds"
            triggers = []
            \(disabled)
            """)
        let config = ["--config", temp.path + "/pg.toml"]
        let environment = ["HEARTH_TEST_PG": url].merging(extra) { a, _ in a }
        #expect(try await HearthProcess.run(["seed", "--out", temp.path + "/data", "--users", "30", "--seed", "3"]).status == 0)
        #expect(try await HearthProcess.run(["migrate"] + config, environment: environment).status == 0)
        #expect(try await HearthProcess.run(["data", "import", temp.path + "/data"] + config, environment: environment).status == 0)
        return (config, environment)
    }

    /// Lets the daemons run until `condition` holds for their stderr (at most 60 s), or for
    /// `HEARTH_HA_SECONDS` when that is set (a longer soak).
    static func keepRunning(_ stderrs: [StderrCollector], _ what: String, sourceLocation: SourceLocation = #_sourceLocation, until condition: ([String]) -> Bool) async throws {
        if let seconds = Int(ProcessInfo.processInfo.environment["HEARTH_HA_SECONDS"] ?? "") {
            // The soak asked for: running this long is the point.
            try await Task.sleep(for: .seconds(seconds))
            return
        }
        try await StderrCollector.wait(what, for: stderrs, timeout: .seconds(60), sourceLocation: sourceLocation) { condition($0) }
    }

    /// How many times `needle` occurs in `texts`.
    static func count(_ needle: String, in texts: [String]) -> Int {
        texts.reduce(0) { $0 + $1.components(separatedBy: needle).count - 1 }
    }

    /// `xp-award`'s run records and how many real runs each logical time had.
    static func runsPerSlot(_ config: [String], _ environment: [String: String]) async throws -> (records: [[String: Any]], runs: [String: Int]) {
        let history = try await HearthProcess.run(["history", "xp-award", "--format", "json", "--limit", "200"] + config, environment: environment)
        #expect(history.status == 0)
        let records = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        var runs: [String: Int] = [:]
        for r in records where (r["dryRun"] as? Bool) == false {
            runs[r["logicalTime"] as? String ?? "", default: 0] += 1
        }
        return (records, runs)
    }
}
