import Foundation
import Testing
import HearthKit
import HearthTestSupport

/// docs/operations/high-availability.md#jobs-whose-rule-is-an-order: with two daemons on one
/// PostgreSQL database, gift-settle triggered by an app's `INSERT`s settles every gift as if one
/// at a time in `createdAt` order — also when one daemon is killed in the middle of the burst.
///
/// The app's server inserts pending gifts one `INSERT` at a time, each created after the one
/// before, drawn so that points flow on: a user who just received a gift most often gives on
/// at once (the chain that fails when a later gift is decided before an earlier one settled),
/// and one gift in eight asks for more than its sender will have (it must fail). The test
/// settles the same gifts in order itself (``settleInOrder(_:_:)``) and compares every gift's
/// outcome and every balance with what the daemons committed.
@Suite("gift order across daemons on PostgreSQL")
struct PostgresGiftOrderTests {
    struct Gift: Sendable {
        var id: String
        var from: String
        var to: String
        var amount: Int
        var createdAt: Date
    }

    /// What settling `gifts` one at a time in `createdAt` order leaves: each gift's outcome
    /// (`completed`, `failed insufficient_points`) and every user's points.
    static func settleInOrder(_ points: [String: Int], _ gifts: [Gift]) -> (outcomes: [String: String], points: [String: Int]) {
        var points = points
        var outcomes: [String: String] = [:]
        for g in gifts.sorted(by: { $0.createdAt < $1.createdAt }) {
            if points[g.from, default: 0] < g.amount {
                outcomes[g.id] = "failed insufficient_points"
            } else {
                points[g.from, default: 0] -= g.amount
                points[g.to, default: 0] += g.amount
                outcomes[g.id] = "completed"
            }
        }
        return (outcomes, points)
    }

    /// 24 users, 6 of them with 100 points and the others with none, and `count` gifts drawn
    /// from the balances the gifts before them leave.
    static func draw(count: Int, rng: inout SplitMix64, start: Date) -> (points: [String: Int], gifts: [Gift]) {
        let users = (0..<24).map { String(format: "o%02d", $0) }
        var points = Dictionary(uniqueKeysWithValues: users.enumerated().map { ($0.element, $0.offset < 6 ? 100 : 0) })
        let initial = points
        var gifts: [Gift] = []
        var lastReceiver: String?
        for i in 0..<count {
            let able = users.filter { points[$0]! >= 10 }
            let from = if let r = lastReceiver, points[r]! >= 10, Int.random(in: 0..<10, using: &rng) < 7 { r } else { able[Int.random(in: 0..<able.count, using: &rng)] }
            let others = users.filter { $0 != from }
            let to = others[Int.random(in: 0..<others.count, using: &rng)]
            let balance = points[from]!
            let amount = Int.random(in: 0..<8, using: &rng) == 0 ? balance + 5 : Int.random(in: 10...min(balance, 80), using: &rng)
            if amount <= balance {
                points[from]! -= amount
                points[to]! += amount
                lastReceiver = to
            }
            gifts.append(Gift(id: String(format: "g%04d", i), from: from, to: to, amount: amount, createdAt: start.addingTimeInterval(Double(i) * 0.001)))
        }
        return (initial, gifts)
    }

    /// One round; `HEARTH_GIFT_ORDER_ROUNDS=50` runs 50, each on a new database with a seed drawn
    /// from the one before (each round prints its own, which replays it as a first round).
    @Test func twoDaemonsOneKilledMidBurstSettleEveryGiftAsInCreatedAtOrder() async throws {
        let rounds = Int(ProcessInfo.processInfo.environment["HEARTH_GIFT_ORDER_ROUNDS"] ?? "") ?? 1
        var seed = try TestSeed()
        for round in 1...max(1, rounds) {
            var rng = seed.generator()
            try await Self.round(seed: seed, rng: &rng)
            if round < rounds { seed = try TestSeed(fixed: rng.next(), environment: [:]) }
        }
    }

