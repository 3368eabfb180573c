/// A user's device tokens for one push provider, and what was wrong with the token fields
/// (docs/push.md#which-tokens).
///
/// - `provider = "fcm"` (and `"none"`, whose plans show what FCM would get): the `fcmTokens`
///   array, then the legacy single `fcmToken`; `"apns"`: `apnsTokens`; `"webhook"`: all of them.
/// - Empty strings and repeats are dropped. Token fields are read leniently, as the outbox
///   deliverer reads them: a field of the wrong type, or a non-string entry, is left out and
///   named in ``problems`` — it never makes the user document invalid input (other jobs rewrite
///   users; a push concern must not stop them).
public struct DeviceTokens: Sendable, Equatable {
    public var tokens: [String]
    /// Wrong-typed token fields, e.g. `field "fcmTokens": expected an array of strings,
    /// found string`. Values are never shown: tokens are credentials.
    public var problems: [String]

    public init(tokens: [String] = [], problems: [String] = []) {
        self.tokens = tokens
        self.problems = problems
    }

    /// The tokens `user` holds for `provider`.
    public init(of user: Document, provider: PushProviderKind) {
        var out = DeviceTokens()
        var seen = Set<String>()
        func add(_ t: String) {
            if !t.isEmpty, seen.insert(t).inserted { out.tokens.append(t) }
        }
        func array(_ field: String) {
            switch user[field] {
            case nil, .null?: return
            case .array(let items)?:
                for (i, item) in items.enumerated() {
                    if case .string(let t) = item { add(t) } else { out.problems.append("field \"\(field)[\(i)]\": expected string, found \(item.typeName)") }
                }
            case let other?: out.problems.append("field \"\(field)\": expected an array of strings, found \(other.typeName)")
            }
        }
        if provider != .apns {
            array("fcmTokens")
            switch user["fcmToken"] {
            case nil, .null?: break
            case .string(let t)?: add(t)
            case let other?: out.problems.append("field \"fcmToken\": expected string, found \(other.typeName)")
            }
        }
        if provider == .apns || provider == .webhook { array("apnsTokens") }
        self = out
    }
}
