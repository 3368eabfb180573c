import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

/// The outbox through the real `hearth` binary and a real webhook receiver on 127.0.0.1.
@Suite("outbox end to end")
struct OutboxEndToEndTests {
    static let hookSecret = "whsec_" + Data("e2e-hook-signing-key-\(UUID().uuidString)".utf8).base64EncodedString()

    static func config(dataDir: String, webhookURL: String, extra: String = "") -> String {
        """
        dataDir = "\(dataDir)"
        \(extra)
        [[webhooks]]
        name = "ops"
        url = "\(webhookURL)"
        secretFile = "hook.secret"

        """
    }

    /// Runs `hearth` with stdout and stderr going to files: a debug-level log can exceed a
    /// pipe's buffer, and `HearthProcess.run` drains stdout before stderr.
    static func runCapturingToFiles(_ args: [String], in directory: String) async throws -> HearthProcess.Result {
        let base = directory + "/hearth-output-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: HearthProcess.binary)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["HEARTH_CONFIG"] = nil
        p.environment = env
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle(forWritingAtPath: base + ".out")
        p.standardError = FileHandle(forWritingAtPath: base + ".err")
        try p.run()
        await HearthProcess.waitForExit(p)
        let out = FileManager.default.contents(atPath: base + ".out") ?? Data()
        let err = FileManager.default.contents(atPath: base + ".err") ?? Data()
        return HearthProcess.Result(status: p.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// SIGKILL `hearth outbox deliver` while its requests are in flight: every message is still
    /// pending afterwards, and the next `outbox deliver` sends each one (at least once).
    @Test func aSigkillDuringDeliveryLosesNothingAndTheNextDeliverSendsIt() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        try s.write("hook.secret", Self.hookSecret + "\n")
        try FileManager.default.createDirectory(atPath: s.path + "/d", withIntermediateDirectories: true)
        // Answers that take a minute: the kill surely comes first, even on a loaded machine.
        try s.write("hearth.toml", Self.config(dataDir: "d", webhookURL: receiver.url("/slow/e2e?ms=60000"), extra: "[http]\ntimeout = \"120s\""))
        let data = try DataDirectory(root: s.path + "/d")
        var ids: [String] = []
        for i in 0..<6 {
            let id = "bonus.paid-e2e-\(i)"
            try DirectoryOutboxFolders.enqueue(.event("bonus.paid", id: id, data: JSONObject([("week", .string("2026-W47"))])), job: "weekly-bonus", runID: "r\(i)", createdAt: Date(), data: data)
            ids.append(id)
        }

        let running = try HearthProcess.start(["outbox", "deliver", "--config", s.path + "/hearth.toml"], in: s.path)
        defer { if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) } }
        // Wait until the receiver has the requests, then kill. Polled: the receiver is another
        // process.
        try await eventually("\(ids.count) requests at the receiver", timeout: .seconds(45), pollEvery: .milliseconds(50)) {
            try await receiver.received().count >= ids.count
        }
        #expect(try await receiver.received().count == ids.count)
        kill(running.process.processIdentifier, SIGKILL)
        await running.waitForExit()
        #expect(running.process.terminationReason == .uncaughtSignal)

        // Nothing lost: every message is still pending, none half-written.
        #expect(try DirectoryOutboxFolders.messages(in: .pending, data: data).map(\.id).sorted() == ids)
        #expect(try DirectoryOutboxFolders.names(in: .pending, data: data).count == ids.count)

        // The next deliver (the endpoint answers at once now) sends every message.
        try s.write("hearth.toml", Self.config(dataDir: "d", webhookURL: receiver.url("/ok/e2e")))
        let again = try await HearthProcess.run(["outbox", "deliver", "--config", s.path + "/hearth.toml"], in: s.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("Outbox: 6 delivered, 0 retrying, 0 dead-lettered, 0 dropped."), "\(again.stdout)")
        #expect(try DirectoryOutboxFolders.names(in: .pending, data: data).isEmpty)
        let delivered = try await receiver.received().filter { $0.path == "/ok/e2e" }
        #expect(Set(delivered.compactMap(\.id)) == Set(ids))
        #expect(delivered.allSatisfy { $0.signatureValid })

