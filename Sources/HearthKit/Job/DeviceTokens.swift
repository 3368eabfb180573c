/// A user's device tokens for one push provider, and what was wrong with the token fields
/// (docs/push.md#which-tokens). The one place the token rule lives: jobs' plans, the outbox
/// deliverer (a push queued without tokens) and the removal of dead tokens all use it.
///
/// - The fields read are the provider kind's (``PushProviderKind/tokenFields``), in order:
///   `provider = "fcm"` (and `"none"`, whose plans show what FCM would get): the `fcmTokens`
///   array, then the legacy single `fcmToken`; `"apns"`: `apnsTokens`; `"webhook"`: the fields of both.
/// - Empty strings and repeats are dropped. Token fields are read leniently, as the outbox
///   deliverer reads them: a field of the wrong type, or a non-string entry, is left out and
///   named in ``problems`` — it never makes the user document invalid input (other jobs rewrite
///   users; a push concern must not stop them).
public struct DeviceTokens: Sendable, Equatable {
    public var tokens: [String]
    /// Wrong-typed token fields, e.g. `field "fcmTokens": expected an array of strings,
    /// found string`. Values are never shown: tokens are credentials.
    public var problems: [String]

    /// A field of the user document that holds device tokens.
    package struct Field: Sendable, Hashable {
        package var name: String
        /// An array of strings; otherwise one string.
        package var isList: Bool

        /// An array of token strings.
        package static func list(_ name: String) -> Field { Field(name: name, isList: true) }
        /// One token string.
        package static func single(_ name: String) -> Field { Field(name: name, isList: false) }
    }

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
        for field in provider.tokenFields {
            switch (user[field.name], field.isList) {
            case (nil, _), (.null?, _): continue
            case (.array(let items)?, true):
                for (i, item) in items.enumerated() {
                    if case .string(let t) = item { add(t) } else { out.problems.append("field \"\(field.name)[\(i)]\": expected string, found \(item.typeName)") }
                }
            case (let other?, true): out.problems.append("field \"\(field.name)\": expected an array of strings, found \(other.typeName)")
            case (.string(let t)?, false): add(t)
            case (let other?, false): out.problems.append("field \"\(field.name)\": expected string, found \(other.typeName)")
            }
        }
        self = out
    }

    /// `user` without `tokens` in any of `fields` (a single-token field that holds one is
    /// removed); other fields untouched.
    package static func removing(_ tokens: Set<String>, from user: JSONObject, fields: [Field]) -> JSONObject {
        var o = user
        for field in fields {
            if field.isList {
                if case .array(let list)? = o[field.name] {
                    let kept = list.filter { v in v.stringValue.map { !tokens.contains($0) } ?? true }
                    if kept.count != list.count { o[field.name] = .array(kept) }
                }
            } else if let single = o[field.name]?.stringValue, tokens.contains(single) {
                o[field.name] = nil
            }
        }
        return o
    }
}
