import Foundation
import HearthKit
import HearthStore
import HearthHTTP
import HearthOutbound
import HearthHost
import HearthPostgres
import Logging
import Synchronization
import Testing
import HearthTestSupport

/// How a process sets delivery up (``OutboxDelivery``, ``DaemonOutboxDelivery``): the provider
/// from `[push]`, the one HTTP client, delivery after a run, and when the daemon looks again.
/// Real webhook receiver and real libcurl client; PostgreSQL cases on a real server.
// Serialized: its deliveries take their times from the wall clock (leases, retries, a slow
// endpoint), and its own tests beside each other on 2 cores stretched them past their margins.
@Suite("outbox delivery set-up", .serialized)
struct OutboxSetupTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// The process's HTTP client, counting the requests that go through it.
    final class CountingTransport: HTTPTransport {
        let client: CurlHTTPClient
        let urls = Mutex<[String]>([])

        init() throws {
            client = try CurlHTTPClient(options: HTTPClientOptions(connectTimeout: .seconds(2), timeout: .seconds(5)))
        }

        func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
            urls.withLock { $0.append(request.url) }
            return try await client.send(request)
        }

        var count: Int { urls.withLock { $0.count } }
    }

    @Test func webhooksAndPushesGoThroughTheOneHTTPClientTheProcessGives() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        var f = try OutboxFixture(webhooks: [("ops", receiver.url("/ok/ops"), [])])
        defer { f.remove() }
        f.config.push.provider = .webhook
        f.config.push[WebhookPushProvider.Settings.self].url = receiver.url("/ok/push")
        f.config.push[WebhookPushProvider.Settings.self].secretFile = f.secretFile
        let http = try CountingTransport()
        defer { http.client.shutdown() }
        try f.queueEvent("job.failed", id: "event-1")
        try f.queuePush(user: "u1", tokens: ["device-token-000001"], id: "push-1")

        let report = try await OutboxDelivery(config: f.config, store: f.data, http: http, logger: Self.quiet, environment: [:]).deliverDue()

        #expect(report.delivered == 2)
        #expect(http.count == 2)
        let got = try await receiver.received()
        #expect(got.map(\.path).sorted() == ["/ok/ops", "/ok/push"])
        #expect(got.filter { !$0.signatureValid }.isEmpty)
        #expect(f.ids(in: .pending).isEmpty)
    }

    @Test func aProviderThatCannotBeSetUpIsAConfigurationErrorNamingTheKey() throws {
        var f = try OutboxFixture()
        defer { f.remove() }
        f.config.push.provider = .fcm
        f.config.push[FCMProvider.Settings.self].serviceAccountFile = f.dir.path + "/missing-service-account.json"
        let http = try CountingTransport()
        defer { http.client.shutdown() }
        let delivery = OutboxDelivery(config: f.config, store: f.data, http: http, logger: Self.quiet, environment: [:])

        let error = #expect(throws: ConfigError.self) { try delivery.deliverer() }

        #expect(error?.description == """
            hearth.toml: [push] provider = "fcm" cannot be set up: [push.fcm] serviceAccountFile: the file \(f.dir.path)/missing-service-account.json does not exist
            """)
    }

    @Test func noProviderIsNilAndItsPushesAreDropped() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let http = try CountingTransport()
        defer { http.client.shutdown() }
        let delivery = OutboxDelivery(config: f.config, store: f.data, http: http, logger: Self.quiet, environment: [:])
        #expect(try delivery.pushProvider() == nil)
        try f.queuePush(user: "u1", tokens: ["device-token-000001"], id: "push-1")

        let report = try await delivery.deliverDue()

        #expect(report.dropped == 1)
        #expect(http.count == 0)
        #expect(f.message("push-1", in: .dropped)?.reason == #"skipped: no push provider configured ([push] provider = "none")"#)
    }

    @Test func afterARunNothingIsAttemptedWhenNothingIsPending() async throws {
        let f = try OutboxFixture(webhooks: [("ops", "http://127.0.0.1:9/never", [])])
        defer { f.remove() }
        let http = try CountingTransport()
        defer { http.client.shutdown() }

        let report = await OutboxDelivery(config: f.config, store: f.data, http: http, logger: Self.quiet, environment: [:]).deliverAfterRun()

        #expect(report == nil)
        #expect(http.count == 0)
    }

    @Test func afterARunThePendingMessagesAreDelivered() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("ops", receiver.url("/ok/ops"), [])])
        defer { f.remove() }
        let http = try CountingTransport()
        defer { http.client.shutdown() }
        try f.queueEvent("job.failed", id: "event-1")

        let report = await OutboxDelivery(config: f.config, store: f.data, http: http, logger: Self.quiet, environment: [:]).deliverAfterRun()

        #expect(report?.delivered == 1)
        #expect(try await receiver.received().map(\.id) == ["event-1"])
    }

    @Test func onADataDirectoryTheDaemonSleepsUntilTheNextRetryIsDue() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("flaky", receiver.url("/flaky/f?fail=5"), [])])
        defer { f.remove() }
        let http = try CountingTransport()
        defer { http.client.shutdown() }
        let daemon = try DaemonOutboxDelivery(config: f.config, store: f.data, http: http, logger: Self.quiet, environment: [:])
        let now = Date()

        #expect(await daemon.deliverDue(at: now) == nil)

        try f.queueEvent("job.failed", id: "event-1")
        let next = await daemon.deliverDue(at: now)

        let retry = try #require(f.message("event-1", in: .pending)?.nextAttemptAt)
        #expect(next == retry)
        #expect(retry > now.addingTimeInterval(29))  // backoffMin 30 s, not a 30 s poll
    }

    @Test func onPostgreSQLTheDaemonLooksAtTheSharedQueueWithinThirtySeconds() async throws {
        let url = try await PostgresServer.shared().database()
        try await BlockingIO.run { () throws(any Error) in _ = try PostgresSchema.migrate(PostgresConnection(url: url)) }
        let backend = try PostgresBackend(url: url)
        // No data directory anywhere: the configuration names none.
        let config = HearthConfig(dataDir: "")
        let http = try CountingTransport()
        defer { http.client.shutdown() }
        let daemon = try DaemonOutboxDelivery(config: config, store: backend, http: http, logger: Self.quiet, environment: [:])
        let now = Date()

        #expect(await daemon.deliverDue(at: now) == now.addingTimeInterval(30))
        #expect(http.count == 0)
    }
}