        let list = try await HearthProcess.run(["outbox", "list", "--config", s.path + "/hearth.toml"], in: s.path)
        #expect(list.stdout == "The outbox is empty.\n")
    }

    /// `hearth run --no-deliver` commits and queues but sends nothing; the next `outbox
    /// deliver` sends exactly what the run queued.
    @Test func aRunWithNoDeliverLeavesItsMessagesQueuedForOutboxDeliver() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        try s.write("hook.secret", Self.hookSecret + "\n")
        #expect(try await HearthProcess.run(["seed", "--out", s.path + "/d", "--users", "20", "--seed", "9"]).status == 0)
        try s.write("hearth.toml", Self.config(dataDir: "d", webhookURL: receiver.url("/ok/e2e")) + "events = [\"job.succeeded\"]\n")

        let run = try await HearthProcess.run(["run", "xp-award", "--now", "2026-11-18T12:00:00Z", "--no-deliver", "--config", "hearth.toml"], in: s.path)
        #expect(run.status == 0, "\(run.stderr)")
        let data = try DataDirectory(root: s.path + "/d")
        let queued = try DirectoryOutboxFolders.messages(in: .pending, data: data)
        #expect(queued.map(\.kind) == [.event])
        #expect(try await receiver.received().isEmpty)

        let deliver = try await HearthProcess.run(["outbox", "deliver", "--config", "hearth.toml"], in: s.path)
        #expect(deliver.stdout.hasPrefix("Outbox: 1 delivered, 0 retrying, 0 dead-lettered, 0 dropped."), "\(deliver.stdout)")
        let received = try await receiver.received()
        #expect(received.map(\.type) == ["job.succeeded"])
        #expect(received.compactMap(\.id) == queued.map(\.id))
    }

    /// A real run delivers right away; `outbox list|dead|retry` work; and no secret, URL secret
    /// or full device token appears in any output, log line (at debug level) or run record.
    @Test func secretsAndFullTokensNeverAppearInOutputLogsOrRecords() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: Self.hookSecret)
        defer { receiver.stop() }
        let pushSecret = "push-gateway-secret-\(UUID().uuidString)"
        try s.write("hook.secret", Self.hookSecret + "\n")
        try s.write("push.secret", pushSecret + "\n")
        chmod(s.path + "/hook.secret", 0o600)
        chmod(s.path + "/push.secret", 0o600)
        // 300 users: the seed's achievements are hard to reach, this gives 11 unlocks with pushes.
        #expect(try await HearthProcess.run(["seed", "--out", s.path + "/d", "--users", "300", "--seed", "7"]).status == 0)
        let config = Self.config(
            dataDir: "d", webhookURL: receiver.url("/ok/ops?key=URLSECRET"),
            extra: """
                [outbox]
                maxAttempts = 1
                [push]
                provider = "webhook"
                [push.webhook]
                url = "\(receiver.url("/unavailable/push?key=URLSECRET"))"
                secretFile = "push.secret"
                """)
        try s.write("hearth.toml", config)
        let cfg = ["--config", s.path + "/hearth.toml"]

        // Every device token of the data set.
        var tokens: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: s.path + "/d/users") {
            guard case .object(let o)? = try? JSONParser.parse(Array(s.read("d/users/" + file)!.utf8)) else { continue }
            tokens += o["fcmTokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if let t = o["fcmToken"]?.stringValue { tokens.append(t) }
        }
        #expect(tokens.count > 10)

        var outputs: [String] = []
        func hearth(_ args: [String]) async throws -> HearthProcess.Result {
            let r = try await Self.runCapturingToFiles(args + cfg, in: s.path)
            outputs += [r.stdout, r.stderr]
            return r
        }
        let now = "2026-11-18T12:00:00Z"
        for format in ["text", "json", "markdown"] {
            #expect(try await hearth(["plan", "achievement-unlock", "--now", now, "--format", format, "--limit", "0"]).status == 0)
        }
        let run = try await hearth(["run", "achievement-unlock", "--now", now, "--log-level", "debug"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await hearth(["outbox", "list"]).status == 0)
        #expect(try await hearth(["outbox", "list", "--format", "json"]).status == 0)
        let dead = try await hearth(["outbox", "dead", "--format", "json"])
        #expect(dead.status == 0)
        #expect(try await hearth(["outbox", "deliver", "--log-level", "debug"]).status == 0)
        #expect(try await hearth(["history", "--format", "json"]).status == 0)

        // The run was delivered right after it: its job.succeeded reached the endpoint, and the
        // pushes reached the gateway (which answered 503: with maxAttempts = 1 they are dead).
        let got = try await receiver.received()
        #expect(got.contains { $0.type == "job.succeeded" && $0.signatureValid })
        let pushes = got.filter { $0.path.hasPrefix("/unavailable/push") }
        #expect(!pushes.isEmpty, "achievement-unlock queued no pushes on the seed data")
        guard case .array(let deadLetters)? = try? JSONParser.parse(Array(dead.stdout.utf8)) else {
            Issue.record("outbox dead --format json is not a JSON array: \(dead.stdout)")
            return
        }
        #expect(!deadLetters.isEmpty)
        let firstDead = try #require(deadLetters.first?.objectValue?["id"]?.stringValue)
        let retried = try await hearth(["outbox", "retry", firstDead])
        #expect(retried.status == 0)
        #expect(retried.stdout.contains("moved back to pending; due now."))

        var records = ""
        if let e = FileManager.default.enumerator(atPath: s.path + "/d/.hearth/runs") {
            while let rel = e.nextObject() as? String {
                records += s.read("d/.hearth/runs/" + rel) ?? ""
            }
        }
        #expect(!records.isEmpty)
        let everything = outputs.joined(separator: "\n") + records
        let hookKey = String(Self.hookSecret.dropFirst("whsec_".count))
        #expect(!everything.contains(hookKey), "the webhook secret leaked")
        #expect(!everything.contains(pushSecret), "the push secret leaked")
        #expect(!everything.contains("URLSECRET"), "a URL's query leaked")
        let leaked = tokens.filter { everything.contains($0) }
        #expect(leaked.isEmpty, "full device tokens in output, logs or records: \(leaked.prefix(3).map(Plan.redact))")
        #expect(everything.contains("…"), "expected redacted tokens somewhere")
    }
}
