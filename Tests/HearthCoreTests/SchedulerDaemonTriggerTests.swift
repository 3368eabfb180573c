import Foundation
import HearthKit
import HearthStore
import HearthHost
import HearthTesting
import Testing

/// Writes start runs (docs/triggers.md#what-the-daemon-does-with-writes): the daemon on the
/// in-memory store, whose change feed announces each write, with the real runner and a manual
/// clock (`triggerDelay` passes only when the test moves the clock).
@Suite("Scheduler daemon: triggers")
struct SchedulerDaemonTriggerTests {
    static let t0 = SchedulerDaemonTests.at("2026-11-18T11:59:00Z")
    /// The jobs' only slot in these tests (`@daily`).
    static let midnight = SchedulerDaemonTests.at("2026-11-19T00:00:00Z")
    static let toml = """
        [defaults]
        retries = 0

        """

    struct Refused: Error {}

    static func after(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    static func path(_ text: String) -> DocumentPath { try! DocumentPath(parsing: text) }

    static func changes(_ paths: String...) -> ChangedDocuments { ChangedDocuments(paths.map(path)) }

    static func isFinished(_ e: SchedulerEvent, _ job: String) -> Bool {
        if case .finished(job, _, _, _, _) = e { return true }
        return false
    }

    static func triggeredCount(_ h: TriggerHarness, _ job: String) -> Int {
        h.events.all.filter { if case .triggered(job, _, _) = $0 { true } else { false } }.count
    }

    /// Waits for the run each job with triggers makes at start (reading everything), and for the
    /// daemon to sleep until the next slot afterwards. The first wait allows a minute: when the
    /// whole HearthCoreTests target runs at once, the process makes no progress for half a
    /// minute at its start (every scheduler suite's first event then comes late).
    static func startUpRuns(_ h: TriggerHarness, _ jobs: Set<String>) async throws {
        for (i, _) in jobs.enumerated() {
            try await h.events.next(timeout: .seconds(i == 0 ? 60 : 10)) { if case .finished(let job, _, .write, 1, .succeeded) = $0 { jobs.contains(job) } else { false } }
        }
        try await h.events.sleeping(until: midnight)
    }

    // MARK: - One write, one run

    @Test func anAppWriteStartsExactlyOneRunWithTriggerWriteAndThePathInItsRecord() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock, jobs: [TriggerJobs.settle(log: log)], toml: Self.toml)
        try await h.events.next(timeout: .seconds(60)) { $0 == .triggered(job: "settle", paths: nil, count: 0) }
        try await Self.startUpRuns(h, ["settle"])

