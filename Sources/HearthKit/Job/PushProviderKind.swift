/// `[push] provider`: the provider's name, and which fields of a user document hold the device
/// tokens a push for it carries (docs/push.md#which-tokens). Data, not a list of cases: a
/// provider added to the registry (docs/push.md#adding-a-provider) brings its own kind, and
/// ``DeviceTokens`` reads whatever fields the kind names.
public struct PushProviderKind: Sendable, Hashable, CustomStringConvertible {
    /// The `[push] provider` value: `"fcm"`, `"apns"`, `"webhook"`, `"none"`.
    public let name: String
    /// The token fields, in the order their tokens are taken.
    package let tokenFields: [DeviceTokens.Field]

    package init(name: String, tokenFields: [DeviceTokens.Field]) {
        self.name = name
        self.tokenFields = tokenFields
    }

    public var description: String { name }

    /// FCM: the `fcmTokens` array, then the legacy single `fcmToken`.
    public static let fcm = PushProviderKind(name: "fcm", tokenFields: [.list("fcmTokens"), .single("fcmToken")])
    /// APNs: `apnsTokens`.
    public static let apns = PushProviderKind(name: "apns", tokenFields: [.list("apnsTokens")])
    /// The app's own gateway: every field of ``fcm`` and ``apns``.
    public static let webhook = PushProviderKind(name: "webhook", tokenFields: fcm.tokenFields + apns.tokenFields)
    /// No provider: nothing is pushed; plans show what FCM would get.
    public static let none = PushProviderKind(name: "none", tokenFields: fcm.tokenFields)
}
