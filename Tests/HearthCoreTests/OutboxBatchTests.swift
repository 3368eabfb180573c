import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHTTP
import HearthOutbound
import Testing

/// The batched outbox (a run's messages in `pending/<job>-<run>-bNNNN.jsonl` with an
/// append-only delivery log): what is sent, what is recorded, what is removed, and what a
/// crash or a second deliverer can and cannot do.
// Serialized: its deliveries take their times from the wall clock (leases, retries, a slow
// endpoint), and its own tests beside each other on 2 cores stretched them past their margins.
@Suite("outbox batches", .serialized)
struct OutboxBatchTests {
    static let job = "notification-fanout"
    static let run = "20261120T120000000Z-00ab"

    static func push(_ n: Int, token: String? = nil) -> OutboxMessage {
        OutboxMessage(
            id: "push-n\(n)", kind: .push, recipient: "u\(n)", title: "Gift received",
            payload: JSONObject([
                ("userId", .string("u\(n)")), ("title", .string("Gift received")), ("body", .string("Someone sent you \(n) points")),
                ("tokens", .array([.string(token ?? "tok-\(n)-0000000000")])),
            ]))
    }

    /// Writes `messages` as the run's commit does.
    static func queue(_ messages: [OutboxMessage], in f: OutboxFixture) throws {
        for case .put(let path, let bytes) in DirectoryOutboxFolders.batchOperations(messages, job: job, runID: run, createdAt: Date()) {
            try FileIO.makeDirectories(f.data.root + "/.hearth/outbox/pending")
            try FileIO.writeAtomically(f.data.root + "/" + path, bytes)
        }
    }

    static var batchFile: String { DirectoryOutboxFolders.relativePath(batchOf: job, runID: run, part: 1) }