        try h.store.write("transactions/g1", #"{"status": "pending"}"#)
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        try await h.events.sleeping(until: Self.after(0.02))
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g1"], count: 1) }
        let finished = try await h.events.next { Self.isFinished($0, "settle") }
        #expect(finished == .finished(job: "settle", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .succeeded))
        try await h.events.sleeping(until: Self.midnight)
        #expect(Self.triggeredCount(h, "settle") == 2)

        #expect(log.of("settle").map(\.changes) == [nil, Self.changes("transactions/g1")])
        #expect(log.of("settle").map(\.logicalTime) == [Self.t0, Self.after(0.02)])
        let records = try h.records("settle")
        #expect(records.map(\.trigger) == [.write, .write])
        #expect(records.map(\.status) == [.succeeded, .succeeded])
        #expect(records.map(\.triggerPaths) == [[], ["transactions/g1"]])
        #expect(records.map(\.triggerPathCount) == [0, 1])
        #expect(records[1].json["triggeredBy"] == .object(JSONObject([("paths", .array([.string("transactions/g1")])), ("count", .int(1))])))

        // Both runs counted under trigger "write"; the lag of the triggered one: seen at t0,
        // committed 20 ms later (the start-up run had no write, so no lag): in the 0.05 bucket, above 0.01.
        #expect(h.metricLines("hearth_job_runs_total{job=\"settle\",status=\"succeeded\",trigger=\"write\"}") == [
            "hearth_job_runs_total{job=\"settle\",status=\"succeeded\",trigger=\"write\"} 2"
        ])
        #expect(h.metricLines("hearth_trigger_lag_seconds_count{job=\"settle\"}") == ["hearth_trigger_lag_seconds_count{job=\"settle\"} 1"])
        #expect(h.metricLines("hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.05\"}") == ["hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.05\"} 1"])
        #expect(h.metricLines("hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.01\"}") == ["hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.01\"} 0"])
        #expect(h.metricLines("hearth_trigger_writes_total{job=\"settle\"}") == ["hearth_trigger_writes_total{job=\"settle\"} 1"])
        try await h.stop()
        #expect(h.store.openChangeFeeds == 0)
    }

    @Test func writesWithinTheTriggerDelayStartOneRunWithAllOfThem() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock, jobs: [TriggerJobs.settle(log: log)],
            toml: Self.toml + "[jobs.settle]\ntriggerDelay = \"50ms\"\n")
        try await Self.startUpRuns(h, ["settle"])

        try h.store.write("transactions/g2", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        try await h.events.sleeping(until: Self.after(0.05))
        clock.advance(by: 0.02)
        try h.store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try h.store.write("transactions/g2", #"{"again": true}"#)
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        // The run is still due 50 ms after the first write.
        try await h.events.sleeping(until: Self.after(0.05))
        clock.advance(to: Self.after(0.05))
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g2", "transactions/g1"], count: 2) }
        try await h.events.next { Self.isFinished($0, "settle") }
        try await h.events.sleeping(until: Self.midnight)
        #expect(Self.triggeredCount(h, "settle") == 2)
        #expect(log.of("settle").map(\.changes) == [nil, Self.changes("transactions/g1", "transactions/g2")])
        #expect(try h.records("settle").last?.triggerPaths == ["transactions/g2", "transactions/g1"])
        #expect(h.metricLines("hearth_trigger_writes_total{job=\"settle\"}") == ["hearth_trigger_writes_total{job=\"settle\"} 3"])
        // Lag from the first write (t0) to the commit (t0 + 50 ms), not from the last (t0 + 40 ms).
        #expect(h.metricLines("hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.02\"}") == ["hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.02\"} 0"])
        #expect(h.metricLines("hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.1\"}") == ["hearth_trigger_lag_seconds_bucket{job=\"settle\",le=\"0.1\"} 1"])
        try await h.stop()
    }

    @Test func writesDuringARunStartExactlyOneMoreRunAfterItWithAllOfThem() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let gate = Gate()
        let running = Gate()
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.settle(log: log) { ctx in
                    if ctx.changes?.paths(in: "transactions") == [Self.path("transactions/g1")] {
                        await running.open()
                        await gate.wait()
                    }
                }
            ], toml: Self.toml)
        try await Self.startUpRuns(h, ["settle"])

        try h.store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g1"], count: 1) }
        await running.wait()

        // While it runs: writes long past their delay wait for it, and gather into one run.
        for (i, id) in ["g2", "g3", "g1"].enumerated() {
            try h.store.write("transactions/\(id)", #"{"n": \#(i)}"#)
            try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
            clock.advance(by: 0.1)
        }
        #expect(Self.triggeredCount(h, "settle") == 2)
        await gate.open()
        try await h.events.next { $0 == .finished(job: "settle", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .succeeded) }
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g2", "transactions/g3", "transactions/g1"], count: 3) }
        try await h.events.next { $0 == .finished(job: "settle", logicalTime: Self.after(0.32), trigger: .write, attempt: 1, status: .succeeded) }
        try await h.events.sleeping(until: Self.midnight)
        #expect(Self.triggeredCount(h, "settle") == 3)
        #expect(log.of("settle").map(\.changes) == [nil, Self.changes("transactions/g1"), Self.changes("transactions/g1", "transactions/g2", "transactions/g3")])
        try await h.stop()
        #expect(try h.records("settle").count == 3)
    }

    // MARK: - Who wrote

    @Test func aJobsOwnCommitDoesNotTriggerIt() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.job("settle", reads: ["transactions"], writes: ["transactions"], triggers: ["transactions"], log: log) { ctx in
                    for p in ctx.changes?.paths(in: "transactions") ?? [] {
                        guard let doc = try ctx.document(p) else { continue }
                        ctx.update(doc) { $0["status"] = .string("completed") }
                    }
                }
            ], toml: Self.toml)
        try await Self.startUpRuns(h, ["settle"])

        try h.store.write("transactions/g1", #"{"status": "pending"}"#)
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g1"], count: 1) }
        try await h.events.next { $0 == .changesIgnored(job: "settle", reason: .ownCommit) }
        clock.advance(by: 1)
        try await h.stop()
        #expect(h.store.object("transactions/g1")?["status"] == .string("completed"))
        #expect(Self.triggeredCount(h, "settle") == 2)
        #expect(try h.records("settle").count == 2)
    }

    @Test func aCommitByOneJobTriggersTheJobThatReadsWhatItWrote() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                // xp-award and achievement-unlock in small.
                TriggerJobs.job("award", reads: ["trades"], writes: ["userXP"], triggers: ["trades"], log: log) { ctx in
                    for p in ctx.changes?.paths(in: "trades") ?? [] {
                        ctx.create(try DocumentPath("userXP", "u-\(p.id)"), JSONObject([("xp", .int(10))]))
                    }
                },
                TriggerJobs.job("unlock", reads: ["userXP"], writes: ["achievements"], triggers: ["userXP"], log: log) { ctx in
                    for p in ctx.changes?.paths(in: "userXP") ?? [] {
                        ctx.create(try DocumentPath("achievements", p.id), JSONObject([("first", .bool(true))]))
                    }
                },
            ], toml: Self.toml)
        try await Self.startUpRuns(h, ["award", "unlock"])

        try h.store.write("trades/t1", #"{"status": "completed"}"#)
        try await h.events.next { $0 == .changesSeen(job: "award", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "award", paths: ["trades/t1"], count: 1) }
        // award's commit (chain 1) is unlock's write.
        try await h.events.next { $0 == .changesSeen(job: "unlock", count: 1, chain: 1) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "unlock", paths: ["userXP/u-t1"], count: 1) }
        try await h.events.next { $0 == .finished(job: "unlock", logicalTime: Self.after(0.04), trigger: .write, attempt: 1, status: .succeeded) }
        try await h.stop()
        #expect(h.store.ids("achievements") == ["u-t1"])
        #expect(log.of("unlock").map(\.changes) == [nil, Self.changes("userXP/u-t1")])
        #expect(try h.records("unlock").map(\.triggerPaths) == [[], ["userXP/u-t1"]])
    }

    @Test func chainsOfCommitsStopAfterEightLinksWithAWarning() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.job("ping", reads: ["pings"], writes: ["pongs"], triggers: ["pings"], log: log, body: TriggerJobs.relay(from: "pings", to: "pongs")),
                TriggerJobs.job("pong", reads: ["pongs"], writes: ["pings"], triggers: ["pongs"], log: log, body: TriggerJobs.relay(from: "pongs", to: "pings")),
            ], toml: Self.toml)
        try await Self.startUpRuns(h, ["ping", "pong"])

        try h.store.write("pings/b0", #"{"n": 0}"#)
        for link in 0..<8 {
            let (job, from) = link % 2 == 0 ? ("ping", "pings") : ("pong", "pongs")
            try await h.events.next { $0 == .changesSeen(job: job, count: 1, chain: link) }
            clock.advance(by: 0.02)
            try await h.events.next { $0 == .triggered(job: job, paths: ["\(from)/b\(link)"], count: 1) }
        }
        // pong's commit of pings/b8 is the 8th link: ping is not started again.
        try await h.events.next { $0 == .changesIgnored(job: "ping", reason: .chainLimit) }
        clock.advance(by: 1)
        try await h.stop()
        #expect(h.store.ids("pings") == ["b0", "b2", "b4", "b6", "b8"])
        #expect(h.store.ids("pongs") == ["b1", "b3", "b5", "b7"])
        #expect(try h.records("ping").count == 5)
        #expect(try h.records("pong").count == 5)
        #expect(h.log.all.contains { $0.hasPrefix("warning writes do not start this job: they come from a chain of 8 runs") && $0.contains("job=ping") })
    }

    // MARK: - Which jobs

    @Test func aJobWithEmptyTriggersIsNotStartedByWrites() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.settle(log: log),
                TriggerJobs.job("audit", reads: ["transactions"], triggers: ["transactions"], log: log),
            ], toml: Self.toml + "[jobs.audit]\ntriggers = []\n")
        #expect(h.config.jobs["audit"]?.triggers == [])
        try await Self.startUpRuns(h, ["settle"])
        try h.store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .finished(job: "settle", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .succeeded) }
        try await h.events.sleeping(until: Self.midnight)
        try await h.stop()
        #expect(log.of("audit").isEmpty)
        #expect(try h.records("audit").isEmpty)
        #expect(!h.events.all.contains { if case .changesSeen("audit", _, _) = $0 { true } else { false } })
    }

    @Test func atStartEachJobWithTriggersRunsOnceReadingEverythingAndOnlyThen() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        // Written while no daemon watched.
        let store = try InMemoryStore(documents: ["transactions/g1": #"{"status": "pending"}"#])
        let counted = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock, store: store,
            jobs: [
                TriggerJobs.settle(log: log) { ctx in
                    for doc in try await ctx.documents(in: "transactions") {
                        counted.append(.init(job: doc.path.description, logicalTime: ctx.logicalTime, changes: nil))
                    }
                },
                TriggerJobs.job("triage", reads: ["reports"], triggers: ["reports"], log: log),
                TriggerJobs.job("board", reads: ["transactions"], triggers: [], log: log),
            ], toml: Self.toml)
        try await Self.startUpRuns(h, ["settle", "triage"])
        #expect(h.store.openChangeFeeds == 1)
        try await h.stop()
        #expect(h.store.openChangeFeeds == 0)
        #expect(log.all.map(\.job).sorted() == ["settle", "triage"])
        #expect(log.all.map(\.changes) == [nil, nil])
        #expect(counted.all.map(\.job) == ["transactions/g1"])
        #expect(try h.records("settle").map(\.trigger) == [.write])
        #expect(try h.records("triage").map(\.trigger) == [.write])
    }

    @Test func aPausedJobIsNotTriggeredAndRunsNothingAtStart() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let store = try InMemoryStore()
        try store.setPause(JobPause(job: "settle", pausedAt: Self.t0, pausedBy: "cli"))
        let h = try TriggerHarness(
            clock: clock, store: store,
            jobs: [
                TriggerJobs.settle(log: log),
                TriggerJobs.job("audit", reads: ["transactions"], triggers: ["transactions"], log: log),
            ], toml: Self.toml)
        try await Self.startUpRuns(h, ["audit"])
        try h.store.write("transactions/g1", "{}")
        // Jobs are looked at by name: audit, then settle.
        try await h.events.next { $0 == .changesSeen(job: "audit", count: 1, chain: 0) }
        try await h.events.next { $0 == .changesIgnored(job: "settle", reason: .paused) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .finished(job: "audit", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .succeeded) }
        try await h.stop()
        #expect(log.of("settle").isEmpty)
        #expect(Self.triggeredCount(h, "settle") == 0)
    }

    // MARK: - Reading everything

    @Test func lostWritesAndABatchWithoutPathsStartARunThatReadsEverything() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.settle(log: log),
                TriggerJobs.job("triage", reads: ["reports"], triggers: ["reports"], log: log),
            ], toml: Self.toml)
        try await Self.startUpRuns(h, ["settle", "triage"])

        try h.store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        h.store.announceLost(["transactions"], reason: "the inotify queue overflowed")
        try await h.events.next { $0 == .changesLost(collections: ["transactions"], reason: "the inotify queue overflowed") }
        try await h.events.next { $0 == .changesSeen(job: "settle", count: nil, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "settle", paths: nil, count: 0) }
        try await h.events.next { Self.isFinished($0, "settle") }

        // A statement that wrote too many rows to list.
        h.store.announce(ChangeBatch(collection: "reports", paths: nil))
        try await h.events.next { $0 == .changesSeen(job: "triage", count: nil, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "triage", paths: nil, count: 0) }
        try await h.events.next { Self.isFinished($0, "triage") }
        try await h.stop()

        #expect(log.of("settle").map(\.changes) == [nil, nil])
        #expect(log.of("triage").map(\.changes) == [nil, nil])
        let lostRun = try #require(try h.records("settle").last)
        #expect(lostRun.trigger == .write)
        #expect(lostRun.json["triggeredBy"] == .object(JSONObject([("paths", .array([])), ("count", .int(0))])))
        #expect(h.log.all.contains { $0.hasPrefix("warning writes may have been missed; the jobs they trigger read everything once: the inotify queue overflowed") })
        #expect(Self.triggeredCount(h, "triage") == 2)
    }

    // MARK: - Several daemons, retries

    @Test func writesAnotherDaemonTookStartNoRunAndNoRecord() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock, jobs: [TriggerJobs.settle(log: log)], toml: Self.toml)
        try await Self.startUpRuns(h, ["settle"])
        // Another daemon on the store: it watches too, and takes the batch first.
        let other = try #require(try h.store.changeFeed(collections: ["transactions"]))
        var otherFeed = other.makeAsyncIterator()
        try h.store.write("transactions/g1", "{}")
        guard case .changed(let batch)? = await otherFeed.next(), let sequence = batch.sequence else {
            Issue.record("the store announced no numbered batch")
            return
        }
        #expect(try await h.store.claimChanges(job: "settle", sequences: [sequence], holder: "another daemon") == [sequence])
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g1"], count: 1) }
        try await h.events.next { $0 == .changesClaimedElsewhere(job: "settle") }
        try await h.events.sleeping(until: Self.midnight)
        try await h.stop()
        #expect(log.of("settle").map(\.changes) == [nil])
        #expect(try h.records("settle").count == 1)
    }

    @Test func aRetryOfATriggeredRunTakesTheSameWrites() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.settle(log: log) { ctx in
                    // The first triggered attempt fails.
                    if ctx.changes != nil, log.of("settle").filter({ $0.changes != nil }).count == 1 { throw Refused() }
                }
            ], toml: "[jobs.settle]\nretries = 1\nbackoff = { min = \"1s\", max = \"1s\" }\n")
        try await Self.startUpRuns(h, ["settle"])
        try h.store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .finished(job: "settle", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .failed) }
        let retry = try await h.events.next { if case .retryScheduled("settle", _, 2, _) = $0 { true } else { false } }
        guard case .retryScheduled(_, _, _, let at) = retry else { return }
        // A write meanwhile waits for the retry, then has its own run.
        try h.store.write("transactions/g2", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(to: at)
        try await h.events.next { $0 == .finished(job: "settle", logicalTime: Self.after(0.02), trigger: .retry, attempt: 2, status: .succeeded) }
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g2"], count: 1) }
        try await h.events.next { Self.isFinished($0, "settle") }
        try await h.stop()
        #expect(log.of("settle").map(\.changes) == [nil, Self.changes("transactions/g1"), Self.changes("transactions/g1"), Self.changes("transactions/g2")])
        // The retry's lag runs from the write it took (t0) to its end.
        #expect(h.metricLines("hearth_trigger_lag_seconds_count{job=\"settle\"}") == ["hearth_trigger_lag_seconds_count{job=\"settle\"} 2"])
    }

    // MARK: - Reload

    @Test func aReloadThatAddsTriggersWatchesTheNewCollectionsAndEachTriggeredJobReadsEverythingOnce() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let withTriage = Locked(false)
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.settle(log: log),
                TriggerJobs.job("triage", reads: ["reports"], triggers: ["reports"], log: log),
            ], toml: Self.toml + "[jobs.triage]\ntriggers = []\n",
            reloadSource: { Self.toml + (withTriage.value ? "" : "[jobs.triage]\ntriggers = []\n") })
        try await Self.startUpRuns(h, ["settle"])
        withTriage.value = true
        await h.daemon.reload()
        // The old feed is closed once the new one is open: what it still held is lost, so both jobs
        // read everything.
        try await h.events.next { $0 == .triggered(job: "settle", paths: nil, count: 0) }
        try await h.events.next { $0 == .triggered(job: "triage", paths: nil, count: 0) }
        try await h.events.next { Self.isFinished($0, "triage") }
        try h.store.write("reports/r1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "triage", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "triage", paths: ["reports/r1"], count: 1) }
        try await h.events.next { Self.isFinished($0, "triage") }
        #expect(h.store.openChangeFeeds == 1)
        try await h.stop()
        #expect(h.store.openChangeFeeds == 0)
        #expect(log.of("triage").map(\.changes) == [nil, Self.changes("reports/r1")])
        #expect(log.of("settle").map(\.changes) == [nil, nil])
    }
}

