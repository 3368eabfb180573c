package import Foundation
package import HearthKit

/// Push through the app's own gateway (`provider = "webhook"`, docs/push.md): each push to each
/// device token is one Standard-Webhooks-signed POST (see ``WebhookSender``) of type
/// `push.send` with data `{userId, token, title, body, data, badge}` (`badge` null when none).
///
/// The `webhook-id` is `{messageId}.{first 12 hex digits of SHA-256(token)}`: stable across
/// retries, different per device, and free of the token itself. 2xx is delivered; 410 means the
/// gateway is gone (permanent failure); anything else, and any transport failure, is retried.
/// The gateway never causes a token to be removed.
package struct WebhookPushProvider: PushProvider {
    package let name = "webhook"
    package let url: String
    private let secret: WebhookSecret
    private let sender: WebhookSender
    private let now: @Sendable () -> Date

    package init(url: String, secret: WebhookSecret, http: any HTTPTransport, now: @escaping @Sendable () -> Date = { Date() }) {
        self.url = url
        self.secret = secret
        self.sender = WebhookSender(transport: http)
        self.now = now
    }

    package func send(_ push: PushNotification, to token: String) async -> PushSendResult {
        let t = now()
        let body = WebhookSender.body(type: "push.send", timestamp: t, data: Self.data(push, token: token))
        let id = Self.webhookID(messageID: push.messageID, token: token)
        switch await sender.send(url: url, id: id, body: body, secret: secret, now: t) {
        case .delivered: return .delivered
        case .gone: return .permanentFailure(reason: "push webhook \(HTTPTransportError.displayURL(url)) answered 410 Gone")
        case .retry(let after, let reason): return .retry(after: after, reason: "push webhook: " + PushRedaction.clean(reason, hiding: [token]))
        case .cancelled: return .retry(after: nil, reason: "push webhook: cancelled before an answer came")
        }
    }

    /// The event's `data`.
    package static func data(_ push: PushNotification, token: String) -> JSONObject {
        JSONObject([
            ("userId", .string(push.userID)), ("token", .string(token)), ("title", .string(push.title)), ("body", .string(push.body)),
            ("data", .object(JSONObject(push.data.keys.sorted().map { ($0, .string(push.data[$0]!)) }))),
            ("badge", push.badge.map { .int(Int64($0)) } ?? .null),
        ])
    }

    package static func webhookID(messageID: String, token: String) -> String {
        messageID + "." + PushTokenHash.short(token)
    }
}

extension WebhookPushProvider {
    /// `[push.webhook]` (one line in ``PushProviders/builtIn``): the gateway's `url` and the
    /// signing secret from `secretFile` or `secretEnv`.
    package struct Settings: PushProviderSettings {
        package static let kind = PushProviderKind.webhook
        package var url: String?
        package var secretFile: String?
        package var secretEnv: String?

        package init() {}

        package init<Table: PushSettingsTable>(table t: inout Table) throws(Table.Failure) {
            url = try t.url("url")
            secretFile = try t.secretFile("secretFile")
            secretEnv = try t.string("secretEnv")
        }

        package var missing: String? {
            url == nil || (secretFile == nil && secretEnv == nil) ? "[push.webhook] url and secretFile (or secretEnv)" : nil
        }

        package var files: [String] { [secretFile].compactMap { $0 } }

        package func makeProvider(http: any HTTPTransport, environment: [String: String]) throws(PushSetupError) -> any PushProvider {
            guard let url else { throw PushSetupError("[push.webhook] url is required: the https:// URL of the app's push gateway") }
            let secret: WebhookSecret
            do { secret = try WebhookSecret.load(file: secretFile, env: secretEnv, environment: environment) } catch {
                throw PushSetupError("[push.webhook]: \(error.description)")
            }
            return WebhookPushProvider(url: url, secret: secret, http: http)
        }
    }
}
