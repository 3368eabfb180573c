import Foundation
public import HearthKit

/// `conversation-sync` (docs/jobs/conversation-sync.md#rules, skill-trading app): the chat's
/// per-conversation summary, which clients cannot keep right (two phones write at once), and a
/// push per new message, as a Firestore `onWrite` function would do.
///
/// - **Members**: the first of `participantIds`, `participants` that is a list of strings (an
///   empty list counts); a conversation with neither is skipped (one warning with the count).
/// - **Counted**: a message whose `conversationId` names a conversation with members, whose
///   `senderId` is a string and whose time (`createdAt`, or `timestamp` when `createdAt` is
///   absent or null) parses; the others are skipped (one warning with the count).
/// - **Summary** of a conversation with counted messages, L the latest by (time, id):
///   `messageCount`, `lastMessage` (L's `content`, `""` when not a string),
///   `lastMessageTimestamp` and `lastActivity` (L's time, canonical), `unreadCount` (per member:
///   messages not from them, not `"system"`, not in their `readBy`). Written with `updatedAt: S`
///   only when one of the five differs as JSON; every other field kept.
/// - **Delivery**: a counted message, not `"system"`, `status` absent, `"sending"` or `"sent"`,
///   time in `[T − maxAge, T]` → `status: "delivered"` and, in the same commit, a push
///   `message-{messageId}-{member}` to each other member not in `readBy` whose users document
///   has device tokens.
public struct ConversationSync: Job {
    static let maxAgeParameter = Parameter.duration(
        "maxAge", default: .seconds(3600), help: "the oldest message (by its time, before T) that is still delivered and pushed")

    public static let descriptor = JobDescriptor(
        name: "conversation-sync",
        summary: "Keep each conversation's lastMessage, messageCount and unreadCount right; push each new message to the other members.",
        defaultSchedule: "* * * * *",
        parameters: [maxAgeParameter],
        reads: ["conversations", "messages", "users"],
        writes: ["conversations", "messages"],
        triggers: ["messages", "conversations"]
    )

    /// The statuses of a message not delivered yet (absent or null too).
    static let undelivered: Set<String> = ["sending", "sent"]

