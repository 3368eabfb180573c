package import HearthKit
/// One push notification for one user, as queued in the outbox by a job.
///
/// The payload of an outbox message of kind `.push` is
/// `{"userId", "tokens": [...], "title", "body", "data": {String: String}, "badge"?}`;
/// `tokens` are the user's device tokens when the job queued it.
package struct PushNotification: Sendable, Equatable {
    package var messageID: String
    package var userID: String
    package var tokens: [String]
    package var title: String
    package var body: String
    package var data: [String: String]
    package var badge: Int?

    package init(messageID: String, userID: String, tokens: [String], title: String, body: String, data: [String: String] = [:], badge: Int? = nil) {
        self.messageID = messageID
        self.userID = userID
        self.tokens = tokens
        self.title = title
        self.body = body
        self.data = data
        self.badge = badge
    }
}

/// What happened to one push for one device token.
package enum PushSendResult: Sendable, Equatable {
    case delivered
    /// The provider says the token is dead (FCM `UNREGISTERED`, APNs 410): remove it from the
    /// user's document and drop this push for it.
    case removeToken(reason: String)
    /// Retry later (timeouts, connection errors, 429, 5xx), honouring `Retry-After` when given.
    case retry(after: Duration?, reason: String)
    /// Never retried unchanged (other 4xx): dead letter.
    case permanentFailure(reason: String)
}

/// A push service (FCM HTTP v1, APNs, a signed webhook). Implementations never log or
/// return full tokens, keys or access tokens in reasons. ``PushProviders`` builds the
/// configured one (docs/push.md#adding-a-provider).
package protocol PushProvider: Sendable {
    /// `"fcm"`, `"apns"`, `"webhook"`.
    var name: String { get }
    /// Which of a user's device tokens it takes (``DeviceTokens``); by default the kind of the
    /// built-in provider named ``name`` (``PushProviders/builtIn``), else every field of
    /// ``PushProviderKind/webhook``.
    var kind: PushProviderKind { get }
    func send(_ push: PushNotification, to token: String) async -> PushSendResult
}

extension PushProvider {
    package var kind: PushProviderKind { PushProviders.builtIn.entry(named: name)?.kind ?? .webhook }
}
