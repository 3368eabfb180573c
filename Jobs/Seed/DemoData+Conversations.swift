import Foundation
import HearthKit

extension DemoData {
    /// The trading app's chat for `conversation-sync` (docs/cli.md#hearth-seed), from a generator
    /// of its own so that every document written before it stays byte-identical. At the anchor as T:
    ///
    /// - **Conversations** `conversations/conv-NNNNN`, one per 10 users, of two or three members,
    ///   in turn in the iOS app's shape (`participantIds`, `participants` as `{id, name}` objects,
    ///   `type`, `schemaVersion`; a summary the client left one message behind) and the web
    ///   app's (`participants` as ids, `participantNames`; `lastMessage` and
    ///   `lastMessageTimestamp` right, no `messageCount` or `unreadCount`).
    /// - **Messages** `messages/msg-conv-NNNNN-K`, three to eight per conversation, spread over
    ///   the three days before the anchor; in every other conversation the newest ones are less
    ///   than an hour old (delivered and pushed at the default `maxAge`). iOS messages have
    ///   `createdAt` and `status` (`"sent"` while new, else `"delivered"` or `"read"`), the first
    ///   of a trade conversation is a `"system"` message, some are images; web messages have a
    ///   firebase-admin `timestamp` (`{_seconds, _nanoseconds}`), `isRead` and no `status`.
    ///   Every message is read by its sender, older ones by most other members.
    /// - **The report's messages**: `conversations/conv-study-group` (web shape) holds
    ///   `msg-00001` and `msg-00002`, which ``writePendingWork`` writes for `report-triage`.
    /// - **A legacy conversation** `conversations/conv-legacy-00001`, written by an older iOS
    ///   client with `participants` as objects and no `participantIds`: no members, so it and
    ///   its message are skipped, with a warning each.
    func writeConversations(_ w: inout TreeWriter, uid: (Int) -> String) throws {
        guard users >= 10 else { return }
        var rng = SplitMix64(demoSeed: seed ^ 0x3C6E_F372_FE94_F82B)
        let minute = 60.0, hour = 3600.0
        let anchorS = anchor.timeIntervalSince1970
        func at(_ age: Double) -> Date { Date(timeIntervalSince1970: (anchorS - age).rounded(.down)) }
        func admin(_ date: Date) -> JSONValue {
            .object(JSONObject([("_seconds", .int(Int64(date.timeIntervalSince1970))), ("_nanoseconds", 0)]))
        }
        let texts = [
            "Hey! Still up for the trade?", "Sure, does Saturday work?", "Saturday is perfect", "I'll bring my notes",
            "Can we meet at the library?", "Running 5 minutes late", "Thanks, that was really helpful", "Same time next week?",
            "Sent you the files", "Let's do it",
        ]

        for n in 1...(users / 10) {
            let id = "conv-" + String(repeating: "0", count: max(0, 5 - String(n).count)) + String(n)
            let iOS = n % 2 == 1
            var members: [Int] = []
            let size = rng.chance(0.25) ? 3 : 2
            while members.count < size {
                let u = rng.int(1...users)
                if !members.contains(u) { members.append(u) }
            }
            let kind = size == 3 ? "group" : rng.pick(["direct", "trade"])
            // Message times, oldest first: the newest under an hour old in every other conversation.
            let count = rng.int(3...8)
            var age = n % 4 < 2 ? Double(rng.int(1...50)) * minute : Double(rng.int(2...48)) * hour
            var ages: [Double] = []
            for _ in 0..<count {
                ages.insert(age, at: 0)
                age += Double(rng.int(1...180)) * minute
            }
            let created = at(ages[0] + Double(rng.int(1...60)) * minute)

            var contents: [String] = []
            for (k, age) in ages.enumerated() {
                let system = iOS && kind == "trade" && k == 0
                let sender = system ? "system" : uid(members[rng.int(0...(members.count - 1))])
                let image = !system && rng.chance(0.1)
                let content = system ? "Trade started" : image ? "https://cdn.example.edu/chat/\(id)-\(k).jpg" : rng.pick(texts)
                contents.append(content)
                var readBy: [JSONValue] = system ? [] : [.string(sender)]
                for m in members.map(uid) where m != sender && rng.chance(age > hour ? 0.8 : 0.15) { readBy.append(.string(m)) }
                let senderName: JSONValue = system ? "TradeYa" : .string(name(Int(sender.dropFirst())!))
                var o = JSONObject([
                    ("conversationId", .string(id)), ("senderId", .string(sender)), ("senderName", senderName), ("content", .string(content)),
                    ("type", .string(system ? "system" : image ? "image" : "text")),
                ])
                if iOS {
                    o["createdAt"] = Timestamp.json(at(age))
                    o["readBy"] = .array(readBy)
                    o["status"] = .string(age < hour ? "sent" : readBy.count == members.count ? "read" : "delivered")
                    o["schemaVersion"] = "2.0"
                } else {
                    o["timestamp"] = admin(at(age))
                    o["isRead"] = .bool(readBy.count > 1)
                    o["readBy"] = .array(readBy)
                }
                try w.put("messages", "msg-\(id)-\(k)", o)
            }

            // The summary as the clients left it.
            let last = at(ages[count - 1]), before = at(ages[count - 2])
            if iOS {
                try w.put("conversations", id, JSONObject([
                    ("title", kind == "group" ? "Study group" : .null), ("type", .string(kind)),
                    ("participants", .array(members.map { .object(JSONObject([("id", .string(uid($0))), ("name", .string(name($0)))])) })),
                    ("participantIds", .array(members.map { .string(uid($0)) })),
                    ("lastMessage", .string(contents[count - 2])), ("lastActivity", Timestamp.json(before)), ("messageCount", .int(Int64(count - 1))),
                    ("unreadCount", .object(JSONObject())), ("relatedTradeId", kind == "trade" ? .string("trade-\(uid(members[0]))") : .null),
                    ("createdAt", Timestamp.json(created)), ("updatedAt", Timestamp.json(before)), ("schemaVersion", "2.0"),
                ]))
            } else {
                try w.put("conversations", id, JSONObject([
                    ("participants", .array(members.map { .string(uid($0)) })),
                    ("participantNames", .object(JSONObject(members.map { (uid($0), .string(name($0))) }))),
                    ("participantAvatars", .object(JSONObject())),
                    ("lastMessage", .string(contents[count - 1])), ("lastMessageTimestamp", admin(last)),
                    ("createdAt", admin(created)), ("updatedAt", admin(last)),
                ]))
            }
        }

        // The conversation of the two messages report-triage's demo reports name.
        try w.put("conversations", "conv-study-group", JSONObject([
            ("participants", .array([7, 8, 9].map { .string(uid($0)) })),
            ("participantNames", .object(JSONObject([7, 8, 9].map { (uid($0), .string(name($0))) }))),
            ("participantAvatars", .object(JSONObject())),
            ("lastMessage", "See you at the library"), ("lastMessageTimestamp", admin(at(2 * hour))),
            ("createdAt", admin(at(30 * hour))), ("updatedAt", admin(at(2 * hour))),
        ]))

        // An older iOS client's conversation: members only as objects.
        try w.put("conversations", "conv-legacy-00001", JSONObject([
            ("title", .null), ("type", "direct"),
            ("participants", .array([1, 2].map { .object(JSONObject([("id", .string(uid($0))), ("name", .string(name($0)))])) })),
            ("lastMessage", "Is this still available?"), ("createdAt", Timestamp.json(at(200 * hour))),
        ]))
        try w.put("messages", "msg-conv-legacy-00001-0", JSONObject([
            ("conversationId", "conv-legacy-00001"), ("senderId", .string(uid(2))), ("senderName", .string(name(2))),
            ("content", "Is this still available?"), ("type", "text"), ("createdAt", Timestamp.json(at(200 * hour))), ("readBy", .array([.string(uid(2))])),
        ]))
    }
}
