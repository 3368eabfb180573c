import Foundation
import Testing
import HearthKit
import HearthTestSupport

/// docs/callables.md#several-daemons: any daemon answers any call, and the commit's version
/// check keeps calls that spend the same points apart. A burst of concurrent `send-gift` calls,
/// many of them from the same few senders at once, against two daemons on one PostgreSQL
/// database (and against one daemon on a data directory): every answer must be what was
/// committed, and no point spent twice.
///
/// Tokens: `Tests/Servers/id_tokens.py` makes an RSA key, writes its JWKS file (`[auth]
/// jwksFile`) and signs an ID token per user.
@Suite("calls on several daemons")
struct PostgresCallTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let issuer = "https://securetoken.google.com/hearth-calls"
    static let audience = "hearth-calls"

    /// Twelve users who give to each other, three of them (`u01`–`u03`) the senders of most
    /// gifts; `r1` and `r2` for the requestId race.
    static let users = (1...12).map { String(format: "u%02d", $0) }
    static let requestUsers = ["r1", "r2"]

    struct Gift: Sendable {
        var from: String
        var to: String
        var amount: Int
    }

    /// Each user's points (0–100), and `count` gifts: 60 % from `u01`–`u03`, the rest from
    /// anyone, to anyone else, 1–25 points each.
    static func draw(count: Int, rng: inout SplitMix64) -> (points: [String: Int], gifts: [Gift]) {
        var points: [String: Int] = [:]
        for u in users { points[u] = Int.random(in: 0...100, using: &rng) }
        let gifts = (0..<count).map { _ -> Gift in
            let from = Int.random(in: 0..<10, using: &rng) < 6 ? users[Int.random(in: 0..<3, using: &rng)] : users[Int.random(in: 0..<users.count, using: &rng)]
            let others = users.filter { $0 != from }
            return Gift(from: from, to: others[Int.random(in: 0..<others.count, using: &rng)], amount: Int.random(in: 1...25, using: &rng))
        }
        return (points, gifts)
    }

    // MARK: - Tests

    @Test func twoDaemonsOnPostgresAnswerEveryCallAsCommittedAndSpendNoPointTwice() async throws {
        let seed = try TestSeed()
        try await Self.burst(postgres: true, daemons: 2, seed: seed)
    }

    @Test func oneDaemonOnADataDirectoryAnswersEveryCallAsCommittedAndSpendsNoPointTwice() async throws {
        let seed = try TestSeed()
        try await Self.burst(postgres: false, daemons: 1, seed: seed)
    }

    /// 200 gifts sent 32 at a time, each to a daemon drawn at random; then one gift with a
    /// `requestId` sent 10 times at once, spread over the daemons; then every check.
    static func burst(postgres: Bool, daemons count: Int, seed: TestSeed) async throws {
        var rng = seed.generator()
        let (initial, gifts) = draw(count: 200, rng: &rng)
        let temp = try TempDirectory("hearth-calls")
        defer { temp.remove() }
        let store = try await Store.prepare(temp, postgres: postgres, points: initial.merging(["r1": 1000, "r2": 0]) { a, _ in a })
        let tokens = try await Self.tokens(temp.path + "/jwks.json", for: users + requestUsers)

        var running: [Daemon] = []
        defer { for d in running where d.process.process.isRunning { kill(d.process.process.processIdentifier, SIGKILL) } }
        for _ in 0..<count { running.append(try await Daemon.start(store)) }

        func call(_ gift: Gift, on daemon: Int, requestID: String? = nil) -> HTTPSend.Exchange {
            var data = #"{"toUserId": "\#(gift.to)", "amount": \#(gift.amount)"#
            if let requestID { data += #", "requestId": "\#(requestID)""# }
            return HTTPSend.Exchange(
                method: "POST", url: running[daemon].base + "/call/send-gift",
                headers: ["Content-Type": "application/json", "Authorization": "Bearer " + (tokens[gift.from] ?? "")], body: #"{"data": \#(data)}}"#)
        }
        let sent = gifts.map { call($0, on: Int.random(in: 0..<count, using: &rng)) }
        let answers = try await HTTPSend.exchange(sent, concurrency: 32)
        let requestGift = Gift(from: "r1", to: "r2", amount: 40)
        let replays = try await HTTPSend.exchange((0..<10).map { call(requestGift, on: $0 % count, requestID: "gift-once") }, together: true)

        for d in running { try await d.stop() }
        let users = try await store.documents("users")
        let transactions = try await store.documents("transactions")
        let records = try await store.history("send-gift")

        // Every answer is a gift committed or refused for its balance (or, past 5 conflicts, ABORTED).
        var committed: [(gift: Gift, id: String, points: Int)] = []
        var refused = 0, aborted = 0
        for (i, (gift, answer)) in zip(gifts, answers).enumerated() {
            let body = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: Any] ?? [:]
            if answer.status == 200, let result = body["result"] as? [String: Any], let id = result["transactionId"] as? String, let points = result["points"] as? Int {
                #expect(result["status"] as? String == "completed", "call \(i): \(answer.body)")
                committed.append((gift, id, points))
            } else if answer.status == 400, let error = body["error"] as? [String: Any], error["status"] as? String == "FAILED_PRECONDITION" {
                #expect((error["details"] as? [String: Any])?["reason"] as? String == "insufficient_points", "call \(i): \(answer.body)")
                refused += 1
            } else if answer.status == 409, (body["error"] as? [String: Any])?["status"] as? String == "ABORTED" {
                aborted += 1
            } else {
                Issue.record("call \(i) (\(gift.from) → \(gift.to), \(gift.amount)): \(answer.status) \(answer.body) (\(seed))")
            }
        }
        let conflicts = records.reduce(0) { $0 + ($1["conflicts"] as? Int ?? 0) }
        print("send-gift burst, \(count) daemon(s) on \(postgres ? "PostgreSQL" : "a data directory"): \(committed.count) committed, \(refused) refused (insufficient_points), \(aborted) aborted; \(conflicts) conflicts re-run (\(seed))")
        // The burst did race: some gifts were refused for points others spent, some calls re-ran.
        #expect(!committed.isEmpty && refused > 0, "\(seed)")
        #expect(conflicts > 0, "no call re-ran on a conflict: the burst did not race (\(seed))")

        // Each committed answer is its transaction, as asked, and no transaction is without its answer.
        let burstTransactions = transactions.filter { !$0.key.hasPrefix("gift-r1-") }
        #expect(Set(committed.map(\.id)).count == committed.count, "\(seed)")
        #expect(burstTransactions.count == committed.count, "\(burstTransactions.count) transactions for \(committed.count) answers 200 (\(seed))")
        for c in committed {
            let t = transactions[c.id] ?? [:]
            let got = "\(t["status"] as? String ?? "-") \(t["fromUserId"] as? String ?? "-") → \(t["toUserId"] as? String ?? "-") \(t["amount"] as? Int ?? -1)"
            #expect(got == "completed \(c.gift.from) → \(c.gift.to) \(c.gift.amount)", "\(c.id) (\(seed))")
        }
        // One run record per call; the answered OK are exactly the committed ones, the others wrote nothing.
        let calls = records.filter { ($0["call"] as? [String: Any])?["uid"] as? String != "r1" }
        #expect(calls.count == gifts.count, "\(seed)")
        var okIDs: Set<String> = []
        for r in calls {
            let call = r["call"] as? [String: Any] ?? [:]
            let id = "gift-\(call["uid"] as? String ?? "")-\(r["runId"] as? String ?? "")"
            if call["answer"] as? String == "OK" { okIDs.insert(id) } else { #expect(transactions[id] == nil, "\(r) wrote \(id) (\(seed))") }
        }
        #expect(okIDs == Set(committed.map(\.id)), "\(seed)")
        #expect(records.count == gifts.count + replays.count, "\(seed)")

        // The points: none below zero, none made or lost, each user's as the committed gifts say.
        let points = users.mapValues { $0["points"] as? Int ?? -1 }
        #expect(points.values.allSatisfy { $0 >= 0 }, "\(points) (\(seed))")
        let total: Int = points.values.reduce(0, +), initialTotal: Int = initial.values.reduce(0, +) + 1000
        #expect(total == initialTotal, "\(seed)")
        for u in Self.users {
            let sent = committed.filter { $0.gift.from == u }, received = committed.filter { $0.gift.to == u }
            let want = initial[u]! - sent.reduce(0) { $0 + $1.gift.amount } + received.reduce(0) { $0 + $1.gift.amount }
            #expect(points[u] == want, "\(u) (\(seed))")
            let figures = [users[u]?["giftsGiven"] as? Int, users[u]?["giftsReceived"] as? Int]
            #expect(figures == [sent.count, received.count], "\(u): giftsGiven, giftsReceived (\(seed))")
        }
        // Each answer's points: the committed gifts have one order in which every sender is left
        // with the points its answer said.
        let order = serialOrder(initial, committed.map { ($0.gift, $0.points) })
        #expect(order != nil, """
            no order of the committed gifts gives every answer's points (\(seed)); from \(initial.sorted { $0.key < $1.key }), \
            the gifts (from → to amount = points): \(committed.map { "\($0.gift.from) → \($0.gift.to) \($0.gift.amount) = \($0.points)" })
            """)

        // The same requestId ten times at once: one gift, every answer it.
        let once = "gift-r1-gift-once"
        for (i, r) in replays.enumerated() {
            #expect(r.json == #"{"result":{"points":960,"status":"completed","transactionId":"\#(once)"}}"#, "replay \(i) on daemon \(i % count): \(r.status) \(r.body)")
        }
        #expect(transactions.keys.filter { $0.hasPrefix("gift-r1-") } == [once])
        #expect([points["r1"], points["r2"]] == [960, 40])
        #expect([users["r1"]?["giftsGiven"] as? Int, users["r2"]?["giftsReceived"] as? Int] == [1, 1])
    }

    /// An order of `gifts` (each its sender's gift and the points its answer said the sender
    /// has after it) in which, from `initial`, each leaves its sender with exactly those points;
    /// nil when there is none. Depth-first over the gifts that fit the balances, those whose
    /// receiver has no gift of its own that fits first; the sets of gifts already found to lead
    /// nowhere are remembered (the balances follow from the set), so orders of gifts that touch
    /// different users are not tried twice.
    static func serialOrder(_ initial: [String: Int], _ gifts: [(gift: Gift, points: Int)]) -> [Int]? {
        var balance = initial
        var used = [UInt64](repeating: 0, count: gifts.count / 64 + 1)
        var deadEnds: Set<[UInt64]> = []
        var order: [Int] = []
        func search() -> Bool {
            if order.count == gifts.count { return true }
            if deadEnds.contains(used) { return false }
            let fitting = gifts.indices.filter { i in
                used[i / 64] & (1 << (i % 64)) == 0 && gifts[i].points >= 0 && balance[gifts[i].gift.from, default: 0] - gifts[i].gift.amount == gifts[i].points
            }
            let senders = Set(fitting.map { gifts[$0].gift.from })
            for i in fitting.filter({ !senders.contains(gifts[$0].gift.to) }) + fitting.filter({ senders.contains(gifts[$0].gift.to) }) {
                let g = gifts[i].gift
                used[i / 64] |= 1 << (i % 64)
                balance[g.from, default: 0] -= g.amount
                balance[g.to, default: 0] += g.amount
                order.append(i)
                if search() { return true }
                used[i / 64] &= ~(1 << (i % 64))
                balance[g.from, default: 0] += g.amount
                balance[g.to, default: 0] -= g.amount
                order.removeLast()
            }
            deadEnds.insert(used)
            return false
        }
        return search() ? order : nil
    }

    /// An ID token per uid, signed with a fresh key whose JWKS is written to `jwks`.
    static func tokens(_ jwks: String, for uids: [String]) async throws -> [String: String] {
        guard let python = ExternalTool.find(["python3"]) else { throw ExternalTool.Missing(what: "python3") }
        let r = try await ExternalTool.run(python, [repo + "/Tests/Servers/id_tokens.py", "--jwks", jwks, "--issuer", issuer, "--audience", audience] + uids)
        if r.status == 3 { throw ExternalTool.Missing(what: r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(r.status == 0, "id_tokens.py: \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: String])
    }

    // MARK: - The store and the daemons

    /// The users in a PostgreSQL database (`hearth migrate` + `hearth data import`) or a data
    /// directory, and a config with only `send-gift` enabled, `[auth]` and `[server]` on a free port.
    struct Store {
        var temp: TempDirectory
        var config: [String]
        var environment: [String: String]
        /// The database's URL; nil: the data directory `temp/data`.
        var url: String?

        static func prepare(_ temp: TempDirectory, postgres: Bool, points: [String: Int]) async throws -> Store {
            try FileManager.default.createDirectory(atPath: temp.path + "/data/users", withIntermediateDirectories: true)
            for (id, p) in points {
                try temp.write("data/users/\(id).json", #"{"name": "User \#(id)", "username": "\#(id)", "points": \#(p), "totalPointsEarned": 500, "giftsGiven": 0, "giftsReceived": 0}"#)
            }
            let list = try await HearthProcess.run(["list", "--data", temp.path + "/data", "--format", "json"])
            try #require(list.status == 0, "\(list.stderr)")
            let jobs = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["job"] as? String } ?? []
            let url = postgres ? try await PostgresServer.shared().database() : nil
            try temp.write("hearth.toml", (url == nil ? "dataDir = \(tomlString(temp.path + "/data"))\n" : "") + """
                shutdownGrace = "10s"
                historyLimit = 1000
                \(url == nil ? "" : "[store]\nkind = \"postgres\"\nurlEnv = \"HEARTH_TEST_PG\"\n")[auth]
                jwksFile = "jwks.json"
                issuer = "\(PostgresCallTests.issuer)"
                audience = "\(PostgresCallTests.audience)"
                [server]
                listen = "127.0.0.1:0"
                \(jobs.filter { $0 != "send-gift" }.map { "[jobs.\($0)]\nenabled = false\n" }.joined())
                """)
            let store = Store(temp: temp, config: ["--config", temp.path + "/hearth.toml"], environment: url.map { ["HEARTH_TEST_PG": $0] } ?? [:], url: url)
            if url != nil {
                for step in [["migrate"], ["data", "import", temp.path + "/data"]] {
                    let r = try await HearthProcess.run(step + store.config, environment: store.environment)
                    try #require(r.status == 0, "hearth \(step[0]): \(r.stderr)")
                }
            }
            return store
        }

        /// A collection's documents by id.
        func documents(_ collection: String) async throws -> [String: [String: Any]] {
            var texts: [String: String] = [:]
            if let url {
                let r = try await ExternalTool.run("/usr/bin/psql", [url, "-qXAt", "-F", "\t", "-c", "SELECT id, data::text FROM documents WHERE collection = '\(collection)'"])
                try #require(r.status == 0, "\(r.stderr)")
                for line in r.stdout.split(separator: "\n") {
                    let parts = line.split(separator: "\t", maxSplits: 1)
                    if parts.count == 2 { texts[String(parts[0])] = String(parts[1]) }
                }
            } else {
                let dir = temp.path + "/data/" + collection
                for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.hasSuffix(".json") {
                    texts[String(name.dropLast(5))] = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
                }
            }
            return texts.compactMapValues { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        }

        /// The job's run records.
        func history(_ job: String) async throws -> [[String: Any]] {
            let r = try await HearthProcess.run(["history", job, "--limit", "5000", "--format", "json"] + config, environment: environment)
            try #require(r.status == 0, "\(r.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        }
    }

    struct Daemon {
        var process: HearthProcess.Running
        var stderr: StderrCollector
        var port: Int
        var base: String { "http://127.0.0.1:\(port)" }

        /// Started, and ready once it says on which port its endpoint listens.
        static func start(_ store: Store) async throws -> Daemon {
            let process = try HearthProcess.start(["daemon"] + store.config, in: store.temp.path, environment: store.environment)
            let stderr = StderrCollector(process.stderrPipe)
            try await stderr.waitFor("HTTP endpoint listening", timeout: .seconds(120))
            let port = stderr.text.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5).prefix { $0.isNumber }) }
            return Daemon(process: process, stderr: stderr, port: try #require(port, "no port in: \(stderr.text)"))
        }

        /// SIGTERM, and a clean exit.
        func stop() async throws {
            kill(process.process.processIdentifier, SIGTERM)
            await process.waitForExit()
            let text = try await stderr.untilEnd()
            #expect(process.process.terminationStatus == 0, "\(text)")
        }
    }
}
