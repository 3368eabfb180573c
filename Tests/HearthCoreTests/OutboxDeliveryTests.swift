import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHTTP
import HearthOutbound
import HearthHost
import Testing
import HearthTestSupport

/// The outbox deliverer against a real webhook receiver on 127.0.0.1
/// (`Tests/Servers/webhook_receiver.py`, which checks signatures with Python's `hmac`), over
/// the real libcurl client. Each failure mode ends in its expected state.
// Serialized: its deliveries take their times from the wall clock (leases, retries, a slow
// endpoint), and its own tests beside each other on 2 cores stretched them past their margins.
@Suite("outbox delivery", .serialized)
struct OutboxDeliveryTests {
    static func client(timeout: Duration = .seconds(5)) throws -> CurlHTTPClient {
        try CurlHTTPClient(options: HTTPClientOptions(connectTimeout: .seconds(2), timeout: timeout))
    }

    // MARK: Delivered

    @Test func anEventIsSignedAndDeliveredToEveryEndpointWhoseFilterMatches() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [
            ("all", receiver.url("/ok/all"), []),
            ("ops", receiver.url("/ok/ops"), ["job.failed", "bonus.paid"]),
            ("other", receiver.url("/ok/other"), ["achievement.unlocked"]),
        ])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let created = Date(timeIntervalSince1970: 1_800_000_000)  // in the future: a fresh message is due at once anyway
        let id = try f.queueEvent("bonus.paid", data: JSONObject([("week", .string("2026-W47")), ("users", .int(3))]), createdAt: created)

        let report = await f.deliverer(transport: client).deliverDue()

        #expect(report.delivered == 1)
        #expect(f.ids(in: .pending).isEmpty)
        let got = try await receiver.received()
        #expect(Set(got.map(\.path)) == ["/ok/all", "/ok/ops"])
        for r in got {
            #expect(r.signatureValid, "signature rejected by Python's hmac at \(r.path)")
            #expect(r.timestampFresh)
            #expect(r.id == id)
            #expect(r.type == "bonus.paid")
            #expect(r.eventTimestamp == "2027-01-15T08:00:00.000Z")
            #expect(r.contentType == "application/json")
            #expect(r.body == #"{"type":"bonus.paid","timestamp":"2027-01-15T08:00:00.000Z","data":{"week":"2026-W47","users":3}}"#)
        }
    }

    @Test func aRetryOnlyResendsToTheEndpointsNotYetDone() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("good", receiver.url("/ok/good"), []), ("flaky", receiver.url("/flaky/f?fail=1"), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")
        let deliverer = f.deliverer(transport: client)

        let first = await deliverer.deliverDue()
        #expect(first.retrying == 1)
        let pending = try #require(f.message(id, in: .pending))
        #expect(pending.attempts == 1)
        #expect(pending.targets.map(\.state) == [.delivered, .pending])
        #expect(pending.lastError == "flaky: HTTP 503")

        let second = await deliverer.deliverDue(now: Date().addingTimeInterval(7200))
        #expect(second.delivered == 1)
        let got = try await receiver.received()
        #expect(got.count { $0.path == "/ok/good" } == 1)
        #expect(got.count { $0.path.hasPrefix("/flaky/") } == 2)
        #expect(f.ids(in: .pending).isEmpty)
    }

    // MARK: Retried later

    @Test func aRateLimitedEndpointIsRetriedAtItsRetryAfterSeconds() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("limited", receiver.url("/ratelimit/x?after=7"), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")

        let before = Date()
        let report = await f.deliverer(transport: client).deliverDue()
        let after = Date()

        #expect(report.retrying == 1)
        let m = try #require(f.message(id, in: .pending))
        let next = try #require(m.nextAttemptAt)
        #expect(next >= before.addingTimeInterval(7 - 0.01) && next <= after.addingTimeInterval(7 + 0.01), "nextAttemptAt \(next) is not 7 s after the attempt")
        #expect(m.attempts == 1)
        #expect(m.lastError == "limited: HTTP 429")
        #expect(report.nextDue == next)
        // Not due before then.
        let early = await f.deliverer(transport: client).deliverDue(now: next.addingTimeInterval(-1))
        #expect(early.notDue == 1)
        #expect(try await receiver.received().count == 1)
    }

    @Test func aRetryAfterHTTPDateIsHonoured() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("limited", receiver.url("/ratelimit-date/x?after=120"), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")
        let before = Date()
        _ = await f.deliverer(transport: client).deliverDue()
        let after = Date()
        let next = try #require(f.message(id, in: .pending)?.nextAttemptAt)
        // The receiver dates its answer 120 s after it gets the request, somewhere between
        // `before` and `after` (seconds apart on a loaded machine), in whole seconds (truncated).
        #expect(next > before.addingTimeInterval(119 - 0.01) && next <= after.addingTimeInterval(120 + 0.01),
                "nextAttemptAt is \(next.timeIntervalSince(before)) s after the delivery began, which took \(after.timeIntervalSince(before)) s")
    }

    @Test(arguments: [("/error/x", "HTTP 500"), ("/unavailable/x", "HTTP 503")])
    func aServerErrorIsRetriedWithJitteredExponentialBackoff(path: String, error: String) async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("hook", receiver.url(path), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")
        let deliverer = f.deliverer(transport: client)

        var previous = Date()
        for attempt in 1...3 {
            let start = Date()
            let report = await deliverer.deliverDue(now: previous)
            let end = Date()
            #expect(report.retrying == 1)
            let m = try #require(f.message(id, in: .pending))
            #expect(m.attempts == attempt)
            #expect(m.lastError == "hook: \(error)")
            // Retry n waits between backoffMin (30 s) and min(backoffMax, 30 s × 2ⁿ), counted from
            // the failed attempt, somewhere between `start` and `end` (seconds apart on a loaded
            // machine).
            let next = try #require(m.nextAttemptAt)
            #expect(next >= start.addingTimeInterval(30 - 0.01) && next <= end.addingTimeInterval(30 * Double(1 << attempt) + 0.01),
                    "attempt \(attempt) waits \(next.timeIntervalSince(start)) s after the delivery began, which took \(end.timeIntervalSince(start)) s")
            previous = try #require(m.nextAttemptAt)
        }
        #expect(try await receiver.received().count == 3)
    }

    /// What one failed attempt met: a connection reset mid-response, a redirect (a failure,
    /// not followed), a timeout.
    enum FailedAttempt: String, CaseIterable, Sendable {
        case reset, redirect, timeout
    }

    @Test(arguments: FailedAttempt.allCases)
    func aFailedAttemptIsRetried(_ failure: FailedAttempt) async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let (name, path) = switch failure {
        case .reset: ("hook", "/reset/x")
        case .redirect: ("hook", "/redirect/x")
        case .timeout: ("sleepy", "/slow/x?ms=4000")
        }
        let f = try OutboxFixture(webhooks: [(name, receiver.url(path), [])])
        defer { f.remove() }
        let client = try failure == .timeout ? Self.client(timeout: .milliseconds(800)) : Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")
        let report = await f.deliverer(transport: client).deliverDue()
        #expect(report.retrying == 1)
        switch failure {
        case .reset:
            let m = try #require(f.message(id, in: .pending))
            #expect(m.attempts == 1)
            #expect(m.lastError?.hasPrefix("hook: HTTP connection to http://127.0.0.1:\(receiver.server.port) failed") == true, "\(m.lastError ?? "")")
            #expect(m.lastError?.contains("/reset/x") == false)
        case .redirect:
            #expect(f.message(id, in: .pending)?.lastError?.hasPrefix("hook: HTTP 302") == true)
            #expect(try await receiver.received().map(\.path) == ["/redirect/x"])
        case .timeout:
            #expect(f.message(id, in: .pending)?.lastError?.contains("timed out") == true)
        }
    }

    @Test func aRefusedConnectionIsRetried() async throws {
        let port = try LocalServers.unusedPort()
        let f = try OutboxFixture(webhooks: [("down", "http://127.0.0.1:\(port)/hook?token=QUERYSECRET", [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")
        let report = await f.deliverer(transport: client).deliverDue()
        #expect(report.retrying == 1)
        let m = try #require(f.message(id, in: .pending))
        #expect(m.attempts == 1)
        #expect(m.lastError?.contains("HTTP connection to http://127.0.0.1:\(port) failed") == true, "\(m.lastError ?? "")")
        #expect(m.lastError?.contains("QUERYSECRET") == false)
    }

    @Test func aMissingSecretKeepsTheEventPendingWithoutSendingIt() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        var f = try OutboxFixture()
        defer { f.remove() }
        f.config.webhooks = [WebhookConfig(name: "hook", url: receiver.url("/ok/x"), secretEnv: "HEARTH_TEST_UNSET_SECRET")]
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")
        let report = await f.deliverer(transport: client).deliverDue()
        #expect(report.retrying == 1)
        #expect(f.message(id, in: .pending)?.lastError?.contains("HEARTH_TEST_UNSET_SECRET") == true)
        #expect(try await receiver.received().isEmpty)
    }

    // MARK: Disabled, dead, dropped

    @Test func goneDisablesTheEndpointUntilItsConfigurationChanges() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        var f = try OutboxFixture(webhooks: [("old", receiver.url("/gone/x"), []), ("live", receiver.url("/ok/live"), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let (logger, logs) = CapturingLogHandler.logger()
        try f.queueEvent("job.failed", id: "first")

        let first = await f.deliverer(transport: client, logger: logger).deliverDue()
        #expect(first.delivered == 1)
        #expect(first.endpointsDisabled == 1)
        #expect(logs.text.contains("webhook endpoint disabled"))
        let disabled = DisabledEndpoints(store: f.data)
        #expect(disabled.disabledNames(among: f.config.webhooks) == ["old"])
        #expect(FileManager.default.fileExists(atPath: f.data.root + "/.hearth/outbox/disabled-endpoints.json"))

        // The next event skips the disabled endpoint.
        try f.queueEvent("job.failed", id: "second")
        #expect(await f.deliverer(transport: client).deliverDue().delivered == 1)
        #expect(try await receiver.received().filter { $0.path == "/gone/x" }.map(\.id) == ["first"])

        // A changed url enables it again.
        f.config.webhooks[0].url = receiver.url("/ok/moved")
        #expect(disabled.disabledNames(among: f.config.webhooks).isEmpty)
        try f.queueEvent("job.failed", id: "third")
        #expect(await f.deliverer(transport: client).deliverDue().delivered == 1)
        #expect(try await receiver.received().filter { $0.path == "/ok/moved" }.map(\.id) == ["third"])
    }

    @Test func exhaustedAttemptsMakeADeadLetterThatRetryRevives() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("good", receiver.url("/ok/good"), []), ("bad", receiver.url("/flaky/b?fail=2"), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("job.failed")
        let deliverer = f.deliverer(transport: client, options: f.options { $0.maxAttempts = 2 })

        #expect(await deliverer.deliverDue().retrying == 1)
        let second = await deliverer.deliverDue(now: Date().addingTimeInterval(86_000))
        #expect(second.deadLettered == 1)
        #expect(f.ids(in: .pending).isEmpty)
        let dead = try #require(f.message(id, in: .dead))
        #expect(dead.attempts == 2)
        #expect(dead.reason?.hasPrefix("gave up after 2 attempts (maxAttempts); last error: bad: HTTP 503") == true, "\(dead.reason ?? "")")

        // Retry: back to pending, due now, attempts reset; only the endpoint not done is sent.
        #expect(try DirectoryOutboxFolders.retry(id: id, now: Date(), data: f.data))
        let revived = try #require(f.message(id, in: .pending))
        #expect(revived.attempts == 0)
        #expect(revived.retriedAt != nil)
        #expect(f.ids(in: .dead).isEmpty)
        #expect(await deliverer.deliverDue().delivered == 1)
        let got = try await receiver.received()
        #expect(got.count { $0.path == "/ok/good" } == 1)
        #expect(got.count { $0.path.hasPrefix("/flaky/") } == 3)
    }

    @Test func aMessagePastMaxAgeBecomesADeadLetter() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("hook", receiver.url("/unavailable/x"), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        // First attempted 23 h 59 min 50 s ago: the next retry (≥ 30 s later) would be past 24 h.
        let id = try f.queueEvent("job.failed", createdAt: Date().addingTimeInterval(-200_000))
        try f.edit(id) {
            $0.attempts = 1
            $0.firstAttemptAt = Date().addingTimeInterval(-86_390)
            $0.nextAttemptAt = Date().addingTimeInterval(-1)
        }
        let report = await f.deliverer(transport: client).deliverDue()
        #expect(report.deadLettered == 1)
        #expect(f.message(id, in: .dead)?.reason?.hasPrefix("the next attempt would be past maxAge (1d)") == true)

        // One that already waited past maxAge since its first attempt is not sent again.
        let old = try f.queueEvent("job.failed")
        try f.edit(old) {
            $0.attempts = 3
            $0.firstAttemptAt = Date().addingTimeInterval(-90_000)
            $0.nextAttemptAt = Date().addingTimeInterval(-1)
        }
        #expect(await f.deliverer(transport: client).deliverDue().deadLettered == 1)
        #expect(f.message(old, in: .dead)?.reason?.hasPrefix("older than maxAge") == true)

        // A message created long ago (`--now` in the past) gets its full maxAge from its first attempt.
        let backdated = try f.queueEvent("job.failed", createdAt: Date().addingTimeInterval(-300_000))
        #expect(await f.deliverer(transport: client).deliverDue().retrying == 1)
        #expect(f.message(backdated, in: .pending)?.attempts == 1)
        #expect(try await receiver.received().count == 2)
    }

    @Test func anUnreadableMessageFileBecomesADeadLetter() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        try FileIO.makeDirectories(DirectoryOutboxFolders.directory(.pending, in: f.data))
        try FileIO.writeAtomically(DirectoryOutboxFolders.directory(.pending, in: f.data) + "/broken.json", Array("{not json".utf8))
        let report = await f.deliverer(transport: client).deliverDue()
        #expect(report.deadLettered == 1)
        #expect(FileManager.default.fileExists(atPath: DirectoryOutboxFolders.directory(.dead, in: f.data) + "/broken.json"))
    }

    @Test func anEventNobodySubscribesToIsDropped() async throws {
        let f = try OutboxFixture(webhooks: [("ops", "http://127.0.0.1:9/x", ["job.failed"])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queueEvent("achievement.unlocked")
        let report = await f.deliverer(transport: client).deliverDue()
        #expect(report.dropped == 1)
        #expect(f.message(id, in: .dropped)?.reason == "no webhook endpoint subscribes to achievement.unlocked")
    }

    // MARK: Concurrency

    @Test func aSlowEndpointDoesNotHoldUpTheOthers() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [
            // 4 s: room for the 31 fast deliveries on a machine other tests keep busy.
            ("slow", receiver.url("/slow/s?ms=4000"), ["slow.event", "both.event"]),
            ("fast", receiver.url("/ok/fast"), ["fast.event", "both.event"]),
        ])
        defer { f.remove() }
        let client = try Self.client(timeout: .seconds(20))
        defer { client.shutdown() }
        // Claimed in file-name order: the slow ones first.
        for i in 0..<2 { try f.queueEvent("slow.event", id: "a-slow-\(i)") }
        try f.queueEvent("both.event", id: "b-both")
        for i in 0..<30 { try f.queueEvent("fast.event", id: "c-fast-\(i)") }

        let report = await f.deliverer(transport: client, options: f.options { $0.concurrency = 4 }).deliverDue()

        #expect(report.delivered == 33)
        let got = try await receiver.received()
        let slowDone = got.filter { $0.path.hasPrefix("/slow/") }.compactMap(\.completedAt)
        let fastDone = got.filter { $0.path == "/ok/fast" }.compactMap(\.completedAt)
        #expect(slowDone.count == 3)
        #expect(fastDone.count == 31)
        // Every fast delivery (including the "both" message's) finished before the first slow one.
        #expect(fastDone.max()! < slowDone.min()!, "fast deliveries waited for the slow endpoint")
    }

    @Test func concurrentDeliverersNeverSendOneMessageAtTheSameTime() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [("hook", receiver.url("/slow/x?ms=300"), [])])
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        var ids: [String] = []
        for _ in 0..<12 { ids.append(try f.queueEvent("job.failed")) }
        let a = f.deliverer(transport: client, options: f.options { $0.concurrency = 3 })
        let b = f.deliverer(transport: client, options: f.options { $0.concurrency = 3 })

        async let first = a.deliverDue()
        async let second = b.deliverDue()
        let (ra, rb) = await (first, second)

        #expect(ra.delivered + rb.delivered == 12)
        let got = try await receiver.received()
        #expect(got.compactMap(\.id).sorted() == ids.sorted(), "a message was sent twice or not at all")
        #expect(f.ids(in: .pending).isEmpty)
        #expect(ra.busy + rb.busy > 0, "the two passes did not overlap; the test proves nothing")
    }

    @Test func nextDueDateIsTheEarliestPendingAttempt() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let deliverer = f.deliverer(transport: client)
        #expect(deliverer.nextDueDate() == nil)
        let soon = Date(timeIntervalSince1970: 1_900_000_100)
        let a = try f.queueEvent("job.failed")
        let b = try f.queueEvent("job.failed")
        try f.edit(a) { $0.attempts = 1; $0.nextAttemptAt = Date(timeIntervalSince1970: 1_900_000_500) }
        try f.edit(b) { $0.attempts = 2; $0.nextAttemptAt = soon }
        #expect(deliverer.nextDueDate() == soon)
        // A message not attempted yet is due now.
        try f.queueEvent("job.failed", createdAt: Date(timeIntervalSince1970: 2_000_000_000))
        #expect(deliverer.nextDueDate() == .distantPast)
    }

    // MARK: Pushes

    @Test func aDeadTokenIsRemovedFromTheUserDocumentInAFollowUpCommit() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try f.dir.write("data/users/u1.json", """
            {"name": "Ada", "fcmTokens": ["tok-dead-0000000001", "tok-live-0000000002"], "fcmToken": "tok-dead-0000000001", "apnsTokens": ["apns-1"], "points": 5}
            """)
        let provider = ScriptedPushProvider(script: ["tok-dead-0000000001": [.removeToken(reason: "UNREGISTERED")]])
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queuePush(user: "u1", tokens: ["tok-dead-0000000001", "tok-live-0000000002"])

        let report = await f.deliverer(transport: client, provider: provider).deliverDue()

        #expect(report.delivered == 1)
        #expect(report.tokensRemoved == 1)
        #expect(f.message(id, in: .pending) == nil)
        let user = try #require(f.dir.read("data/users/u1.json"))
        #expect(user == """
            {
              "name": "Ada",
              "fcmTokens": [
                "tok-live-0000000002"
              ],
              "apnsTokens": [
                "apns-1"
              ],
              "points": 5
            }

            """)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: f.data.root + "/.hearth/journal")) ?? []).isEmpty)
    }

    @Test func aPushRetryOnlyResendsTheTokensNotYetDelivered() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let provider = ScriptedPushProvider(script: ["tok-b-000000000002": [.retry(after: .seconds(42), reason: "UNAVAILABLE"), .delivered]])
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queuePush(user: "u1", tokens: ["tok-a-000000000001", "tok-b-000000000002"])
        // The attempt's time from a clock that stands still: the retry is exactly 42 s after it.
        let at = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let deliverer = f.deliverer(transport: client, provider: provider, clock: { at })

        #expect(await deliverer.deliverDue(now: at).retrying == 1)
        let m = try #require(f.message(id, in: .pending))
        #expect(m.targets.map(\.state) == [.delivered, .pending])
        #expect(m.lastError == "…000002: UNAVAILABLE")
        #expect(m.nextAttemptAt == at.addingTimeInterval(42))

        #expect(await deliverer.deliverDue(now: Date().addingTimeInterval(60)).delivered == 1)
        #expect(provider.sends(to: "tok-a-000000000001") == 1)
        #expect(provider.sends(to: "tok-b-000000000002") == 2)
    }

    @Test func aPermanentPushFailureBecomesADeadLetterOnceTheOtherTokensAreDone() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let provider = ScriptedPushProvider(script: ["tok-bad-00000000001": [.permanentFailure(reason: "INVALID_ARGUMENT: bad payload")]])
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queuePush(user: "u1", tokens: ["tok-bad-00000000001", "tok-ok-000000000002"])
        let report = await f.deliverer(transport: client, provider: provider).deliverDue()
        #expect(report.deadLettered == 1)
        let dead = try #require(f.message(id, in: .dead))
        #expect(dead.targets.map(\.state) == [.failed, .delivered])
        #expect(dead.reason == "permanent failure: …000001: INVALID_ARGUMENT: bad payload")
        // A manual retry sends only the failed token again.
        try DirectoryOutboxFolders.retry(id: id, now: Date(), data: f.data)
        let fixed = ScriptedPushProvider()
        #expect(await f.deliverer(transport: client, provider: fixed).deliverDue().delivered == 1)
        #expect(f.message(id, in: .pending) == nil)
        #expect(fixed.sent.map(\.token) == ["tok-bad-00000000001"])
    }

    @Test func pushesWithoutAProviderAreDroppedAsSkipped() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let client = try Self.client()
        defer { client.shutdown() }
        let id = try f.queuePush(user: "u1", tokens: ["tok-1234567890"])
        let report = await f.deliverer(transport: client, provider: nil).deliverDue()
        #expect(report.dropped == 1)
        #expect(f.ids(in: .pending).isEmpty)
        #expect(f.message(id, in: .dropped)?.reason == "skipped: no push provider configured ([push] provider = \"none\")")
        #expect(f.message(id, in: .dropped)?.queuedTokens == ["…567890"], "a dropped message keeps full device tokens")
    }

    @Test func aPushQueuedWithoutTokensGoesToTheUsersDeviceTokens() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try f.dir.write("data/users/u1.json", #"{"fcmTokens": ["fcm-a-0000000001"], "fcmToken": "fcm-legacy-00000002", "apnsTokens": ["apns-000000000003"]}"#)
        try f.dir.write("data/users/u2.json", #"{"name": "no devices"}"#)
        let client = try Self.client()
        defer { client.shutdown() }
        let fcm = ScriptedPushProvider(name: "fcm")
        try f.queuePush(user: "u1", tokens: nil)
        let none = try f.queuePush(user: "u2", tokens: nil)
        let report = await f.deliverer(transport: client, provider: fcm).deliverDue()
        #expect(report.delivered == 1)
        #expect(report.dropped == 1)
        #expect(Set(fcm.sent.map(\.token)) == ["fcm-a-0000000001", "fcm-legacy-00000002"])
        #expect(f.message(none, in: .dropped)?.reason == "user u2 has no device tokens")

        let apns = ScriptedPushProvider(name: "apns")
        try f.queuePush(user: "u1", tokens: nil)
        _ = await f.deliverer(transport: client, provider: apns).deliverDue()
        #expect(apns.sent.map(\.token) == ["apns-000000000003"])
    }

    // MARK: Secrets

    @Test func logsAndMessageFilesNeverShowSecretsOrFullTokens() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture(webhooks: [
            ("a", receiver.url("/unavailable/a?k=URLSECRET"), []), ("b", receiver.url("/gone/b"), []), ("c", receiver.url("/reset/c"), []),
        ])
        defer { f.remove() }
        let tokens = ["tokenAAAAAAAAAAAAAAAA-111111", "tokenBBBBBBBBBBBBBBBB-222222", "tokenCCCCCCCCCCCCCCCC-333333"]
        try f.dir.write("data/users/u1.json", #"{"fcmTokens": ["\#(tokens[0])", "\#(tokens[1])", "\#(tokens[2])"]}"#)
        let provider = ScriptedPushProvider(script: [
            tokens[0]: [.removeToken(reason: "UNREGISTERED")], tokens[1]: [.retry(after: nil, reason: "UNAVAILABLE")],
            tokens[2]: [.permanentFailure(reason: "SENDER_ID_MISMATCH")],
        ])
        let (logger, logs) = CapturingLogHandler.logger()
        let client = try Self.client()
        defer { client.shutdown() }
        try f.queueEvent("job.failed")
        try f.queuePush(user: "u1", tokens: nil)
        try f.queuePush(user: "u1", tokens: [tokens[1]])
        _ = await f.deliverer(transport: client, provider: provider, logger: logger).deliverDue()

        let key = String(OutboxFixture.secret.dropFirst("whsec_".count))
        let listing = try (DirectoryOutboxFolders.messages(in: .pending, data: f.data) + DirectoryOutboxFolders.messages(in: .dead, data: f.data))
            .map { ($0.lastError ?? "") + ($0.reason ?? "") + $0.targets.compactMap(\.error).joined() }.joined(separator: "\n")
        for text in [logs.text, listing] {
            #expect(!text.contains(key))
            #expect(!text.contains("URLSECRET"))
            for t in tokens { #expect(!text.contains(t), "full token in \(text)") }
        }
        #expect(logs.text.contains("…111111"))  // shown redacted
    }
}
