import Foundation
import Testing
import HearthKit
import HearthTestSupport

/// docs/triggers.md on PostgreSQL against the real `hearth daemon`: an app's `INSERT` from
/// another connection starts a run through `LISTEN`/`NOTIFY`, and with two daemons on the
/// database each write starts one run across them.
@Suite("triggers on PostgreSQL end to end")
struct PostgresTriggerTests {
    static let needle = "writes taken by another daemon"

    /// A new database and a configuration `pg.toml` in `temp` that runs gift-settle alone, on
    /// writes only (its slot once a year), with `gift-settle` (more of its keys) appended.
    static func giftSettleOnly(_ temp: TempDirectory, giftSettle: String = "") async throws -> (config: [String], environment: [String: String], url: String) {
        let url = try await PostgresServer.shared().database()
        let others = PostgresDaemonsTests.others.filter { $0 != "gift-settle" } + ["xp-award"]
        try temp.write("pg.toml", """
            shutdownGrace = "5s"
            [store]
            kind = "postgres"
            urlEnv = "HEARTH_TEST_PG"
            [jobs.gift-settle]
            schedule = "0 12 1 1 *"
            \(giftSettle)\(others.map { "[jobs.\($0)]\nenabled = false\n" }.joined())
            """)
        return (["--config", temp.path + "/pg.toml"], ["HEARTH_TEST_PG": url], url)
    }

    @Test func anInsertByAnotherConnectionStartsOneRunAcrossTwoDaemons() async throws {
        let temp = try TempDirectory("hearth-pg-trigger")
        defer { temp.remove() }
        let (config, environment, url) = try await Self.giftSettleOnly(temp)
        #expect(try await HearthProcess.run(["seed", "--out", temp.path + "/data", "--users", "30", "--seed", "3"]).status == 0)
        #expect(try await HearthProcess.run(["migrate"] + config, environment: environment).status == 0)
        #expect(try await HearthProcess.run(["data", "import", temp.path + "/data"] + config, environment: environment).status == 0)
        let users = try FileManager.default.contentsOfDirectory(atPath: temp.path + "/data/users").filter { $0.hasSuffix(".json") }.sorted().map { String($0.dropLast(5)) }

        let daemons = try (0..<2).map { _ in try HearthProcess.start(["daemon", "--log-level", "debug"] + config, environment: environment) }
        defer { for d in daemons where d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        let changes = ChangeNotifier()
        let stderrs = daemons.map { StderrCollector($0.stderrPipe, changes: changes) }
        func runs(_ texts: [String]) -> Int {
            texts.reduce(0) { text, log in
                text + log.split(separator: "\n").filter { $0.contains("run succeeded ") && $0.contains(" job=gift-settle ") && $0.contains("trigger=write") }.count
            }
        }
        // Each daemon runs gift-settle once at start, reading everything.
        try await StderrCollector.wait("a run of gift-settle on each daemon", for: stderrs, timeout: .seconds(30)) { runs($0) >= 2 }

        let gift = #"{"type": "gift", "status": "pending", "fromUserId": "\#(users[0])", "toUserId": "\#(users[1])", "amount": 3, "createdAt": "\#(Timestamp.format(Date()))"}"#
        let insert = try await ExternalTool.run("/usr/bin/psql", [url, "-qX", "-v", "ON_ERROR_STOP=1", "-c",
            "INSERT INTO documents (collection, id, raw, version) VALUES ('transactions', 'pg-gift', '\(gift)', nextval('document_versions'))"])
        #expect(insert.status == 0, "\(insert.stderr)")
        // One daemon runs it; the other hears the same write and leaves it to the first.
        try await StderrCollector.wait("the gift's run, and the other daemon leaving it", for: stderrs, timeout: .seconds(30)) { texts in
            runs(texts) >= 3 && PostgresDaemonsTests.count(Self.needle, in: texts) >= 1
        }
        for d in daemons { kill(d.process.processIdentifier, SIGTERM) }
        for (d, s) in zip(daemons, stderrs) {
            await d.waitForExit()
            _ = try await s.untilEnd()
            #expect(d.process.terminationStatus == 0)
        }
        #expect(runs(stderrs.map(\.text)) == 3, "\(stderrs.map(\.text))")
        let status = try await ExternalTool.run("/usr/bin/psql", [url, "-qXAt", "-c", "SELECT data->>'status' FROM documents WHERE collection = 'transactions' AND id = 'pg-gift'"])
        #expect(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "completed")
        let history = try await HearthProcess.run(["history", "gift-settle", "--format", "json", "--limit", "10"] + config, environment: environment)
        let records = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]]) ?? []
        let named = records.compactMap { ($0["triggeredBy"] as? [String: Any])?["paths"] as? [String] }
        #expect(named.filter { $0 == ["transactions/pg-gift"] }.count == 1, "\(records)")
    }
}
