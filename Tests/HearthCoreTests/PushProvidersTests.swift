import Foundation
import HearthKit
import HearthHTTP
import HearthOutbound
import HearthHost
import Testing

/// `PushProviders.make` (config → provider, credentials from files or the environment, errors
/// naming the file and field) and the signed-webhook push provider against
/// `Tests/Servers/webhook_receiver.py`, which checks each signature with Python's `hmac`.
@Suite("Push providers from config", .enabled(if: FakePushService.pythonReady, "needs PyPI h2 and cryptography (scripts/install-deps)"))
struct PushProvidersTests {
    func config(_ toml: String, environment: [String: String] = [:]) throws -> HearthConfig {
        try ConfigLoader(jobs: [], environment: environment).parse(toml, file: "/etc/hearth/hearth.toml", dataOverride: "/tmp")
    }

    func make(_ toml: String, environment: [String: String] = [:]) throws -> (any PushProvider)? {
        let client = try CurlHTTPClient()
        defer { client.shutdown() }
        return try PushProviders.make(config: try config(toml), http: client, environment: environment)
    }

    func setupError(_ toml: String, environment: [String: String] = [:]) -> String? {
        do {
            _ = try make(toml, environment: environment)
            return nil
        } catch let e as PushSetupError {
            return e.description
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func noneMakesNoProvider() throws {
        #expect(try make("[push]\nprovider = \"none\"\n") == nil)
        #expect(try make("") == nil)
    }

    @Test func fcmReadsTheServiceAccountFromAFileOrTheEnvironment() async throws {
        let (credentials, _) = try await PushCredentials.shared.value
        let fromFile = try make("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountFile = \"\(credentials.serviceAccountFile)\"\n")
        #expect((fromFile as? FCMProvider)?.account.projectID == "hearth-test")
        #expect((fromFile as? FCMProvider)?.endpoint == "https://fcm.googleapis.com")
        let json = try String(contentsOfFile: credentials.serviceAccountFile, encoding: .utf8)
        let fromJSON = try make("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountEnv = \"FCM_SA\"\n", environment: ["FCM_SA": json])
        #expect((fromJSON as? FCMProvider)?.account.clientEmail == "hearth-push@hearth-test.iam.gserviceaccount.com")
        let fromPath = try make("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountEnv = \"GOOGLE_APPLICATION_CREDENTIALS\"\n",
                                environment: ["GOOGLE_APPLICATION_CREDENTIALS": credentials.serviceAccountFile])
        #expect(fromPath?.name == "fcm")
    }

    @Test func fcmErrorsNameTheFileOrVariableAndTheField() async throws {
        #expect(setupError("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountFile = \"/nonexistent/sa.json\"\n")
            == "[push.fcm] serviceAccountFile: the file /nonexistent/sa.json does not exist")
        #expect(setupError("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountEnv = \"FCM_SA\"\n")
            == "[push.fcm] serviceAccountEnv: the environment variable FCM_SA is not set or empty")
        #expect(setupError("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountEnv = \"FCM_SA\"\n", environment: ["FCM_SA": #"{"type": "service_account", "project_id": 7}"#])
            == #"$FCM_SA: field "client_email" is missing or empty; a service account key from the Firebase console has it"#)
        #expect(setupError("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountEnv = \"FCM_SA\"\n", environment: ["FCM_SA": #"{"type": "authorized_user"}"#])
            == #"$FCM_SA: field "type" is "authorized_user", expected "service_account"; use the service account key from the Firebase console, not a client configuration file"#)
    }

    @Test func apnsReadsTheP8KeyAndItsSettings() async throws {
        let (credentials, _) = try await PushCredentials.shared.value
        let toml = """
            [push]
            provider = "apns"
            [push.apns]
            keyFile = "\(credentials.apnsKeyFile)"
            keyId = "TESTKEY123"
            teamId = "TEAM123456"
            topic = "com.example.campus"
            endpoint = "https://api.sandbox.push.apple.com"
            priority = 5
            expiration = "1h"
            """
        let apns = try #require(try make(toml) as? APNsProvider)
        #expect(apns.endpoint == "https://api.sandbox.push.apple.com")
        #expect(apns.topic == "com.example.campus")
        #expect(apns.priority == 5)
        #expect(apns.expiration == .seconds(3600))
        #expect(apns.providerToken.keyID == "TESTKEY123")
        #expect(apns.providerToken.teamID == "TEAM123456")
    }

    @Test func apnsErrorsNameTheFileAndKey() async throws {
        let (credentials, _) = try await PushCredentials.shared.value
        #expect(setupError("""
            [push]
            provider = "apns"
            [push.apns]
            keyFile = "\(credentials.serviceAccountFile)"
            keyId = "TESTKEY123"
            teamId = "TEAM123456"
            topic = "com.example.campus"
            """) == "\(credentials.serviceAccountFile): not a PEM P-256 private key; use the AuthKey_<keyId>.p8 file downloaded from the Apple developer account (Keys, with Apple Push Notifications service enabled)")
        #expect(throws: ConfigError.self) {
            _ = try config("[push]\nprovider = \"apns\"\n[push.apns]\nkeyFile = \"/x.p8\"\nkeyId = \"K\"\nteamId = \"T\"\ntopic = \"t\"\npriority = 7\n")
        }
    }

    @Test func theWebhookProviderSendsSignedPushSendEvents() async throws {
        let receiver = try await WebhookReceiver.start(secret: "whsec_dGVzdC1wdXNoLXNlY3JldC1rZXk=")
        defer { receiver.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }
        let secret = try WebhookSecret(secret: "whsec_dGVzdC1wdXNoLXNlY3JldC1rZXk=")
        let push = PushNotification(messageID: "push-n1", userID: "u1", tokens: [], title: "Hi", body: "There", data: ["notificationId": "n1"], badge: 2)
        let ok = WebhookPushProvider(url: receiver.url("/ok/push"), secret: secret, http: client)
        #expect(await ok.send(push, to: "device-token-000001") == .delivered)
        let gone = WebhookPushProvider(url: receiver.url("/gone/push"), secret: secret, http: client)
        #expect(await gone.send(push, to: "device-token-000001") == .permanentFailure(reason: "push webhook \(receiver.server.baseURL) answered 410 Gone"))
        let failing = WebhookPushProvider(url: receiver.url("/error/push"), secret: secret, http: client)
        #expect(await failing.send(push, to: "device-token-000001") == .retry(after: nil, reason: "push webhook: HTTP 500"))

        let received = try await receiver.received()
        #expect(received.count == 3)
        let first = try #require(received.first)
        #expect(first.signatureValid)
        #expect(first.type == "push.send")
        #expect(first.id == WebhookPushProvider.webhookID(messageID: "push-n1", token: "device-token-000001"))
        #expect(first.id?.contains("device-token") == false)
        let body = try #require(try JSONParser.parse(first.body).objectValue)
        #expect(body["data"] == .object(JSONObject([
            ("userId", "u1"), ("token", "device-token-000001"), ("title", "Hi"), ("body", "There"),
            ("data", .object(JSONObject([("notificationId", "n1")]))), ("badge", 2),
        ])))
    }
}
