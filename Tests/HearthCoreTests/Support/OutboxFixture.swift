import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthOutbound
import HearthHost
import Logging
import Synchronization
import HearthTestSupport

/// A data directory with an outbox, webhook endpoints and a signing secret, for delivery tests.
struct OutboxFixture {
    /// The key every receiver and endpoint uses, configured in its `whsec_` form.
    static let secret = "whsec_" + Data("outbox-fixture-signing-key-0123456789".utf8).base64EncodedString()

    let dir: TempDirectory
    let data: DataDirectory
    var config: HearthConfig
    let secretFile: String

    init(webhooks: [(name: String, url: String, events: [String])] = []) throws {
        dir = try TempDirectory("hearth-outbox")
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        data = try DataDirectory(root: dir.path + "/data")
        secretFile = dir.path + "/hook.secret"
        try dir.write("hook.secret", Self.secret + "\n")
        config = HearthConfig(dataDir: data.root)
        config.webhooks = webhooks.map { WebhookConfig(name: $0.name, url: $0.url, secretFile: secretFile, events: $0.events) }
    }

    func remove() { dir.remove() }

    /// Options with short back-off, so tests can reason about `nextAttemptAt`.
    func options(_ change: (inout OutboxDeliverer.Options) -> Void = { _ in }) -> OutboxDeliverer.Options {
        var o = OutboxDeliverer.Options(config: config)
        o.backoffMin = .seconds(30)
        o.backoffMax = .seconds(3600)
        change(&o)
        return o
    }

    func deliverer(
        transport: any HTTPTransport, provider: (any PushProvider)? = nil, logger: Logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
        options: OutboxDeliverer.Options? = nil, clock: @escaping @Sendable () -> Date = { Date() }
    ) -> OutboxDeliverer {
        OutboxDeliverer(config: config, store: data, transport: transport, pushProvider: provider, logger: logger, options: options ?? self.options(), environment: [:], clock: clock)
    }

    /// Queues an event the way a commit does (straight into `pending/`).
    @discardableResult
    func queueEvent(_ type: String, id: String? = nil, data payload: JSONObject = JSONObject([("n", .int(1))]), createdAt: Date = Date()) throws -> String {
        let id = id ?? "\(type)-\(UUID().uuidString)"
        try DirectoryOutboxFolders.enqueue(.event(type, id: id, data: payload), job: "test-job", runID: "run-1", createdAt: createdAt, data: data)
        return id
    }

    /// Queues a push for `user`; `tokens` nil means "the job queued none".
    @discardableResult
    func queuePush(user: String, tokens: [String]?, id: String? = nil, title: String = "Hello") throws -> String {
        let id = id ?? "push-\(UUID().uuidString)"
        var payload = JSONObject([("userId", .string(user)), ("title", .string(title)), ("body", .string("You have mail")),
                                  ("data", .object(JSONObject([("type", .string("gift_received"))])))])
        if let tokens { payload["tokens"] = .array(tokens.map { .string($0) }) }
        try DirectoryOutboxFolders.enqueue(OutboxMessage(id: id, kind: .push, recipient: user, title: title, payload: payload),
                                job: "test-job", runID: "run-1", createdAt: Date(), data: data)
        return id
    }

    func message(_ id: String, in folder: OutboxFolder) -> OutboxEnvelope? {
        let path = DirectoryOutboxFolders.directory(folder, in: data) + "/" + DirectoryOutboxFolders.fileName(id) + ".json"
        return FileManager.default.contents(atPath: path).flatMap { OutboxEnvelope(bytes: Array($0)) }
    }

    func ids(in folder: OutboxFolder) -> [String] {
        ((try? DirectoryOutboxFolders.messages(in: folder, data: data)) ?? []).map(\.id).sorted()
    }

    /// Rewrites a pending message (to age it, for instance).
    func edit(_ id: String, _ change: (inout OutboxEnvelope) -> Void) throws {
        guard var e = message(id, in: .pending) else { throw CocoaError(.fileNoSuchFile) }
        change(&e)
        try FileIO.writeAtomically(DirectoryOutboxFolders.directory(.pending, in: data) + "/" + DirectoryOutboxFolders.fileName(id) + ".json", e.bytes)
    }
}

/// A push provider scripted per token, recording what it was asked to send (the push path's
/// own HTTP is tested with the providers; this exercises the outbox's bookkeeping).
final class ScriptedPushProvider: PushProvider {
    let name: String
    private let script: Mutex<[String: [PushSendResult]]>
    private let log = Mutex<[(messageID: String, token: String)]>([])

    /// `script[token]` is the answers for that token, in order (the last one repeats);
    /// tokens without a script are delivered.
    init(name: String = "fcm", script: [String: [PushSendResult]] = [:]) {
        self.name = name
        self.script = Mutex(script)
    }

    func send(_ push: PushNotification, to token: String) async -> PushSendResult {
        log.withLock { $0.append((push.messageID, token)) }
        return script.withLock { s in
            guard var answers = s[token], !answers.isEmpty else { return .delivered }
            let answer = answers.count > 1 ? answers.removeFirst() : answers[0]
            s[token] = answers
            return answer
        }
    }

    var sent: [(messageID: String, token: String)] { log.withLock { $0 } }
    func sends(to token: String) -> Int { sent.count { $0.token == token } }
}
