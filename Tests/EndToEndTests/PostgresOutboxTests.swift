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
    static func setUp(_ temp: TempDirectory, webhookURL: String, outbox: String = "") async throws -> (config: [String], environment: [String: String], url: String) {
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
}
