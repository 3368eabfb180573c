import Foundation
import Testing
import HearthKit
import HearthPostgres
import HearthTestSupport

/// The outbox in PostgreSQL (docs/outbox-and-webhooks.md#postgresql): deliverers claim rows with
/// `FOR UPDATE SKIP LOCKED`, so several share one queue.
@Suite("the outbox on PostgreSQL")
struct PostgresOutboxTests {
    static let hookSecret = "whsec_" + Data("pg-outbox-hook-key-\(UUID().uuidString)".utf8).base64EncodedString()

    /// A migrated database, a config for it with one webhook endpoint at `webhookURL`.
    static func setUp(_ temp: TempDirectory, webhookURL: String, outbox: String = "", extra: String = "") async throws -> (config: [String], environment: [String: String], url: String) {
        let url = try await PostgresServer.shared().database()
        try temp.write("hook.secret", hookSecret + "\n")
        try temp.write("pg.toml", """
            dataDir = "data"
            [store]
            kind = "postgres"
            urlEnv = "HEARTH_TEST_PG"
            [outbox]
            \(outbox)
            [[webhooks]]
            name = "ops"
            url = "\(webhookURL)"
            secretFile = "hook.secret"
            \(extra)
            """)
        let config = ["--config", temp.path + "/pg.toml"]
        let environment = ["HEARTH_TEST_PG": url]
        let migrate = try await HearthProcess.run(["migrate"] + config, environment: environment)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        return (config, environment, url)
    }

    /// Queues `count` events `evt-1` … `evt-N` with one multi-row insert, as a commit would.
    static func queueEvents(_ count: Int, url: String) async throws {
        let now = Timestamp.format(Date())
        try await BlockingIO.run { () throws(any Error) in
            _ = try PostgresConnection(url: url).query(
                """
                INSERT INTO outbox (id, job, run_id, envelope, next_attempt_at, created_at)
                SELECT 'evt-' || g, 'test', 'run-1',
                  json_build_object('id', 'evt-' || g, 'kind', 'event', 'recipient', 'test.event', 'title', '',
                    'payload', json_build_object('n', g), 'job', 'test', 'runId', 'run-1', 'createdAt', $1::text,
                    'attempts', 0, 'nextAttemptAt', $1::text, 'lastError', null)::text,
                  $1::timestamptz, $1::timestamptz
                FROM generate_series(1, $2::int) AS g
                """,
                [now, String(count)])
        }
    }

    static func count(_ folder: String, url: String) async throws -> Int {
        try await BlockingIO.run { () throws(any Error) in
            Int(try PostgresConnection(url: url).query("SELECT count(*) FROM outbox WHERE folder = $1", [folder]).values.first?.flatMap { $0 } ?? "") ?? -1
        }
    }

