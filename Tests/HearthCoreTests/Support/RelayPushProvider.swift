import Foundation
import HearthKit
import HearthOutbound

/// A push provider that exists only in the tests, added as docs/push.md#adding-a-provider says:
/// this one file, and one registry line (`PushProviders.builtIn.adding(RelayPushProvider.Settings.self)`
/// where the tests load their config). It relays each push to one device token as a signed
/// Standard Webhook of type `relay.push` to `[push.relay] url`, tagged with `[push.relay]
/// channel`; a user's tokens for it are in `relayTokens`. 2xx is delivered, 410 means the
/// device is gone (its token is removed), anything else is retried.
struct RelayPushProvider: PushProvider {
    let name = "relay"
    /// Not one of the built-in providers, so it names its kind itself.
    var kind: PushProviderKind { Settings.kind }
    let url: String
    let channel: String
    let secret: WebhookSecret
    let sender: WebhookSender

    func send(_ push: PushNotification, to token: String) async -> PushSendResult {
        let now = Date()
        let data = JSONObject([("channel", .string(channel)), ("token", .string(token)), ("title", .string(push.title)), ("body", .string(push.body))])
        let body = WebhookSender.body(type: "relay.push", timestamp: now, data: data)
        switch await sender.send(url: url, id: WebhookPushProvider.webhookID(messageID: push.messageID, token: token), body: body, secret: secret, now: now) {
        case .delivered: return .delivered
        case .gone: return .removeToken(reason: "relay: the device is gone (410)")
        case .retry(let after, let reason): return .retry(after: after, reason: "relay: " + reason)
        case .cancelled: return .retry(after: nil, reason: "relay: cancelled before an answer came")
        }
    }

    /// `[push.relay]`: `url`, the signing secret from `secretFile` or `secretEnv`, `channel`.
    struct Settings: PushProviderSettings {
        static let kind = PushProviderKind(name: "relay", tokenFields: [.list("relayTokens")])
        var url: String?
        var secretFile: String?
        var secretEnv: String?
        var channel = "general"

        init() {}

        init<Table: PushSettingsTable>(table t: inout Table) throws(Table.Failure) {
            url = try t.url("url")
            secretFile = try t.secretFile("secretFile")
            secretEnv = try t.string("secretEnv")
            if let c = try t.string("channel") {
                guard !c.isEmpty, c.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                    throw t.invalid("channel", "[push.relay] channel: invalid value \(JSONWriter.quoted(c)); use letters, digits and -")
                }
                channel = c
            }
        }

        var missing: String? {
            url == nil || (secretFile == nil && secretEnv == nil) ? "[push.relay] url and secretFile (or secretEnv)" : nil
        }

        var files: [String] { [secretFile].compactMap { $0 } }

        func makeProvider(http: any HTTPTransport, environment: [String: String]) throws(PushSetupError) -> any PushProvider {
            guard let url else { throw PushSetupError("[push.relay] url is required: the relay's https:// URL") }
            let secret: WebhookSecret
            do { secret = try WebhookSecret.load(file: secretFile, env: secretEnv, environment: environment) } catch {
                throw PushSetupError("[push.relay]: \(error.description)")
            }
            return RelayPushProvider(url: url, channel: channel, secret: secret, sender: WebhookSender(transport: http))
        }
    }
}