    static func pendingFiles(_ f: OutboxFixture) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: DirectoryOutboxFolders.directory(.pending, in: f.data))) ?? []).sorted()
    }

    @Test func aRunsMessagesAreBatchesOfAtMostTenThousand() throws {
        let messages = (0..<10_001).map { Self.push($0) }
        let ops = DirectoryOutboxFolders.batchOperations(messages, job: Self.job, runID: Self.run, createdAt: Date(timeIntervalSince1970: 0))
        #expect(ops.count == 2)
        guard case .put(let first, let firstBytes) = ops[0], case .put(let second, let secondBytes) = ops[1] else {
            Issue.record("expected two puts")
            return
        }
        #expect(first == ".hearth/outbox/pending/notification-fanout-20261120T120000000Z-00ab-b0001.jsonl")
        #expect(second == ".hearth/outbox/pending/notification-fanout-20261120T120000000Z-00ab-b0002.jsonl")
        #expect(firstBytes.count { $0 == 0x0A } == 10_000)
        #expect(String(decoding: secondBytes, as: UTF8.self) == """
            {"id":"push-n10000","kind":"push","recipient":"u10000","title":"Gift received","payload":{"userId":"u10000","title":"Gift received",\
            "body":"Someone sent you 10000 points","tokens":["tok-10000-0000000000"]},"job":"notification-fanout","runId":"20261120T120000000Z-00ab",\
            "createdAt":"1970-01-01T00:00:00.000Z","attempts":0,"nextAttemptAt":"1970-01-01T00:00:00.000Z","lastError":null}

            """)
    }

    @Test func aBatchLineIsTheCompactEnvelopeWithThePayloadAsKept() {
        let created = Date(timeIntervalSince1970: 1_795_000_000.123)
        let messages = [
            OutboxMessage(
                id: "push-n\"1\\é", kind: .push, recipient: "u/1\n", title: "Tab\there — ünïcode ✓",
                payload: JSONObject([
                    ("userId", "u/1\n"), ("tokens", .array(["tok\u{01}a", "tok-b"])), ("badge", 3), ("ratio", 0.25), ("big", .double(1e21)),
                    ("text", .number(JSONNumber(unchecked: "1.10"))), ("nested", .object(JSONObject([("empty", .array([])), ("null", .null), ("no", false)]))),
                ])),
            .event("bonus.paid", id: "bonus.paid-2026-W47", data: JSONObject([("week", "2026-W47"), ("points", -0.0), ("empty", .object(JSONObject()))])),
            .event("weird", id: "weird-1", data: JSONObject([("nan", .double(.nan)), ("inf", .double(-.infinity))])),
        ]
        guard case .put(_, let bytes)? = DirectoryOutboxFolders.batchOperations(messages, job: Self.job, runID: Self.run, createdAt: created).first else {
            Issue.record("expected a put")
            return
        }
        let expected = messages.map { JSONWriter.compact(.object(OutboxEnvelope.queued($0, job: Self.job, runID: Self.run, createdAt: created))) + "\n" }.joined()
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    @Test func aMessageKeptAsTextGivesBackItsPayload() {
        let payload = JSONObject([("a", 1), ("b", 1.5), ("c", .double(1e300)), ("d", .array(["x", .null, true])), ("e", "ü\u{7f}\"")])
        let m = OutboxMessage(id: "m1", kind: .event, recipient: "e", title: "e", payload: payload)
        #expect(m.payload == payload)
        #expect(String(decoding: m.compactPayload, as: UTF8.self) == JSONWriter.compact(.object(payload)))
        var changed = m
        changed.payload["a"] = 2
        #expect(changed.payload["a"] == 2)
        #expect(changed != m)
        let nonFinite = OutboxMessage(id: "m2", kind: .event, recipient: "e", title: "e", payload: JSONObject([("x", .double(.infinity))]))
        #expect(nonFinite.payload["x"] == .double(.infinity))
    }

    @Test func aDeliveredBatchIsRemovedWithItsLog() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try Self.queue((1...3).map { Self.push($0) }, in: f)
        #expect(f.ids(in: .pending) == ["push-n1", "push-n2", "push-n3"])
        let provider = ScriptedPushProvider()
        let client = try OutboxDeliveryTests.client()
        defer { client.shutdown() }

        let report = await f.deliverer(transport: client, provider: provider).deliverDue()

        #expect(report.delivered == 3)
        #expect(provider.sent.map(\.token).sorted() == ["tok-1-0000000000", "tok-2-0000000000", "tok-3-0000000000"])
        #expect(Self.pendingFiles(f) == [])
        #expect(f.ids(in: .dead) == [])
    }

    @Test func aRetryingMessageKeepsItsStateInTheLogAndOnlyItIsSentAgain() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try Self.queue([Self.push(1), Self.push(2, token: "tok-flaky-00000002"), Self.push(3)], in: f)
        let provider = ScriptedPushProvider(script: ["tok-flaky-00000002": [.retry(after: .seconds(42), reason: "UNAVAILABLE"), .delivered]])
        let client = try OutboxDeliveryTests.client()
        defer { client.shutdown() }
        let deliverer = f.deliverer(transport: client, provider: provider)

        let first = await deliverer.deliverDue()
        #expect(first.delivered == 2)
        #expect(first.retrying == 1)
        let name = String(Self.batchFile.split(separator: "/").last!)
        #expect(Self.pendingFiles(f) == [name, name + ".log"])
        let waiting = try DirectoryOutboxFolders.messages(in: .pending, data: f.data)
        #expect(waiting.map(\.id) == ["push-n2"])
        #expect(waiting.first?.attempts == 1)
        #expect(waiting.first?.lastError == "…000002: UNAVAILABLE")
        let due = try #require(waiting.first?.nextAttemptAt)

        let early = await deliverer.deliverDue(now: due.addingTimeInterval(-1))
        #expect(early.notDue == 1)
        #expect(early.nextDue == due)

        let second = await deliverer.deliverDue(now: due)
        #expect(second.delivered == 1)
        #expect(provider.sends(to: "tok-1-0000000000") == 1)
        #expect(provider.sends(to: "tok-flaky-00000002") == 2)
        #expect(provider.sends(to: "tok-3-0000000000") == 1)
        #expect(Self.pendingFiles(f) == [])
    }

    @Test func aLogRecordTornByACrashIsIgnoredAndItsMessageSentAgain() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try Self.queue([Self.push(1), Self.push(2)], in: f)
        let log = f.data.root + "/" + Self.batchFile + ".log"
        try FileIO.writeAtomically(log, Array(#"{"id":"push-n1","outcome":"delivered"}"#.utf8) + [0x0A] + Array(#"{"id":"push-n2","outc"#.utf8))
        #expect(f.ids(in: .pending) == ["push-n2"])
        let provider = ScriptedPushProvider(script: ["tok-2-0000000000": [.retry(after: nil, reason: "UNAVAILABLE")]])
        let client = try OutboxDeliveryTests.client()
        defer { client.shutdown() }

        let report = await f.deliverer(transport: client, provider: provider).deliverDue()

        #expect(report.retrying == 1)
        #expect(provider.sent.map(\.token) == ["tok-2-0000000000"])
        // The new record starts on a line of its own, after the torn one.
        let text = String(decoding: try #require(try FileIO.readSmallFile(log)), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[1] == #"{"id":"push-n2","outc"#)
        #expect(lines[2].hasPrefix(#"{"id":"push-n2","outcome":"pending","envelope":{"#))
        #expect(try DirectoryOutboxFolders.messages(in: .pending, data: f.data).map(\.attempts) == [1])
    }

    @Test func aLogLeftWithoutItsBatchIsRemoved() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let dir = DirectoryOutboxFolders.directory(.pending, in: f.data)
        try FileIO.makeDirectories(dir)
        try FileIO.writeAtomically(dir + "/weekly-bonus-20261116T000500000Z-0001-b0001.jsonl.log", Array(#"{"id":"x","outcome":"delivered"}"#.utf8) + [0x0A])
        let client = try OutboxDeliveryTests.client()
        defer { client.shutdown() }

        _ = await f.deliverer(transport: client, provider: ScriptedPushProvider()).deliverDue()

        #expect(Self.pendingFiles(f) == [])
    }

    @Test func twoDeliverersNeverSendABatchMessageTwice() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try Self.queue((1...500).map { Self.push($0) }, in: f)
        let provider = ScriptedPushProvider()
        let client = try OutboxDeliveryTests.client()
        defer { client.shutdown() }
        let a = f.deliverer(transport: client, provider: provider)
        let b = f.deliverer(transport: client, provider: provider)

        async let first = a.deliverDue()
        async let second = b.deliverDue()
        let reports = await [first, second]

        #expect(reports.map(\.delivered).reduce(0, +) == 500)
        #expect(provider.sent.count == 500)
        #expect(Set(provider.sent.map(\.token)).count == 500)
        #expect(Self.pendingFiles(f) == [])
    }

    @Test func aDeadLetterOfABatchCanBeRetriedOnlyOnceTheBatchSaysSo() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try Self.queue([Self.push(1), Self.push(2, token: "tok-bad-00000002")], in: f)
        // As if a crash came after the dead letter was written and before the log said so.
        let early = try #require(DirectoryOutboxFolders.messages(in: .pending, data: f.data).last)
        try FileIO.makeDirectories(DirectoryOutboxFolders.directory(.dead, in: f.data))
        try FileIO.writeAtomically(DirectoryOutboxFolders.directory(.dead, in: f.data) + "/push-n2.json", early.bytes)
        #expect(throws: FileIO.Failure.self) { try DirectoryOutboxFolders.retry(id: "push-n2", now: Date(), data: f.data) }
        #expect(DirectoryOutboxFolders.locate(id: "push-n2", data: f.data) == .pending)

        let provider = ScriptedPushProvider(script: ["tok-bad-00000002": [.permanentFailure(reason: "INVALID_ARGUMENT: bad payload"), .delivered]])
        let client = try OutboxDeliveryTests.client()
        defer { client.shutdown() }
        let deliverer = f.deliverer(transport: client, provider: provider)
        let report = await deliverer.deliverDue()
        #expect(report.delivered == 1)
        #expect(report.deadLettered == 1)
        #expect(Self.pendingFiles(f) == [])
        #expect(f.message("push-n2", in: .dead)?.reason == "permanent failure: …000002: INVALID_ARGUMENT: bad payload")

        #expect(try DirectoryOutboxFolders.retry(id: "push-n2", now: Date(), data: f.data))
        #expect(f.ids(in: .pending) == ["push-n2"])
        let again = await deliverer.deliverDue()
        #expect(again.delivered == 1)
        #expect(provider.sends(to: "tok-bad-00000002") == 2)
        #expect(f.ids(in: .dead) == [])
    }

    @Test func aBatchLineThatIsNoMessageBecomesADeadLetterText() async throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        try Self.queue([Self.push(1)], in: f)
        let path = f.data.root + "/" + Self.batchFile
        var bytes = try #require(try FileIO.readSmallFile(path))
        bytes += Array("{oops\n".utf8)
        try FileIO.writeAtomically(path, bytes)
        let client = try OutboxDeliveryTests.client()
        defer { client.shutdown() }

        let report = await f.deliverer(transport: client, provider: ScriptedPushProvider()).deliverDue()

        #expect(report.delivered == 1)
        #expect(report.deadLettered == 1)
        #expect(Self.pendingFiles(f) == [])
        let dead = DirectoryOutboxFolders.directory(.dead, in: f.data) + "/notification-fanout-20261120T120000000Z-00ab-b0001-line2.txt"
        #expect(try FileIO.readSmallFile(dead) == Array("{oops\n".utf8))
    }
}