    /// Two `hearth outbox deliver` started at once on 10,000 queued events: each event reaches
    /// the receiver exactly once in total, and the outbox is empty afterwards.
    @Test func twoDeliverersShareTenThousandEventsEachDeliveredOnce() async throws {
        let temp = try TempDirectory("hearth-pg-outbox")
        defer { temp.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        let (config, environment, url) = try await Self.setUp(temp, webhookURL: receiver.url("/ok/hook"), outbox: "concurrency = 16")
        try await Self.queueEvents(10_000, url: url)
        #expect(try await Self.count("pending", url: url) == 10_000)

        let deliverers = try (0..<2).map { _ in try HearthProcess.start(["outbox", "deliver", "--format", "json"] + config, in: temp.path, environment: environment) }
        var delivered = 0
        var each: [Int] = []
        for d in deliverers {
            let result = await d.finish()
            #expect(result.status == 0, "\(result.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            delivered += report["delivered"] as? Int ?? -1
            each.append(report["delivered"] as? Int ?? -1)
        }
        #expect(delivered == 10_000)
        // Both took part: the queue was shared, not drained by whichever started first.
        #expect(each.allSatisfy { $0 > 0 }, "delivered per process: \(each)")

        let received = try await receiver.received()
        var perID: [String: Int] = [:]
        for r in received { perID[r.id ?? "", default: 0] += 1 }
        #expect(perID.count == 10_000)
        #expect(perID.values.allSatisfy { $0 == 1 }, "sent more than once: \(perID.filter { $0.value > 1 }.keys.sorted().prefix(10))")
        #expect(Set(perID.keys) == Set((1...10_000).map { "evt-\($0)" }))
        #expect(received.allSatisfy { $0.signatureValid })
        #expect(try await Self.count("pending", url: url) == 0)
        let rows = try await BlockingIO.run { () throws(any Error) in try PostgresConnection(url: url).query("SELECT count(*) FROM outbox").values }
        #expect(rows == ["0"])
        let list = try await HearthProcess.run(["outbox", "list"] + config, in: temp.path, environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout == "The outbox is empty.\n")
    }

    /// A message answered 500 is retried (due later, attempts counted), becomes a dead letter
    /// after `maxAttempts`, is listed by `hearth outbox dead`, and `outbox retry` puts it back.
    @Test func aFailingMessageIsRetriedThenDeadAndListed() async throws {
        let temp = try TempDirectory("hearth-pg-outbox")
        defer { temp.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        let (config, environment, url) = try await Self.setUp(temp, webhookURL: receiver.url("/error/hook"), outbox: "maxAttempts = 2")
        try await Self.queueEvents(1, url: url)
        func hearth(_ args: [String]) async throws -> HearthProcess.Result {
            try await HearthProcess.run(args + config, in: temp.path, environment: environment)
        }

        let first = try await hearth(["outbox", "deliver", "--format", "json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect(report["retrying"] as? Int == 1)
        #expect(report["deadLettered"] as? Int == 0)
        #expect(try await Self.count("pending", url: url) == 1)
        // Not due again yet: a second pass sends nothing.
        let early = try await hearth(["outbox", "deliver", "--format", "json"])
        let earlyReport = try #require(try JSONSerialization.jsonObject(with: Data(early.stdout.utf8)) as? [String: Any])
        #expect(earlyReport["retrying"] as? Int == 0)
        #expect(try await receiver.received().count == 1)

        // The retry falls due (moved into the past, as time passing would).
        let past = Timestamp.format(Date().addingTimeInterval(-1))
        try await BlockingIO.run { () throws(any Error) in
            _ = try PostgresConnection(url: url).query(
                "UPDATE outbox SET next_attempt_at = $1::timestamptz, envelope = jsonb_set(envelope::jsonb, '{nextAttemptAt}', to_jsonb($1::text))::text",
                [past])
        }
        let second = try await hearth(["outbox", "deliver", "--format", "json"])
        #expect(second.status == 0, "\(second.stderr)")
        let secondReport = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        #expect(secondReport["deadLettered"] as? Int == 1)
        #expect(try await receiver.received().count == 2)
        #expect(try await Self.count("pending", url: url) == 0)
        #expect(try await Self.count("dead", url: url) == 1)

        let dead = try await hearth(["outbox", "dead", "--format", "json"])
        #expect(dead.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(dead.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["id"] as? String == "evt-1")
        #expect(entries.first?["attempts"] as? Int == 2)

        let retry = try await hearth(["outbox", "retry", "evt-1"])
        #expect(retry.status == 0)
        #expect(retry.stdout == "evt-1: moved back to pending; due now.\n")
        #expect(try await Self.count("pending", url: url) == 1)
        #expect(try await Self.count("dead", url: url) == 0)
    }

    static func sql(_ url: String, _ text: String, _ parameters: [String?] = []) async throws -> [String?] {
        try await BlockingIO.run { () throws(any Error) in try PostgresConnection(url: url).query(text, parameters).values }
    }

    /// The `data` object of a received Standard Webhooks body.
    static func data(_ r: WebhookReceiverProcess.Received) -> JSONObject? {
        guard case .object(let o)? = try? JSONParser.parse(Array(r.body.utf8)) else { return nil }
        return o["data"]?.objectValue
    }

    /// `hearth run` on PostgreSQL delivers its outbox right after the run, as on a data
    /// directory: the run's `job.succeeded` reaches the endpoint without `outbox deliver`.
    @Test func aRunDeliversItsOutboxRightAfterwards() async throws {
        let temp = try TempDirectory("hearth-pg-outbox")
        defer { temp.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        let (config, environment, url) = try await Self.setUp(temp, webhookURL: receiver.url("/ok/hook"), extra: "events = [\"job.succeeded\"]")
        #expect(try await HearthProcess.run(["seed", "--out", temp.path + "/data", "--users", "20", "--seed", "9"]).status == 0)
        let imported = try await HearthProcess.run(["data", "import", temp.path + "/data"] + config, in: temp.path, environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")

        let run = try await HearthProcess.run(["run", "xp-award", "--now", "2026-11-18T12:00:00Z"] + config, in: temp.path, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")

        let received = try await receiver.received()
        #expect(received.map(\.type) == ["job.succeeded"])
        #expect(received.first.flatMap(Self.data)?["job"]?.stringValue == "xp-award")
        #expect(received.allSatisfy { $0.signatureValid })
        #expect(try await Self.count("pending", url: url) == 0)
    }

    /// A push queued without `tokens` goes to the device tokens of the user's document in the
    /// database (not to a data directory, where there is none).
    @Test func aPushWithoutTokensGoesToTheUsersTokensInTheDatabase() async throws {
        let temp = try TempDirectory("hearth-pg-outbox")
        defer { temp.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        let (config, environment, url) = try await Self.setUp(temp, webhookURL: receiver.url("/ok/hook"), extra: """
            [push]
            provider = "webhook"
            [push.webhook]
            url = "\(receiver.url("/ok/push"))"
            secretFile = "hook.secret"
            """)
        _ = try await Self.sql(url, "INSERT INTO documents (collection, id, raw, version) VALUES ('users', 'u1', $1, nextval('document_versions'))", [
            #"{"name": "Ada", "fcmTokens": ["fcm-a-0000000001"], "fcmToken": "fcm-legacy-00000002", "apnsTokens": ["apns-000000000003"]}"#,
        ])
        let now = Timestamp.format(Date())
        _ = try await Self.sql(url, """
            INSERT INTO outbox (id, job, run_id, envelope, next_attempt_at, created_at)
            VALUES ('push-1', 'test', 'run-1', json_build_object('id', 'push-1', 'kind', 'push', 'recipient', 'u1', 'title', 'Hello',
              'payload', json_build_object('userId', 'u1', 'title', 'Hello', 'body', 'You have mail'), 'job', 'test', 'runId', 'run-1',
              'createdAt', $1::text, 'attempts', 0, 'nextAttemptAt', $1::text, 'lastError', null)::text, $1::timestamptz, $1::timestamptz)
            """, [now])

        let deliver = try await HearthProcess.run(["outbox", "deliver", "--format", "json"] + config, in: temp.path, environment: environment)
        #expect(deliver.status == 0, "\(deliver.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(deliver.stdout.utf8)) as? [String: Any])
        #expect(report["delivered"] as? Int == 1)
        #expect(report["dropped"] as? Int == 0)
        let pushes = try await receiver.received().filter { $0.type == "push.send" }
        #expect(Set(pushes.compactMap { Self.data($0)?["token"]?.stringValue }) == ["fcm-a-0000000001", "fcm-legacy-00000002", "apns-000000000003"])
        #expect(pushes.count == 3)
        #expect(pushes.allSatisfy { Self.data($0)?["userId"]?.stringValue == "u1" && $0.signatureValid })
        #expect(try await Self.sql(url, "SELECT count(*) FROM outbox") == ["0"])
    }

    /// A deliverer SIGKILLed in the middle of a batch: its claim's transaction is rolled back by
    /// the server, so the next deliverer sends that batch again and everything after it. Every
    /// message reaches the receiver at least once; only the batch in flight may arrive twice
    /// (docs/outbox-and-webhooks.md#postgresql).
    @Test func aDelivererKilledMidBatchLosesNothingAndRepeatsOnlyTheBatchInFlight() async throws {
        let temp = try TempDirectory("hearth-pg-outbox")
        defer { temp.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        // 100 messages a claim, 4 at a time, 200 ms each: a batch takes about 5 s.
        let (config, environment, url) = try await Self.setUp(temp, webhookURL: receiver.url("/slow/hook?ms=200"), outbox: "concurrency = 4")
        try await Self.queueEvents(300, url: url)

        let first = try HearthProcess.start(["outbox", "deliver"] + config, in: temp.path, environment: environment)
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        // Kill it once it is well into its second batch (the first is recorded by then). Polled
        // here and below: the receiver and the server are other processes.
        let seed = try TestSeed()
        var rng = seed.generator()
        let killAfter = 100 + Int.random(in: 10...60, using: &rng)
        try await eventually("\(killAfter) requests at the receiver (replay with \(seed))", timeout: .seconds(60), pollEvery: .milliseconds(50)) {
            try await receiver.received().count >= killAfter
        }
        kill(first.process.processIdentifier, SIGKILL)
        await first.waitForExit()
        // Requests already sent are recorded: the receiver has answered every request it got
        // (each takes 200 ms, so one sent just before the kill has arrived by then).
        try await eventually("the receiver to answer every request it got", timeout: .seconds(60), pollEvery: .milliseconds(50)) {
            try await !receiver.received().contains(where: { $0.completedAt == nil })
        }
        let beforeKill = Set(try await receiver.received().compactMap(\.id))
        #expect(beforeKill.count > 100 && beforeKill.count < 200, "the kill did not land in the second batch: \(beforeKill.count) received; replay with \(seed)")
        #expect(try await Self.count("pending", url: url) == 200)
        // The server ends the killed client's transaction when it sees the connection close.
        try await eventually("the killed deliverer's transaction to end", timeout: .seconds(60), pollEvery: .milliseconds(50)) {
            try await Self.sql(url, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'") == ["0"]
        }

        let second = try await HearthProcess.run(["outbox", "deliver", "--format", "json"] + config, in: temp.path, environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        #expect(report["delivered"] as? Int == 200)

        var perID: [String: Int] = [:]
        for r in try await receiver.received() { perID[r.id ?? "", default: 0] += 1 }
        #expect(Set(perID.keys) == Set((1...300).map { "evt-\($0)" }))
        let twice = Set(perID.filter { $0.value > 1 }.keys)
        #expect(perID.values.allSatisfy { $0 <= 2 })
        #expect(!twice.isEmpty, "the killed batch had sent some messages: they are sent again")
        #expect(twice.isSubset(of: Set((101...200).map { "evt-\($0)" })), "only the batch in flight repeats: \(twice.sorted().prefix(5))")
        #expect(twice == beforeKill.subtracting((1...100).map { "evt-\($0)" }))
        #expect(try await Self.sql(url, "SELECT count(*) FROM outbox") == ["0"])
    }
}
