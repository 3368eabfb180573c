import Foundation
import HearthKit
import HearthStore
import HearthHTTP
import HearthOutbound
import HearthHost
import Logging
import Testing
import HearthTestSupport

/// A provider is one file plus one registry line (docs/push.md#adding-a-provider): the
/// test-only ``RelayPushProvider``, registered here, is chosen by `[push] provider`, reads its
/// own `[push.relay]` keys, gives jobs and the deliverer its own token field, and delivers
/// through the outbox to a real receiver (`Tests/Servers/webhook_receiver.py`, which checks
/// every signature with Python's `hmac`).
@Suite("push providers from the registry")
struct PushProviderRegistryTests {
    static let registry = PushProviders.builtIn.adding(RelayPushProvider.Settings.self)
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Writes `toml` beside the fixture's data and loads it with the relay registered.
    func load(_ toml: String, in f: OutboxFixture) throws -> HearthConfig {
        try f.dir.write("hearth.toml", "dataDir = \"data\"\n" + toml)
        return try ConfigLoader(jobs: [], environment: [:], pushProviders: Self.registry).load(path: f.dir.path + "/hearth.toml")
    }

    func error(_ toml: String, registry: PushProviders = Self.registry) -> String? {
        do {
            _ = try ConfigLoader(jobs: [], environment: [:], pushProviders: registry).parse(toml, file: "/etc/hearth/hearth.toml", dataOverride: "/tmp")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aRegisteredProviderIsChosenByNameAndReadsItsOwnTable() throws {
        let f = try OutboxFixture()
        defer { f.remove() }
        let config = try load("[push]\nprovider = \"relay\"\n[push.relay]\nurl = \"https://relay.example/push\"\nsecretFile = \"hook.secret\"\nchannel = \"campus\"\n", in: f)

        #expect(config.push.provider == RelayPushProvider.Settings.kind)
        let relay = config.push[RelayPushProvider.Settings.self]
        #expect(relay.url == "https://relay.example/push")
        #expect(relay.secretFile == f.secretFile)
        #expect(relay.channel == "campus")
        #expect(config.push.files == [f.secretFile])
        let client = try CurlHTTPClient()
        defer { client.shutdown() }
        let provider = try #require(try PushProviders.make(config: config, http: client, environment: [:]) as? RelayPushProvider)
        #expect(provider.url == "https://relay.example/push")
        #expect(provider.channel == "campus")
    }

    @Test func itsTokensAreTheOnesItsKindNames() throws {
        let user = try #require(try JSONParser.parse(
            #"{"fcmTokens": ["fcm-000000000001"], "relayTokens": ["relay-00000000001", "", "relay-00000000001", 7, "relay-00000000002"]}"#
        ).objectValue)
        let version = DocumentVersion(size: 0, mtimeSeconds: 0, mtimeNanoseconds: 0, hash: 0)
        let tokens = DeviceTokens(of: Document(path: try DocumentPath("users", "u1"), object: user, version: version), provider: RelayPushProvider.Settings.kind)
        #expect(tokens == DeviceTokens(tokens: ["relay-00000000001", "relay-00000000002"], problems: [#"field "relayTokens[3]": expected string, found integer"#]))
    }

    @Test func itsConfigMistakesAreErrorsNamingTheFileLineAndFix() {
        #expect(error("[push]\nprovider = \"relay\"\n[push.relay]\nurl = \"https://relay.example/push\"\nchanel = \"campus\"\n")
            == #"/etc/hearth/hearth.toml:5: unknown key "push.relay.chanel"; accepted here: channel, secretEnv, secretFile, url"#)
        #expect(error("[push]\nprovider = \"relay\"\n")
            == #"/etc/hearth/hearth.toml:1: [push] provider = "relay" needs [push.relay] url and secretFile (or secretEnv)"#)
        #expect(error("[push.relay]\nchannel = \"a b\"\n")
            == #"/etc/hearth/hearth.toml:2: [push.relay] channel: invalid value "a b"; use letters, digits and -"#)
        #expect(error("[push]\nprovider = \"hms\"\n")
            == #"/etc/hearth/hearth.toml:2: push.provider: invalid value "hms"; accepted: "fcm", "apns", "webhook", "relay", "none""#)
        // Without its registry line, Hearth does not know it.
        #expect(error("[push]\nprovider = \"relay\"\n", registry: .builtIn)
            == #"/etc/hearth/hearth.toml:2: push.provider: invalid value "relay"; accepted: "fcm", "apns", "webhook", "none""#)
        #expect(error("[push.relay]\nurl = \"https://relay.example/push\"\n", registry: .builtIn)
            == #"/etc/hearth/hearth.toml:1: unknown key "push.relay"; accepted here: apns, fcm, provider, webhook"#)
    }

    @Test func pushesGoThroughItToARealServerAndAGoneDeviceLosesItsToken() async throws {
        let receiver = try await WebhookReceiver.start(secret: OutboxFixture.secret)
        defer { receiver.stop() }
        let f = try OutboxFixture()
        defer { f.remove() }
        try f.dir.write("data/users/u1.json", #"{"name": "Ada", "fcmTokens": ["fcm-000000000001"], "relayTokens": ["relay-00000000001", "relay-00000000002"]}"#)
        try f.dir.write("data/users/u2.json", #"{"name": "Bo", "fcmTokens": ["fcm-000000000003"], "relayTokens": ["relay-00000000003"]}"#)
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        // Queued without tokens: the deliverer reads the relay's field of the user.
        let ok = try load("[push]\nprovider = \"relay\"\n[push.relay]\nurl = \"\(receiver.url("/ok/relay"))\"\nsecretFile = \"hook.secret\"\nchannel = \"campus\"\n", in: f)
        try f.queuePush(user: "u1", tokens: nil, id: "push-1", title: "Gift received")
        let delivered = try await OutboxDelivery(config: ok, store: f.data, http: client, logger: Self.quiet, environment: [:]).deliverDue()
        #expect(delivered.delivered == 1)
        #expect(f.ids(in: .pending).isEmpty)

        let gone = try load("[push]\nprovider = \"relay\"\n[push.relay]\nurl = \"\(receiver.url("/gone/relay"))\"\nsecretFile = \"hook.secret\"\n", in: f)
        try f.queuePush(user: "u2", tokens: nil, id: "push-2", title: "Hello")
        let removed = try await OutboxDelivery(config: gone, store: f.data, http: client, logger: Self.quiet, environment: [:]).deliverDue()
        #expect(removed.tokensRemoved == 1)

        let received = try await receiver.received()
        #expect(received.allSatisfy { $0.signatureValid && $0.type == "relay.push" })
        let sent = try received.map { r -> String in
            let data = try #require(try JSONParser.parse(r.body).objectValue?["data"]?.objectValue)
            return "\(r.path) \(data["channel"]?.stringValue ?? "-") \(data["token"]?.stringValue ?? "-") \(data["title"]?.stringValue ?? "-")"
        }
        #expect(sent.sorted() == [
            "/gone/relay general relay-00000000003 Hello",
            "/ok/relay campus relay-00000000001 Gift received",
            "/ok/relay campus relay-00000000002 Gift received",
        ])
        #expect(f.dir.read("data/users/u2.json") == """
            {
              "name": "Bo",
              "fcmTokens": [
                "fcm-000000000003"
              ],
              "relayTokens": []
            }

            """)
    }
}
