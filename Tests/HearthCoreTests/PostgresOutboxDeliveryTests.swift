import Foundation
import Testing
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHTTP
import HearthOutbound
import HearthHost
import HearthPostgres
import Logging
import Synchronization
import HearthTestSupport

/// The deliverer over PostgreSQL reads users' device tokens, removes dead ones and keeps
/// disabled endpoints in the database, like the data directory does in its files
/// (docs/storage/postgres.md#outbox). Real server, real FCM fake, real webhook receiver.
@Suite("outbox delivery on PostgreSQL")
struct PostgresOutboxDeliveryTests {
    /// A migrated database and a backend over it.
    static func backend() async throws -> (PostgresBackend, url: String) {
        let url = try await PostgresServer.shared().database()
        try await BlockingIO.run { () throws(any Error) in _ = try PostgresSchema.migrate(PostgresConnection(url: url)) }
        return (try PostgresBackend(url: url), url)
    }

    static func sql(_ url: String, _ text: String, _ parameters: [String?] = []) async throws -> [String?] {
        try await BlockingIO.run { () throws(any Error) in try PostgresConnection(url: url).query(text, parameters).values }
    }

    static func queue(_ backend: PostgresBackend) throws -> any OutboxClaimingQueue {
        backend.outbox
    }

    @Test(.enabled(if: FakePushService.pythonReady, "needs PyPI h2 and cryptography (scripts/install-deps)"))
    func aPushWithoutTokensGoesToTheUsersTokensInTheDatabaseAndADeadOneIsRemoved() async throws {
        let (backend, url) = try await Self.backend()
        let service = try await FakePushService.fcm()
        defer { service.stop() }
        let f = try OutboxFixture()
        defer { f.remove() }
        _ = try await Self.sql(url, "INSERT INTO documents (collection, id, raw, version) VALUES ('users', 'u1', $1, nextval('document_versions'))", [
            #"{"name": "Ada", "fcmTokens": ["fcm-unregistered-000001", "fcm-live-000002"], "fcmToken": "fcm-unregistered-000001", "points": 5}"#,
        ])
        var payload = JSONObject([("userId", .string("u1")), ("title", .string("Hello")), ("body", .string("You have mail"))])
        payload["data"] = .object(JSONObject([("type", .string("gift_received"))]))
        try await backend.enqueue(
            OutboxMessage(id: "push-1", kind: .push, recipient: "u1", title: "Hello", payload: payload), job: "test-job", runID: "run-1", createdAt: Date())
        let provider = FCMProvider(account: try service.credentials.serviceAccount(), http: service.client, failureHoldoff: .zero)
        let deliverer = OutboxDeliverer(
            config: f.config, store: backend, transport: service.client, pushProvider: provider,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, options: f.options(), environment: [:])

        let report = await deliverer.deliverDue(from: try Self.queue(backend))

        #expect(report.delivered == 1)
        #expect(report.dropped == 0)
        #expect(report.tokensRemoved == 1)
        let stats = try await service.stats(host: "fcm.googleapis.com")
        let accepted = stats["accepted"]?.arrayValue?.compactMap { $0.objectValue?["message"]?.objectValue?["token"]?.stringValue }
        #expect(accepted == ["fcm-live-000002"])
        #expect(try await Self.sql(url, "SELECT raw FROM documents WHERE collection = 'users' AND id = 'u1'") == ["""
            {
              "name": "Ada",
              "fcmTokens": [
                "fcm-live-000002"
              ],
              "points": 5
            }

            """])
        #expect(try await Self.sql(url, "SELECT count(*) FROM outbox") == ["0"])
        // Nothing was written to the local data directory: the users are in the database.
        #expect(!FileManager.default.fileExists(atPath: f.data.root + "/users"))
        #expect(!FileManager.default.fileExists(atPath: f.data.root + "/.hearth/journal"))
    }

    @Test func aGoneEndpointIsDisabledForEveryDelivererOnTheDatabase() async throws {
        let (backend, url) = try await Self.backend()
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        // Two machines: each its own local directory, one database.
        let hooks: [(name: String, url: String, events: [String])] = [("old", receiver.url("/gone/x"), []), ("live", receiver.url("/ok/live"), [])]
        let one = try OutboxFixture(webhooks: hooks)
        defer { one.remove() }
        var two = try OutboxFixture(webhooks: hooks)
        defer { two.remove() }
        // The same endpoint configuration on both (an entry holds only while the url,
        // secretFile and secretEnv are the ones that got the 410).
        two.config.webhooks = one.config.webhooks
        let client = try CurlHTTPClient(options: HTTPClientOptions(connectTimeout: .seconds(2), timeout: .seconds(5)))
        defer { client.shutdown() }
        func deliverer(_ f: OutboxFixture) -> OutboxDeliverer {
            OutboxDeliverer(
                config: f.config, store: backend, transport: client, pushProvider: nil,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, options: f.options(), environment: [:])
        }

        try await backend.enqueue(.event("job.failed", id: "first", data: JSONObject()), job: "test-job", runID: "run-1", createdAt: Date())
        let first = await deliverer(one).deliverDue(from: try Self.queue(backend))
        #expect(first.delivered == 1)
        #expect(first.endpointsDisabled == 1)
        #expect(try await Self.sql(url, "SELECT name || ' ' || config_hash || ' ' || reason FROM disabled_endpoints") == [
            "old \(DisabledEndpoints.configHash(one.config.webhooks[0])) HTTP 410 Gone",
        ])
        #expect(DisabledEndpoints(store: backend).disabledNames(among: two.config.webhooks) == ["old"])
        #expect(!FileManager.default.fileExists(atPath: one.data.root + "/.hearth/outbox/disabled-endpoints.json"))

        // The other machine's deliverer skips it.
        try await backend.enqueue(.event("job.failed", id: "second", data: JSONObject()), job: "test-job", runID: "run-2", createdAt: Date())
        let second = await deliverer(two).deliverDue(from: try Self.queue(backend))
        #expect(second.delivered == 1)
        let received = try await receiver.received()
        #expect(received.filter { $0.path == "/gone/x" }.map(\.id) == ["first"])
        #expect(received.filter { $0.path == "/ok/live" }.compactMap(\.id).sorted() == ["first", "second"])
    }

    /// The client as the deliverer sees it; the first request first has the server terminate
    /// the deliverer's claiming connection (it is idle in its transaction while the batch is
    /// sent), as a server restart or a network cut would.
    final class TerminatingTransport: HTTPTransport {
        let client: CurlHTTPClient
        let url: String
        let terminated = Mutex<[String?]?>(nil)

        init(client: CurlHTTPClient, url: String) {
            self.client = client
            self.url = url
        }

        func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
            let first = terminated.withLock { $0 == nil }
            if first {
                let url = self.url
                // The server marks the claiming backend "idle in transaction" just after it sends
                // the claim's rows, so on a busy machine the first look can come too early: look
                // again (no event tells when) for up to 10 s. Not found in time: the test's
                // expectation on `terminated` says so (this send cannot throw it).
                let found = (try? await eventually("the claiming connection idle in its transaction", timeout: .seconds(10), pollEvery: .milliseconds(50)) { () -> [String?]? in
                    let killed = (try? await PostgresOutboxDeliveryTests.sql(url, """
                        SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
                        WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()
                        """)) ?? []
                    return killed.isEmpty ? nil : killed
                }) ?? []
                terminated.withLock { if $0 == nil { $0 = found } }
            }
            return try await client.send(request)
        }
    }

    @Test func aConnectionLostMidBatchRecordsNothingAndTheNextPassDeliversEverything() async throws {
        let (backend, url) = try await Self.backend()
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("ops", receiver.url("/ok/ops"), [])])
        defer { f.remove() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(connectTimeout: .seconds(2), timeout: .seconds(5)))
        defer { client.shutdown() }
        let ids = ["event-1", "event-2", "event-3"]
        for id in ids {
            try await backend.enqueue(.event("job.failed", id: id, data: JSONObject()), job: "test-job", runID: "run-1", createdAt: Date())
        }
        let queued = try await Self.sql(url, "SELECT id || ' ' || folder || ' ' || envelope FROM outbox ORDER BY id")
        let transport = TerminatingTransport(client: client, url: url)
        let deliverer = OutboxDeliverer(
            config: f.config, store: backend, transport: transport, pushProvider: nil,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, options: f.options(), environment: [:])

        let first = await deliverer.deliverDue()

        #expect(transport.terminated.withLock { $0 } == ["true"], "the claiming connection was not found idle in its transaction")
        #expect(first.delivered == 0)
        #expect(first.errors.count == 1)
        // Nothing was recorded: every message is pending as it was, none half-done.
        #expect(queued.count == 3)
        #expect(try await Self.sql(url, "SELECT id || ' ' || folder || ' ' || envelope FROM outbox ORDER BY id") == queued)

        let second = await deliverer.deliverDue()

        #expect(second.delivered == 3)
        #expect(second.errors.isEmpty)
        #expect(try await Self.sql(url, "SELECT count(*) FROM outbox") == ["0"])
        // At least once: the first pass's sends arrived, and each message again in the second.
        let received = try await receiver.received().compactMap(\.id)
        #expect(received.sorted() == (ids + ids).sorted())
    }

    /// The messages nobody is configured to receive (pushes without a provider, events no
    /// endpoint subscribes to) are dropped in one statement, each exactly as a data directory's
    /// pass drops it one by one: same folder, reason and redacted tokens.
    @Test func messagesNobodyIsConfiguredToReceiveAreDroppedAsOnADataDirectory() async throws {
        let (backend, url) = try await Self.backend()
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("ops", receiver.url("/ok/ops"), ["bonus.paid"])])
        defer { f.remove() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(connectTimeout: .seconds(2), timeout: .seconds(5)))
        defer { client.shutdown() }
        let created = Date(timeIntervalSince1970: 1_795_000_000)
        func push(_ id: String, tokens: [String]?) -> OutboxMessage {
            var payload = JSONObject([("userId", .string("u1")), ("title", .string("Hello")), ("body", .string("You have mail"))])
            if let tokens { payload["tokens"] = .array(tokens.map { .string($0) }) }
            return OutboxMessage(id: id, kind: .push, recipient: "u1", title: "Hello", payload: payload)
        }
        let messages: [OutboxMessage] = [
            push("push-1", tokens: ["device-token-0000abcdef"]), push("push-2", tokens: nil),
            .event("job.failed", id: "event-1", data: JSONObject()), .event("bonus.paid", id: "event-2", data: JSONObject()),
        ]
        for m in messages {
            try await backend.enqueue(m, job: "test-job", runID: "run-1", createdAt: created)
            try DirectoryOutboxFolders.enqueue(m, job: "test-job", runID: "run-1", createdAt: created, data: f.data)
        }
        let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let onPostgres = OutboxDeliverer(config: f.config, store: backend, transport: client, pushProvider: nil, logger: quiet, options: f.options(), environment: [:])
        let onDirectory = OutboxDeliverer(config: f.config, store: f.data, transport: client, pushProvider: nil, logger: quiet, options: f.options(), environment: [:])

        let postgres = await onPostgres.deliverDue()
        let directory = await onDirectory.deliverDue()

        #expect(postgres == directory)
        #expect(postgres.dropped == 3)
        #expect(postgres.delivered == 1)
        #expect(try await Self.sql(url, "SELECT id || ' ' || folder FROM outbox ORDER BY id") == ["event-1 dropped", "push-1 dropped", "push-2 dropped"])
        let dropped = try backend.outbox.messages(in: .dropped)
        func comparable(_ e: OutboxEnvelope) -> JSONObject {
            var o = e.object
            #expect(o["finishedAt"] != nil, "\(e.id) has no finishedAt")
            o["finishedAt"] = nil
            return o
        }
        for e in dropped {
            let twin = try #require(f.message(e.id, in: .dropped))
            #expect(comparable(e) == comparable(twin), "\(e.id) differs from the data directory's")
        }
        #expect(dropped.first { $0.id == "push-1" }?.payload["tokens"] == .array([.string("…abcdef")]))
        #expect(dropped.first { $0.id == "push-2" }?.reason == #"skipped: no push provider configured ([push] provider = "none")"#)
        #expect(dropped.first { $0.id == "event-1" }?.reason == "no webhook endpoint subscribes to job.failed")
        #expect(try await receiver.received().map(\.id) == ["event-2", "event-2"])
    }

    /// A pass keeps the newest `droppedRetention` dropped messages, as a data directory's does.
    @Test func aPassKeepsTheNewestThousandDroppedMessages() async throws {
        let (backend, url) = try await Self.backend()
        let f = try OutboxFixture()
        defer { f.remove() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(connectTimeout: .seconds(2), timeout: .seconds(5)))
        defer { client.shutdown() }
        _ = try await Self.sql(url, """
            INSERT INTO outbox (id, job, run_id, envelope, next_attempt_at, created_at)
            SELECT 'push-' || n, 'test', 'run-1', json_build_object('id', 'push-' || n, 'kind', 'push', 'recipient', 'u1', 'title', 'Hello',
              'payload', json_build_object('userId', 'u1', 'title', 'Hello', 'body', 'Hi'), 'job', 'test', 'runId', 'run-1',
              'createdAt', '2026-11-18T12:00:00.000Z', 'attempts', 0)::text, '2026-11-18T12:00:00Z', '2026-11-18T12:00:00Z'
            FROM generate_series(1, 1005) AS n
            """)
        let deliverer = OutboxDeliverer(
            config: f.config, store: backend, transport: client, pushProvider: nil,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, options: f.options(), environment: [:])

        let report = await deliverer.deliverDue()

        #expect(report.dropped == 1005)
        #expect(try await Self.sql(url, """
            SELECT folder || ' ' || count(*) || ': push-' || min(substr(id, 6)::int) || ' to push-' || max(substr(id, 6)::int) FROM outbox GROUP BY folder
            """) == ["dropped 1000: push-6 to push-1005"])
    }
}