    let maxAge: TimeInterval
    let provider: PushProviderKind

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        maxAge = DurationFormat.seconds(parameters[Self.maxAgeParameter])
        provider = environment.pushProvider
    }

    /// A conversation as read: its members (nil: neither field is a list of strings).
    struct Conversation: Sendable {
        var document: Document
        var members: [String]?
    }

    /// A message, read leniently (messages are the app's; none is ever invalid for a field).
    enum Read: Sendable {
        case counted(Message)
        case skipped
    }

    struct Message: Sendable {
        var id: String
        var conversationID: String
        var senderID: String
        var time: Date
        var content: String
        var type: String?
        var readBy: Set<String>
        var senderName: String?
        /// Kept only for a message this run delivers (the others are not written).
        var toDeliver: Document?

        var isSystem: Bool { type == "system" }

        static func ordered(_ a: Message, _ b: Message) -> Bool {
            a.time != b.time ? a.time < b.time : a.id < b.id
        }
    }

    public func run(_ context: JobContext) async throws {
        let T = context.logicalTime
        let oldest = T.addingTimeInterval(-maxAge)

        // A run started by writes reads only the conversations they touch, and their messages.
        let scope = try await touched(context)
        let conversation: @Sendable (Document) throws(FieldError) -> Conversation? = { d throws(FieldError) -> Conversation? in
            Conversation(document: d, members: Self.members(of: d))
        }
        let conversations = if let scope {
            try await context.decode(scope.conversations.sorted().map { DocumentPath(unchecked: ["conversations", $0]) }, conversation)
        } else {
            try await context.decode("conversations", conversation)
        }
        let memberless = conversations.filter { $0.members == nil }.count
        if memberless > 0 {
            context.warn("skipped \(memberless) conversation(s) with no members (neither participantIds nor participants is a list of strings)")
        }
        let withMembers = Set(conversations.lazy.filter { $0.members != nil }.map(\.document.id))

        let message: @Sendable (Document) throws(FieldError) -> Read? = { d throws(FieldError) -> Read? in
            guard let conversationID = d["conversationId"]?.stringValue, withMembers.contains(conversationID),
                let senderID = d["senderId"]?.stringValue, let time = Self.time(of: d)
            else { return .skipped }
            let type = d["type"]?.stringValue
            var m = Message(
                id: d.id, conversationID: conversationID, senderID: senderID, time: time, content: d["content"]?.stringValue ?? "", type: type,
                readBy: Set(d["readBy"]?.arrayValue?.compactMap(\.stringValue) ?? []), senderName: d["senderName"]?.stringValue)
            let status = d["status"]
            let pending = status == nil || status?.isNull == true || status?.stringValue.map(Self.undelivered.contains) == true
            if pending, type != "system", time >= oldest, time <= T { m.toDeliver = d }
            return .counted(m)
        }
        let reads = if let scope {
            try await context.decode("messages", filter: ScanFilter([.oneOf(field: "conversationId", values: scope.conversations)]), message)
        } else {
            try await context.decode("messages", message)
        }
        var byConversation: [String: [Message]] = [:]
        var skipped = scope?.unattached ?? 0
        for r in reads {
            switch r {
            case .counted(let m): byConversation[m.conversationID, default: []].append(m)
            case .skipped: skipped += 1
            }
        }
        if skipped > 0 {
            context.warn("skipped \(skipped) message(s) that count for no conversation (conversationId names no conversation with members, senderId is not a string, or neither createdAt nor timestamp is a time)")
        }

        let now = Timestamp.json(context.startTime)
        var members: [String: [String]] = [:]
        for c in conversations {
            guard let m = c.members else { continue }
            members[c.document.id] = m
            guard var messages = byConversation[c.document.id], !messages.isEmpty else { continue }
            messages.sort(by: Message.ordered)
            let summary = Self.summary(messages, members: m)
            if summary.contains(where: { k, v in !(c.document[k]?.sameContent(as: v) ?? false) }) {
                context.update(c.document) { o in
                    for (k, v) in summary { o[k] = v }
                    o["updatedAt"] = now
                }
            }
        }

        // Delivery, in time order: the status, and a push to each member who has not read it.
        let deliveries = byConversation.values.joined().filter { $0.toDeliver != nil }.sorted(by: Message.ordered)
        guard !deliveries.isEmpty else { return }
        var wanted = Set<String>()
        for m in deliveries {
            for r in Self.recipients(of: m, members: members[m.conversationID] ?? []) { wanted.insert(r) }
            if m.senderName == nil || m.senderName == "" { wanted.insert(m.senderID) }
        }
        let people = try await PushRecipient.load(wanted.filter { DocumentPath.isValid(name: $0) }.sorted(), provider: provider, from: context)

        for m in deliveries {
            context.update(m.toDeliver!) { $0["status"] = "delivered" }
            let title = m.senderName.flatMap { $0.isEmpty ? nil : $0 } ?? people[m.senderID]?.name ?? ""
            let body = switch m.type {
            case "image": "Sent a photo"
            case "file": "Sent a file"
            default: m.content
            }
            for r in Self.recipients(of: m, members: members[m.conversationID] ?? []) {
                guard let person = people[r], !person.tokens.isEmpty else { continue }
                context.queue(PushMessages.push(
                    id: "message-\(m.id)-\(r)", userID: r, tokens: person.tokens, title: title, body: body,
                    data: [("type", "message"), ("conversationId", m.conversationID), ("messageId", m.id)], badge: nil))
            }
        }
    }

    /// What a run started by writes reads: the conversations written, and those the written
    /// messages name; `unattached`: the written messages whose `conversationId` is not a string
    /// (skipped, as a full run skips them).
    struct Scope {
        var conversations: Set<String>
        var unattached: Int
    }

    /// The conversations the writes of a triggered run touch (docs/jobs/conversation-sync.md#triggered-runs);
    /// nil when the run must read everything: it was not started by writes, or a written message
    /// is gone or unreadable (which conversation it counted for is not known any more).
    func touched(_ context: JobContext) async throws -> Scope? {
        guard let changes = context.changes else { return nil }
        let written = changes.paths(in: "messages").filter { $0.collection == "messages" }
        let named = try await context.decode(written) { d throws(FieldError) -> String? in d["conversationId"]?.stringValue ?? "" }
        if named.count < written.count { return nil }
        var scope = Scope(conversations: Set(changes.paths(in: "conversations").filter { $0.collection == "conversations" }.map(\.id)), unattached: 0)
        for id in named {
            if id.isEmpty || !DocumentPath.isValid(name: id) { scope.unattached += 1 } else { scope.conversations.insert(id) }
        }
        return scope
    }

    /// The first of `participantIds`, `participants` that is a list of strings, each member once.
    static func members(of d: Document) -> [String]? {
        for field in ["participantIds", "participants"] {
            guard let items = d[field]?.arrayValue else { continue }
            let strings = items.compactMap(\.stringValue)
            guard strings.count == items.count else { continue }
            var seen = Set<String>()
            return strings.filter { seen.insert($0).inserted }
        }
        return nil
    }

    /// `createdAt`, or `timestamp` when `createdAt` is absent or null; nil when it does not parse.
    static func time(of d: Document) -> Date? {
        if let c = d["createdAt"], !c.isNull { return Timestamp.date(from: c) }
        return d["timestamp"].flatMap(Timestamp.date(from:))
    }

    /// The five summary fields of a conversation from its counted messages (in (time, id) order).
    static func summary(_ messages: [Message], members: [String]) -> [(String, JSONValue)] {
        let last = messages[messages.count - 1]
        var unread = JSONObject()
        for member in members {
            let n = messages.lazy.filter { $0.senderID != member && !$0.isSystem && !$0.readBy.contains(member) }.count
            unread[member] = .int(Int64(n))
        }
        let at = Timestamp.json(last.time)
        return [
            ("messageCount", .int(Int64(messages.count))), ("lastMessage", .string(last.content)),
            ("lastMessageTimestamp", at), ("lastActivity", at), ("unreadCount", .object(unread)),
        ]
    }

    /// The members a delivered message is pushed to: not its sender, not in its `readBy`.
    static func recipients(of m: Message, members: [String]) -> [String] {
        members.filter { $0 != m.senderID && !m.readBy.contains($0) }
    }
}
