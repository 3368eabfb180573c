import Foundation
import Testing
import HearthKit
import HearthTestSupport

/// docs/triggers.md against the real `hearth daemon` on a data directory: writes by other
/// processes start runs (exactly one per burst of writes, none for a job's own commit), a commit
/// starts the jobs that read what it wrote, and writes made while no daemon watched — or while a
/// daemon was killed mid-burst — are settled once when it starts again.
@Suite("Triggers end to end")
struct TriggerEndToEndTests {
    /// A data directory with `users` campus users of `points` points, and a config running only
    /// `jobs` (``writeConfig(_:running:)``).
    static func setUp(_ dir: TempDirectory, users: Int = 8, points: Int = 100, jobs: [String] = ["gift-settle"]) async throws {
        for u in 0..<users {
            try dir.write("data/users/u\(u).json", #"{"name": "User \#(u)", "username": "user\#(u)", "points": \#(points)}"#)
        }
        try FileManager.default.createDirectory(atPath: dir.path + "/data/transactions", withIntermediateDirectories: true)
        try await writeConfig(dir, running: jobs)
    }

    /// `hearth.toml` over `data/`: `jobs` run (their slots on 1 January at noon, so only writes
    /// and the start start them), every other registered job disabled.
    static func writeConfig(_ dir: TempDirectory, running jobs: [String]) async throws {
        let list = try await HearthProcess.run(["list", "--data", "data", "--format", "json"], in: dir.path)
        let all = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["job"] as? String } ?? []
        var config = "dataDir = \"data\"\nshutdownGrace = \"5s\"\n"
        for name in all {
            config += jobs.contains(name) ? "[jobs.\(name)]\nschedule = \"0 12 1 1 *\"\n" : "[jobs.\(name)]\nenabled = false\n"
        }
        try dir.write("hearth.toml", config)
    }

    /// A pending gift created `order` seconds after an hour ago (gifts expire after 7 days).
    static func gift(_ from: Int, _ to: Int, amount: Int = 1, minute order: Int = 0) -> String {
        let created = Timestamp.format(start.addingTimeInterval(Double(order)))
        return #"{"type": "gift", "fromUserId": "u\#(from)", "toUserId": "u\#(to)", "amount": \#(amount), "status": "pending", "createdAt": "\#(created)"}"#
    }

