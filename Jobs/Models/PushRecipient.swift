import HearthKit

/// A user as a notification job needs them: the name to show and the device tokens of the
/// configured push provider (friend-notify, conversation-sync).
struct PushRecipient: Sendable {
    var id: String
    var name: String
    var tokens: [String]

    /// The users at `ids` (invalid ones are reported by the context and left out), by id.
    static func load(_ ids: [String], provider: PushProviderKind, from context: JobContext) async throws -> [String: PushRecipient] {
        let paths = ids.map { DocumentPath(unchecked: ["users", $0]) }
        var people: [String: PushRecipient] = [:]
        for p in try await context.decode(paths, { d throws(FieldError) in
            PushRecipient(id: d.id, name: try d.string("name") ?? "", tokens: DeviceTokens(of: d, provider: provider).tokens)
        }) { people[p.id] = p }
        return people
    }
}
