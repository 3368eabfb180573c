/// `[push] provider`: which device tokens a queued push carries (`fcmTokens` or `apnsTokens`
/// of the user document) and where the outbox sends it.
public enum PushProviderKind: String, Sendable, CaseIterable {
    case fcm, apns, webhook, none
}