    static func round(seed: TestSeed, rng: inout SplitMix64) async throws {
        let temp = try TempDirectory("hearth-pg-gift-order")
        defer { temp.remove() }
        let (config, environment, url) = try await PostgresTriggerTests.giftSettleOnly(temp, giftSettle: "triggerDelay = \"10ms\"\n")

        let (initial, gifts) = Self.draw(count: 200, rng: &rng, start: Date().addingTimeInterval(-60))
        try FileManager.default.createDirectory(atPath: temp.path + "/data/users", withIntermediateDirectories: true)
        for (id, points) in initial {
            try temp.write("data/users/\(id).json", #"{"name": "User \#(id)", "username": "\#(id)", "points": \#(points), "totalPointsEarned": 500}"#)
        }
        #expect(try await HearthProcess.run(["migrate"] + config, environment: environment).status == 0)
        #expect(try await HearthProcess.run(["data", "import", temp.path + "/data"] + config, environment: environment).status == 0)

        func startDaemon() throws -> HearthProcess.Running {
            try HearthProcess.start(["daemon", "--log-level", "debug"] + config, environment: environment)
        }
        var daemons = try [startDaemon(), startDaemon()]
        defer { for d in daemons where d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        let changes = ChangeNotifier()
        var stderrs = daemons.map { StderrCollector($0.stderrPipe, changes: changes) }
        func lines(_ text: String, _ needle: String) -> Int {
            text.split(separator: "\n").filter { $0.contains(needle) && $0.contains(" job=gift-settle ") }.count
        }
        // Each daemon runs gift-settle once at start, reading everything.
        try await StderrCollector.wait("a run of gift-settle on each daemon", for: stderrs, timeout: .seconds(30)) { $0.allSatisfy { lines($0, "run succeeded ") >= 1 } }

        // The app's server: one INSERT at a time, in createdAt order.
        var script = "\\set ON_ERROR_STOP 1\n"
        for g in gifts {
            let raw = #"{"type": "gift", "status": "pending", "fromUserId": "\#(g.from)", "toUserId": "\#(g.to)", "amount": \#(g.amount), "message": "thanks", "createdAt": "\#(Timestamp.format(g.createdAt))"}"#
            script += "INSERT INTO documents (collection, id, raw, version) VALUES ('transactions', '\(g.id)', '\(raw)', nextval('document_versions'));\n"
            script += "SELECT pg_sleep(0.002);\n"
        }
        let inserted = Locked(false)
        let inserter = Task {
            defer { inserted.value = true; changes.notify() }
            return try await ExternalTool.run("/usr/bin/psql", [url, "-qXAt", "-o", "/dev/null", "-f", "-"], stdin: script)
        }

        // Daemon 0 is killed once its k-th triggered run starts (or once the burst is in, if it
        // never gets that many), and started again, as systemd would.
        let k = Int.random(in: 1...4, using: &rng)
        try await stderrs[0].wait("daemon 0's run \(k) started by writes, or the burst's end", timeout: .seconds(60)) { text in
            inserted.value || text.split(separator: "\n").filter { $0.contains("run starting") && $0.contains("job=gift-settle") && $0.contains("trigger=write") }.count >= k
        }
        kill(daemons[0].process.processIdentifier, SIGKILL)
        await daemons[0].waitForExit()
        let killedLog = stderrs[0].text
        daemons[0] = try startDaemon()
        stderrs[0] = StderrCollector(daemons[0].stderrPipe, changes: changes)

        let insert = try await inserter.value
        #expect(insert.status == 0, "\(insert.stderr)")
        // Until no gift is pending.
        let pendingQuery = "SELECT count(*) FROM documents WHERE collection = 'transactions' AND data->>'status' = 'pending'"
        var pending = -1
        try await eventually("no gift pending (\(pending) still are; \(seed))", timeout: .seconds(90), pollEvery: .milliseconds(100)) {
            pending = Int(try await ExternalTool.run("/usr/bin/psql", [url, "-qXAt", "-c", pendingQuery]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            return pending == 0
        }
        for d in daemons { kill(d.process.processIdentifier, SIGTERM) }
        for (d, s) in zip(daemons, stderrs) {
            await d.waitForExit()
            _ = try await s.untilEnd()
        }

        let expected = Self.settleInOrder(initial, gifts)
        let rows = try await ExternalTool.run("/usr/bin/psql", [url, "-qXAt", "-F", "\t", "-c",
            "SELECT collection, id, coalesce(data->>'status', ''), coalesce(data->>'failureReason', ''), coalesce(data->>'points', '') FROM documents WHERE collection IN ('transactions', 'users') ORDER BY collection, id"])
        var outcomes: [String: String] = [:]
        var points: [String: Int] = [:]
        for line in rows.stdout.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 5 else { continue }
            if f[0] == "transactions" { outcomes[f[1]] = [f[2], f[3]].filter { !$0.isEmpty }.joined(separator: " ") } else { points[f[1]] = Int(f[4]) }
        }
        let wrong = gifts.filter { outcomes[$0.id] != expected.outcomes[$0.id] }.map {
            "\($0.id) \($0.from)→\($0.to) \($0.amount): \(outcomes[$0.id] ?? "absent"), in order \(expected.outcomes[$0.id] ?? "")"
        }
        #expect(wrong.count == 0, "\(wrong.count) of \(gifts.count) gifts not as settled in createdAt order (\(seed)), first: \(wrong.prefix(5))")
        #expect(points == expected.points, "balances differ from createdAt order (\(seed))")
        #expect(points.values.reduce(0, +) == initial.values.reduce(0, +), "points were created or lost (\(seed))")
        #expect(expected.outcomes.values.contains("failed insufficient_points") && expected.outcomes.values.contains("completed"))
        print("gift order: \(gifts.count) gifts, daemon 0 killed at its triggered run \(k) (\(lines(killedLog, "run succeeded ")) runs done), \(wrong.count) differences (\(seed))")
    }
}