extension SchedulerDaemonTriggerTests {
    @Test func twoDaemonsOnOneStoreStartOneRunForOneWrite() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let store = try InMemoryStore()
        let jobs = [TriggerJobs.settle(log: log)]
        let first = try TriggerHarness(clock: clock, store: store, jobs: jobs, toml: Self.toml)
        let second = try TriggerHarness(clock: clock, store: store, jobs: jobs, toml: Self.toml)
        // Each runs once at start: a run that reads everything always runs.
        try await Self.startUpRuns(first, ["settle"])
        try await Self.startUpRuns(second, ["settle"])

        try store.write("transactions/g1", "{}")
        try await first.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        try await second.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        var outcomes: [SchedulerEvent] = []
        for h in [first, second] {
            try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g1"], count: 1) }
            outcomes.append(try await h.events.next { e in
                e == .changesClaimedElsewhere(job: "settle") || Self.isFinished(e, "settle")
            })
        }
        try await first.stop()
        try await second.stop()
        #expect(outcomes.filter { $0 == .changesClaimedElsewhere(job: "settle") }.count == 1)
        #expect(outcomes.contains(.finished(job: "settle", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .succeeded)))
        #expect(log.of("settle").map(\.changes) == [nil, nil, Self.changes("transactions/g1")])
        #expect(try store.runRecords(job: "settle", status: nil, limit: nil).count == 3)
    }
}