    static let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))

    /// Writes `text` beside the folder and renames it into place, as an app (or `mv`) does.
    /// Through a close-on-exec descriptor (`Data.write` is not): a daemon another test spawns
    /// meanwhile would otherwise hold the file open for its life, and its close after the rename
    /// would be a write.
    static func rename(_ dir: TempDirectory, _ relative: String, _ text: String) throws {
        let staging = dir.path + "/staging-" + relative.replacingOccurrences(of: "/", with: "-")
        try TempDirectory.writeFile(staging, text)
        try FileManager.default.createDirectory(atPath: (dir.path + "/" + relative as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: staging, toPath: dir.path + "/" + relative)  // rename(2)
    }

    /// The lines of `text` saying a run of `job` started by writes finished with `status`.
    static func triggeredRuns(_ text: String, job: String, status: String = "succeeded") -> Int {
        text.split(separator: "\n").filter { $0.contains("run \(status) ") && $0.contains(" job=\(job) ") && $0.contains("trigger=write") }.count
    }

    /// Waits until `stderr` shows `count` runs of `job` started by writes (`timeout`: 20 s).
    static func waitForTriggeredRuns(_ stderr: StderrCollector, job: String, count: Int, timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await stderr.wait("\(count) succeeded run(s) of \(job) started by writes", timeout: timeout, sourceLocation: sourceLocation) { triggeredRuns($0, job: job) >= count }
    }

    static func records(_ dir: TempDirectory, job: String) async throws -> [[String: Any]] {
        let r = try await HearthProcess.run(["history", job, "--config", "hearth.toml", "--limit", "10000", "--format", "json"], in: dir.path)
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    static func object(_ dir: TempDirectory, _ relative: String) -> [String: Any] {
        guard let text = dir.read(relative), let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return [:] }
        return o
    }

    @Test func aGiftRenamedIntoPlaceByAnotherProcessIsSettledByOneRunThatNamesIt() async throws {
        let dir = try TempDirectory("hearth-trigger")
        defer { dir.remove() }
        try await Self.setUp(dir)
        let daemon = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path)
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        let stderr = StderrCollector(daemon.stderrPipe)
        // At start each triggered job runs once, reading everything.
        try await Self.waitForTriggeredRuns(stderr, job: "gift-settle", count: 1)

        // Closed for the last time before the rename (a process another test spawns may hold
        // it until its exec): a later close would be a second write, and a fourth run.
        try await dir.writeClosed("g1.tmp", Self.gift(0, 1, amount: 5))
        let mv = try await ExternalTool.run("/bin/mv", [dir.path + "/g1.tmp", dir.path + "/data/transactions/g1.json"])
        #expect(mv.status == 0)
        try await Self.waitForTriggeredRuns(stderr, job: "gift-settle", count: 2)
        #expect(Self.object(dir, "data/transactions/g1.json")["status"] as? String == "completed")
        #expect(Self.object(dir, "data/users/u0.json")["points"] as? Int == 95)
        #expect(Self.object(dir, "data/users/u1.json")["points"] as? Int == 105)

        // Written in place (open, write, close): the run it starts names only g2 — the first
        // run's own commit (it rewrote transactions/g1) started nothing and joined nothing.
        try dir.write("data/transactions/g2.json", Self.gift(2, 3, amount: 7))
        try await Self.waitForTriggeredRuns(stderr, job: "gift-settle", count: 3)
        #expect(Self.object(dir, "data/transactions/g2.json")["status"] as? String == "completed")

        kill(daemon.process.processIdentifier, SIGTERM)
        await daemon.waitForExit()
        #expect(daemon.process.terminationStatus == 0)
        let records = try await Self.records(dir, job: "gift-settle").filter { $0["trigger"] as? String == "write" }
        #expect(records.count == 3)
        let named = records.compactMap { $0["triggeredBy"] as? [String: Any] }.map { ($0["paths"] as? [String] ?? [], $0["count"] as? Int ?? -1) }
        #expect(named.map(\.0) == [["transactions/g2"], ["transactions/g1"], []])
        #expect(named.map(\.1) == [1, 1, 0])
    }

    @Test func anXPAwardCommitStartsAchievementUnlock() async throws {
        let dir = try TempDirectory("hearth-trigger")
        defer { dir.remove() }
        let seed = try await HearthProcess.run(["seed", "--out", "data", "--users", "20", "--seed", "7"], in: dir.path)
        try #require(seed.status == 0, "\(seed.stderr)")
        try await Self.writeConfig(dir, running: ["xp-award", "achievement-unlock"])
        let daemon = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path)
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        let stderr = StderrCollector(daemon.stderrPipe)
        try await Self.waitForTriggeredRuns(stderr, job: "xp-award", count: 1)
        try await Self.waitForTriggeredRuns(stderr, job: "achievement-unlock", count: 1)
        let before = Self.triggeredRuns(stderr.text, job: "achievement-unlock")

        // A trade completed by the app: xp-award awards its XP (writing userXP), and that
        // commit starts achievement-unlock.
        let users = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/data/users").filter { $0.hasSuffix(".json") }.sorted().map { String($0.dropLast(5)) }
        try Self.rename(dir, "data/trades/trade-e2e.json", """
            {"creatorId": "\(users[0])", "participantId": "\(users[1])", "status": "completed", "completedAt": "\(Timestamp.format(Date()))", "createdAt": "\(Timestamp.format(Date().addingTimeInterval(-3600)))"}
            """)
        try await Self.waitForTriggeredRuns(stderr, job: "xp-award", count: 2)
        // achievement-unlock reads trades too, so the trade itself may start it first; the run
        // xp-award's commit starts names the userXP document it wrote (alone, or with the trade
        // when both writes came within one triggerDelay).
        var started: [String] = []
        for count in (before + 1)...(before + 2) {
            try await Self.waitForTriggeredRuns(stderr, job: "achievement-unlock", count: count)
            started = try await Self.records(dir, job: "achievement-unlock").filter { $0["trigger"] as? String == "write" }.flatMap {
                ($0["triggeredBy"] as? [String: Any])?["paths"] as? [String] ?? []
            }
            if started.contains(where: { $0.hasPrefix("userXP/") }) { break }
        }
        #expect(started.contains { $0.hasPrefix("userXP/") }, "runs started by: \(started); stderr: \(stderr.text)")
    }

    /// An app's call to award-xp writes `userXP`; that commit starts achievement-unlock as any
    /// other write does (docs/jobs/award-xp.md). The call is made with `hearth call`, another
    /// process than the daemon, which learns of it through its change feed.
    @Test func anAwardXPCallsCommitStartsAchievementUnlock() async throws {
        let dir = try TempDirectory("hearth-trigger")
        defer { dir.remove() }
        let seed = try await HearthProcess.run(["seed", "--out", "data", "--users", "20", "--seed", "7"], in: dir.path)
        try #require(seed.status == 0, "\(seed.stderr)")
        // award-xp disabled in the daemon: the call is made by hand (`hearth call` runs it anyway).
        try await Self.writeConfig(dir, running: ["achievement-unlock"])
        let daemon = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path)
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        let stderr = StderrCollector(daemon.stderrPipe)
        try await Self.waitForTriggeredRuns(stderr, job: "achievement-unlock", count: 1)

        let call = try await HearthProcess.run(["call", "award-xp", "--config", "hearth.toml", "--uid", "e2e-user", "--data", #"{"source": "daily_login"}"#], in: dir.path)
        #expect(call.status == 0, "\(call.stdout)\(call.stderr)")
        #expect(call.stdout.contains(#""awarded": true"#), "\(call.stdout)")
        try await Self.waitForTriggeredRuns(stderr, job: "achievement-unlock", count: 2)
        let started = try await Self.records(dir, job: "achievement-unlock").filter { $0["trigger"] as? String == "write" }.flatMap {
            ($0["triggeredBy"] as? [String: Any])?["paths"] as? [String] ?? []
        }
        #expect(started.contains("userXP/e2e-user"), "runs started by: \(started); stderr: \(stderr.text)")
        let awarded = try await Self.records(dir, job: "award-xp")
        #expect(awarded.map { $0["trigger"] as? String } == ["call"])
    }

    /// Every gift settled exactly once: each user's points, giftsGiven and giftsReceived are
    /// what the completed gifts say, and the points add up to what they started with.
    static func expectSettledOnce(_ dir: TempDirectory, gifts: [String: (from: Int, to: Int, amount: Int)], users: Int, points: Int, note: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        var expected = [Int](repeating: points, count: users)
        var given = [Int](repeating: 0, count: users)
        var received = [Int](repeating: 0, count: users)
        var pending = 0
        for (id, g) in gifts {
            switch object(dir, "data/transactions/\(id).json")["status"] as? String {
            case "completed":
                expected[g.from] -= g.amount
                expected[g.to] += g.amount
                given[g.from] += 1
                received[g.to] += 1
            case "pending": pending += 1
            case let status:
                // A gift fails only for want of points (every other rule holds for these gifts).
                let reason = object(dir, "data/transactions/\(id).json")["failureReason"] as? String
                #expect(status == "failed" && reason == "insufficient_points", "\(id): \(status ?? "no status"), \(reason ?? "no reason") \(note)", sourceLocation: sourceLocation)
            }
        }
        #expect(pending == 0, "\(pending) gift(s) still pending \(note)", sourceLocation: sourceLocation)
        var total = 0
        for u in 0..<users {
            let o = object(dir, "data/users/u\(u).json")
            let p = o["points"] as? Int ?? -1
            total += p
            #expect(p == expected[u], "u\(u): points \(note)", sourceLocation: sourceLocation)
            #expect(o["giftsGiven"] as? Int ?? 0 == given[u], "u\(u): giftsGiven \(note)", sourceLocation: sourceLocation)
            #expect(o["giftsReceived"] as? Int ?? 0 == received[u], "u\(u): giftsReceived \(note)", sourceLocation: sourceLocation)
        }
        #expect(total == users * points, "\(note)", sourceLocation: sourceLocation)
    }

    @Test func aDaemonKilledInABurstOfGiftsSettlesEachExactlyOnceAfterItStartsAgain() async throws {
        let seed = try TestSeed()
        var rng = seed.generator()
        let (users, points, count) = (12, 50, 300)
        let dir = try TempDirectory("hearth-trigger")
        defer { dir.remove() }
        try await Self.setUp(dir, users: users, points: points)
        var gifts: [String: (from: Int, to: Int, amount: Int)] = [:]
        let killAt = 60 + Int(rng.next() % 180)

        var daemon = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path)
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }   // the one running then
        var stderr = StderrCollector(daemon.stderrPipe)
        try await Self.waitForTriggeredRuns(stderr, job: "gift-settle", count: 1)
        for i in 0..<count {
            let from = Int(rng.next() % UInt64(users))
            let to = (from + 1 + Int(rng.next() % UInt64(users - 1))) % users
            let amount = 1 + Int(rng.next() % 20)
            gifts["b\(i)"] = (from, to, amount)
            try Self.rename(dir, "data/transactions/b\(i).json", Self.gift(from, to, amount: amount, minute: i))
            if i == killAt {
                kill(daemon.process.processIdentifier, SIGKILL)
                await daemon.waitForExit()
            }
        }
        // Started again: the run at start reads everything, so the gifts written while it was
        // down and any it was settling when killed are settled now.
        daemon = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path)
        stderr = StderrCollector(daemon.stderrPipe)
        try await Self.waitForTriggeredRuns(stderr, job: "gift-settle", count: 1, timeout: .seconds(60))
        kill(daemon.process.processIdentifier, SIGTERM)
        await daemon.waitForExit()
        Self.expectSettledOnce(dir, gifts: gifts, users: users, points: points, note: "replay with \(seed) (killed after gift \(killAt))")
    }

    @Test func aBurstFromFourWritersIsSettledOnceInFewerRunsThanGifts() async throws {
        let (users, points, perWriter) = (40, 1000, 250)
        let dir = try TempDirectory("hearth-trigger")
        defer { dir.remove() }
        try await Self.setUp(dir, users: users, points: points)
        let daemon = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path)
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        let stderr = StderrCollector(daemon.stderrPipe)
        try await Self.waitForTriggeredRuns(stderr, job: "gift-settle", count: 1)

        var gifts: [String: (from: Int, to: Int, amount: Int)] = [:]
        for w in 0..<4 {
            for k in 0..<perWriter {
                gifts["w\(w)-\(k)"] = (from: (w * 7 + k) % users, to: (w * 7 + k + 1 + w) % users, amount: 1 + k % 3)
            }
        }
        let plan = gifts
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<4 {
                group.addTask {
                    try await BlockingIO.run { () throws(any Error) in
                        for k in 0..<perWriter {
                            let g = plan["w\(w)-\(k)"]!
                            try Self.rename(dir, "data/transactions/w\(w)-\(k).json", Self.gift(g.from, g.to, amount: g.amount, minute: k))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Checked after each line on stderr: the run that settles the last gift logs its end.
        try await stderr.wait("every gift completed", timeout: .seconds(60)) { _ in
            plan.keys.allSatisfy { Self.object(dir, "data/transactions/\($0).json")["status"] as? String == "completed" }
        }
        kill(daemon.process.processIdentifier, SIGTERM)
        await daemon.waitForExit()
        Self.expectSettledOnce(dir, gifts: gifts, users: users, points: points)
        let runs = try await Self.records(dir, job: "gift-settle").filter { $0["trigger"] as? String == "write" }
        #expect(runs.count < 200, "\(runs.count) runs for \(gifts.count) gifts")
        #expect(runs.allSatisfy { $0["status"] as? String == "succeeded" })
    }
}