extension SchedulerDaemonTriggerTests {
    @Test func aSlotThatComesWhileATriggeredRunRunsFollowsTheOverlapPolicy() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let (gate, running) = (Gate(), Gate())
        let noon = SchedulerDaemonTests.at("2026-11-18T12:00:00Z")
        let h = try TriggerHarness(
            clock: clock,
            jobs: [
                TriggerJobs.settle(log: log) { ctx in
                    guard ctx.changes != nil else { return }
                    await running.open()
                    await gate.wait()
                }
            ], toml: Self.toml + "[jobs.settle]\nschedule = \"0 12 * * *\"\n")
        try await h.events.next(timeout: .seconds(60)) { Self.isFinished($0, "settle") }
        try await h.events.sleeping(until: noon)
        try h.store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        await running.wait()
        clock.advance(to: noon)
        try await h.events.next { $0 == .skipped(job: "settle", logicalTime: noon, status: .skippedOverlap) }
        await gate.open()
        try await h.events.next { $0 == .finished(job: "settle", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .succeeded) }
        try await h.stop()
        #expect(try h.records("settle").map(\.status) == [.succeeded, .succeeded, .skippedOverlap])
    }
}

extension SchedulerDaemonTriggerTests {
    @Test func jitterDoesNotDelayATriggeredRun() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let h = try TriggerHarness(
            clock: clock, jobs: [TriggerJobs.settle(log: log)],
            toml: "[defaults]\nretries = 0\njitter = \"10m\"\n")
        try await Self.startUpRuns(h, ["settle"])
        try h.store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .finished(job: "settle", logicalTime: Self.after(0.02), trigger: .write, attempt: 1, status: .succeeded) }
        try await h.stop()
        #expect(!h.events.all.contains { if case .delayed = $0 { true } else { false } })
        #expect(try h.records("settle").map(\.start) == [Self.t0, Self.after(0.02)])
    }
}

extension SchedulerDaemonTriggerTests {
    @Test func onAStoreWithoutAChangeFeedOnlyTheScheduleRunsAndTheDaemonSaysSoOnce() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let store = try InMemoryStore()
        store.changeFeedSupport = .none
        let withTriage = Locked(false)
        let h = try TriggerHarness(
            clock: clock, store: store,
            jobs: [
                TriggerJobs.settle(log: log),
                TriggerJobs.job("triage", reads: ["reports"], triggers: ["reports"], log: log),
            ], toml: Self.toml + "[jobs.triage]\ntriggers = []\n",
            reloadSource: { Self.toml + (withTriage.value ? "" : "[jobs.triage]\ntriggers = []\n") })
        try await h.events.next(timeout: .seconds(60)) { $0 == .sleeping(until: Self.midnight) }
        try store.write("transactions/g1", "{}")
        // A reload that changes the collections asks again: still none, not logged again.
        withTriage.value = true
        await h.daemon.reload()
        try await h.events.next { $0 == .reloaded }
        try await h.events.sleeping(until: Self.midnight)
        try await h.stop()
        #expect(log.all.isEmpty)
        #expect(Self.triggeredCount(h, "settle") == 0)
        #expect(h.log.all.filter { $0.hasPrefix("notice the store has no change feed: writes do not start runs, only the schedule does") }.count == 1)
    }

    @Test func aFeedThatCannotBeOpenedIsLoggedAndAReloadTriesAgain() async throws {
        let clock = ManualSchedulerClock(Self.t0)
        let log = TriggerJobs.Log()
        let store = try InMemoryStore()
        store.changeFeedSupport = .failing("inotify_add_watch: no space left on device (raise fs.inotify.max_user_watches)")
        let h = try TriggerHarness(
            clock: clock, store: store, jobs: [TriggerJobs.settle(log: log)],
            toml: Self.toml, reloadSource: { Self.toml })
        try await h.events.next(timeout: .seconds(60)) { $0 == .sleeping(until: Self.midnight) }
        #expect(h.log.all.contains { $0.hasPrefix("error cannot watch for writes; only the schedule starts runs: inotify_add_watch: no space left on device") })
        #expect(log.all.isEmpty)

        store.changeFeedSupport = .available
        await h.daemon.reload()
        // Now watched: the job reads everything once, then writes start it.
        try await h.events.next { $0 == .triggered(job: "settle", paths: nil, count: 0) }
        try await h.events.next { Self.isFinished($0, "settle") }
        try store.write("transactions/g1", "{}")
        try await h.events.next { $0 == .changesSeen(job: "settle", count: 1, chain: 0) }
        clock.advance(by: 0.02)
        try await h.events.next { $0 == .triggered(job: "settle", paths: ["transactions/g1"], count: 1) }
        try await h.events.next { Self.isFinished($0, "settle") }
        try await h.stop()
        #expect(log.of("settle").map(\.changes) == [nil, Self.changes("transactions/g1")])
    }
}
