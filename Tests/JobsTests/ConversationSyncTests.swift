import Foundation
import HearthKit
import HearthStore
import HearthHost
import Jobs
import Testing
import HearthTestSupport

/// docs/jobs/conversation-sync.md#rules on hand-made data sets at T = S = 2026-11-18T12:00:00Z
/// (`maxAge` 1 hour: messages from 2026-11-18T11:00:00Z to T are delivered and pushed).
@Suite("conversation-sync")
struct ConversationSyncTests {
    static let now = "2026-11-18T12:00:00Z"
    static let S = "2026-11-18T12:00:00.000Z"

    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        try d.writeDocument("users/amy", #"{"name": "Amy Chen", "fcmTokens": ["token-amy-abcdef123456"]}"#)
        try d.writeDocument("users/bo", #"{"name": "Bo Kim", "fcmTokens": ["token-bo-123456abcdef"]}"#)
        try d.writeDocument("users/cy", #"{"username": "cy"}"#)
        try d.writeDocument("users/di", #"{"name": "Di Rossi", "fcmToken": "token-di-a1b2c3d4e5f6"}"#)
        return d
    }

    /// A message as the iOS app writes it (`createdAt`, `status`).
    static func message(
        _ conversation: String, from sender: String, _ content: String, at createdAt: String, type: String = "text", readBy: String? = nil,
        status: String? = "sent"
    ) -> String {
        let s = status.map { #", "status": "\#($0)""# } ?? ""
        return #"{"conversationId": "\#(conversation)", "senderId": "\#(sender)", "senderName": "\#(sender.capitalized)", "content": "\#(content)", "type": "\#(type)", "createdAt": "\#(createdAt)", "readBy": \#(readBy ?? #"["\#(sender)"]"#)\#(s)}"#
    }

    /// The ids of the queued pushes.
    static func pushes(_ outcome: RunOutcome) -> [String] {
        outcome.plan.messages.map(\.id)
    }

    @Test func membersComeFromParticipantIdsOrParticipantsWhicheverIsAListOfStrings() async throws {
        let d = try makeData()
        defer { d.remove() }
        // iOS: participantIds, with participants as objects.
        try d.writeDocument("conversations/ios", #"{"type": "direct", "participants": [{"id": "amy", "name": "Amy Chen"}, {"id": "bo", "name": "Bo Kim"}], "participantIds": ["amy", "bo"], "messageCount": 1, "schemaVersion": "2.0"}"#)
        // Web: participants as ids.
        try d.writeDocument("conversations/web", #"{"participants": ["bo", "cy"], "participantNames": {"bo": "Bo Kim", "cy": ""}, "lastMessage": "old"}"#)
        // participantIds is not a list of strings: participants is used.
        try d.writeDocument("conversations/mixed", #"{"participantIds": "amy,bo", "participants": ["amy", "cy"]}"#)
        // An empty list counts: the conversation has members, none of them unread.
        try d.writeDocument("conversations/empty", #"{"participantIds": []}"#)
        // Neither: skipped, and so are its messages.
        try d.writeDocument("conversations/legacy", #"{"participants": [{"id": "amy", "name": "Amy Chen"}]}"#)
        try d.writeDocument("messages/i1", Self.message("ios", from: "amy", "Hi Bo", at: "2026-11-17T10:00:00Z", status: "read"))
        try d.writeDocument("messages/i2", Self.message("ios", from: "bo", "Hi Amy", at: "2026-11-17T10:05:00Z", readBy: #"["bo", "amy"]"#, status: "read"))
        // The web app's older clients write `timestamp`, in firebase-admin's form, and no status.
        try d.writeDocument("messages/w1", #"{"conversationId": "web", "senderId": "cy", "senderName": "cy", "content": "Hello", "type": "text", "timestamp": {"_seconds": 1794906000, "_nanoseconds": 0}, "isRead": false, "readBy": ["cy"]}"#)
        try d.writeDocument("messages/x1", Self.message("mixed", from: "cy", "yo", at: "2026-11-17T08:00:00Z", status: "delivered"))
        try d.writeDocument("messages/e1", Self.message("empty", from: "amy", "alone", at: "2026-11-17T07:00:00Z", status: "delivered"))
        try d.writeDocument("messages/l1", Self.message("legacy", from: "amy", "lost", at: "2026-11-17T07:00:00Z", status: "delivered"))

        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "conversation-sync", now: Self.now)
        #expect(outcome.plan.summaryLine == "Applied: 0 to create, 4 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(outcome.record.warnings == [
            "skipped 1 conversation(s) with no members (neither participantIds nor participants is a list of strings)",
            "skipped 1 message(s) that count for no conversation (conversationId names no conversation with members, senderId is not a string, or neither createdAt nor timestamp is a time)",
        ])
        #expect(d.documentText("conversations/ios") == """
            {
              "type": "direct",
              "participants": [
                {
                  "id": "amy",
                  "name": "Amy Chen"
                },
                {
                  "id": "bo",
                  "name": "Bo Kim"
                }
              ],
              "participantIds": [
                "amy",
                "bo"
              ],
              "messageCount": 2,
              "schemaVersion": "2.0",
              "lastMessage": "Hi Amy",
              "lastMessageTimestamp": "2026-11-17T10:05:00.000Z",
              "lastActivity": "2026-11-17T10:05:00.000Z",
              "unreadCount": {
                "amy": 0,
                "bo": 1
              },
              "updatedAt": "\(Self.S)"
            }
            """)
        #expect(d.documentText("conversations/web") == """
            {
              "participants": [
                "bo",
                "cy"
              ],
              "participantNames": {
                "bo": "Bo Kim",
                "cy": ""
              },
              "lastMessage": "Hello",
              "messageCount": 1,
              "lastMessageTimestamp": "2026-11-17T09:00:00.000Z",
              "lastActivity": "2026-11-17T09:00:00.000Z",
              "unreadCount": {
                "bo": 1,
                "cy": 0
              },
              "updatedAt": "\(Self.S)"
            }
            """)
        let mixed = try #require(try d.object("conversations/mixed"))
        #expect(mixed["unreadCount"] == .object(JSONObject([("amy", 1), ("cy", 0)])))
        let empty = try #require(try d.object("conversations/empty"))
        #expect(empty["unreadCount"] == .object(JSONObject()))
        #expect(empty["messageCount"] == 1)
        #expect(d.documentText("conversations/legacy") == #"{"participants": [{"id": "amy", "name": "Amy Chen"}]}"#)
    }

    @Test func systemMessagesCountAndCanBeLastButAreNeverUnreadNorPushed() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("conversations/trade", #"{"type": "trade", "participantIds": ["amy", "bo"]}"#)
        try d.writeDocument("messages/s0", Self.message("trade", from: "system", "Trade started", at: "2026-11-18T11:30:00Z", type: "system", readBy: "[]"))
        try d.writeDocument("messages/t1", Self.message("trade", from: "amy", "Deal", at: "2026-11-18T11:40:00Z"))
        try d.writeDocument("messages/s2", Self.message("trade", from: "system", "Trade completed", at: "2026-11-18T11:50:00Z", type: "system", readBy: "[]"))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "conversation-sync", now: Self.now)
        #expect(outcome.plan.summaryLine == "Applied: 0 to create, 2 to update, 0 to delete; 1 push, 0 webhooks.")
        let c = try #require(try d.object("conversations/trade"))
        #expect(c["messageCount"] == 3)
        #expect(c["lastMessage"] == "Trade completed")
        #expect(c["unreadCount"] == .object(JSONObject([("amy", 0), ("bo", 1)])))
        // Only the text message is delivered and pushed; the system messages keep their status.
        #expect(try d.object("messages/t1")?["status"] == "delivered")
        #expect(try d.object("messages/s0")?["status"] == "sent")
        #expect(try d.object("messages/s2")?["status"] == "sent")
        let push = try #require(outcome.plan.messages.first)
        #expect(push.id == "message-t1-bo")
        #expect(JSONWriter.compact(.object(push.payload)) == #"{"userId":"bo","tokens":["token-bo-123456abcdef"],"title":"Amy","body":"Deal","data":{"type":"message","conversationId":"trade","messageId":"t1"}}"#)
    }

    @Test func readByKeepsAMessageOutOfAMembersUnreadCountAndPushes() async throws {
        let d = try makeData()
        defer { d.remove() }
        // ghost has no users document: counted in unreadCount, never pushed.
        try d.writeDocument("conversations/group", #"{"participantIds": ["amy", "bo", "cy", "di", "ghost"]}"#)
        try d.writeDocument("messages/r1", Self.message("group", from: "amy", "Meet at 6?", at: "2026-11-18T11:50:00Z", readBy: #"["amy", "bo"]"#))
        // readBy that is not a list counts as [].
        try d.writeDocument("messages/r2", Self.message("group", from: "di", "Yes", at: "2026-11-18T11:55:00Z", readBy: #""di""#))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "conversation-sync", now: Self.now)
        let c = try #require(try d.object("conversations/group"))
        #expect(c["unreadCount"] == .object(JSONObject([("amy", 1), ("bo", 1), ("cy", 2), ("di", 1), ("ghost", 2)])))
        // cy has no device token, ghost no users document, bo read r1.
        #expect(Self.pushes(outcome) == ["message-r1-di", "message-r2-amy", "message-r2-bo"])
        #expect(outcome.plan.messages.map(\.recipient) == ["di", "amy", "bo"])
        #expect(outcome.record.warnings == [])
    }

    @Test func onlyUndeliveredMessagesWithinMaxAgeOfTAreDeliveredAndPushed() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("conversations/c", #"{"participantIds": ["amy", "bo"]}"#)
        try d.writeDocument("messages/edge", Self.message("c", from: "bo", "exactly maxAge old", at: "2026-11-18T11:00:00Z"))
        try d.writeDocument("messages/old", Self.message("c", from: "bo", "a millisecond older", at: "2026-11-18T10:59:59.999Z"))
        try d.writeDocument("messages/future", Self.message("c", from: "bo", "after T", at: "2026-11-18T12:00:01Z"))
        try d.writeDocument("messages/nostatus", Self.message("c", from: "bo", "no status", at: "2026-11-18T11:30:00Z", status: nil))
        try d.writeDocument("messages/sending", Self.message("c", from: "bo", "sending", at: "2026-11-18T11:31:00Z", status: "sending"))
        try d.writeDocument("messages/done", Self.message("c", from: "bo", "delivered before", at: "2026-11-18T11:32:00Z", status: "delivered"))
        try d.writeDocument("messages/seen", Self.message("c", from: "bo", "read before", at: "2026-11-18T11:33:00Z", status: "read"))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "conversation-sync", now: Self.now)
        #expect(Self.pushes(outcome) == ["message-edge-amy", "message-nostatus-amy", "message-sending-amy"])
        var status: [String: String] = [:]
        for id in d.ids("messages") { status[id] = try d.object("messages/\(id)")?["status"]?.stringValue ?? "(absent)" }
        #expect(status == ["edge": "delivered", "old": "sent", "future": "sent", "nostatus": "delivered", "sending": "delivered", "done": "delivered", "seen": "read"])
        // Every message counts in the summary; the latest is the one after T.
        let c = try #require(try d.object("conversations/c"))
        #expect(c["messageCount"] == 7)
        #expect(c["lastMessage"] == "after T")
        #expect(c["unreadCount"] == .object(JSONObject([("amy", 7), ("bo", 0)])))

        // With maxAge = 2h the older message is new enough.
        let longer = try await d.run("conversation-sync", now: Self.now, params: ["maxAge": "2h"])
        #expect(Self.pushes(longer) == ["message-old-amy"])
        #expect(longer.plan.summaryLine == "Applied: 0 to create, 1 to update, 0 to delete; 1 push, 0 webhooks.")
    }

    @Test func aSecondRunAtTheSameTChangesNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("conversations/c", #"{"participants": ["amy", "bo", "di"]}"#)
        // The title: senderName, else the sender's name, else "". The body by type.
        try d.writeDocument("messages/p1", #"{"conversationId": "c", "senderId": "di", "content": "https://cdn.example.com/p.jpg", "type": "image", "createdAt": "2026-11-18T11:10:00Z", "readBy": ["di"]}"#)
        try d.writeDocument("messages/p2", #"{"conversationId": "c", "senderId": "nobody", "senderName": "", "content": "notes.pdf", "type": "file", "createdAt": "2026-11-18T11:20:00Z", "readBy": ["nobody", "bo"]}"#)
        try d.writeDocument("messages/p3", #"{"conversationId": "c", "senderId": "amy", "senderName": "Amy C.", "content": "see above", "type": "link", "createdAt": null, "timestamp": {"_seconds": 1795002300, "_nanoseconds": 0}, "readBy": ["amy", "bo"]}"#)
        // Not counted: no conversation, a number as senderId, a createdAt that is not a time
        // (the timestamp beside it is not used).
        try d.writeDocument("messages/q1", #"{"conversationId": "nope", "senderId": "amy", "content": "?", "createdAt": "2026-11-18T11:00:00Z"}"#)
        try d.writeDocument("messages/q2", #"{"conversationId": "c", "senderId": 42, "content": "?", "createdAt": "2026-11-18T11:00:00Z"}"#)
        try d.writeDocument("messages/q3", #"{"conversationId": "c", "senderId": "amy", "content": "?", "createdAt": "yesterday", "timestamp": {"_seconds": 1795000800, "_nanoseconds": 0}}"#)
        let first = try await GamificationCheck.expectPlanMatchesRun(d, "conversation-sync", now: Self.now)
        #expect(first.plan.summaryLine == "Applied: 0 to create, 4 to update, 0 to delete; 5 pushes, 0 webhooks.")
        #expect(first.record.warnings == [
            "skipped 3 message(s) that count for no conversation (conversationId names no conversation with members, senderId is not a string, or neither createdAt nor timestamp is a time)",
        ])
        let titles = first.plan.messages.map { "\($0.id) \($0.payload["title"]?.stringValue ?? "-") / \($0.payload["body"]?.stringValue ?? "-")" }
        #expect(titles == [
            "message-p1-amy Di Rossi / Sent a photo", "message-p1-bo Di Rossi / Sent a photo",
            "message-p2-amy  / Sent a file", "message-p2-di  / Sent a file", "message-p3-di Amy C. / see above",
        ])
        let c = try #require(try d.object("conversations/c"))
        #expect(c["messageCount"] == 3)
        #expect(c["lastMessage"] == "see above")
        #expect(c["lastActivity"] == "2026-11-18T11:45:00.000Z")
        #expect(c["unreadCount"] == .object(JSONObject([("amy", 2), ("bo", 1), ("di", 2)])))

        let second = try await d.run("conversation-sync", now: Self.now)
        #expect(second.plan.summaryLine == "No changes.")
        #expect(second.plan.messages.isEmpty)
    }

    /// `hearth seed`'s chats (docs/cli.md#hearth-seed): conversations in both apps' shapes are
    /// summarised, the report's two messages are counted in their study group, the older
    /// client's conversation is skipped, and a second run changes nothing.
    @Test func theDemoChatsOfBothAppsAreSummarisedAndTheLegacyOneIsSkipped() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try DemoData(users: 200, seed: 7).write(to: d.root)
        let outcome = try await d.run("conversation-sync", now: Self.now)
        #expect(outcome.plan.summaryLine == "Applied: 0 to create, 33 to update, 0 to delete; 13 pushes, 0 webhooks.")
        #expect(outcome.record.warnings == [
            "skipped 1 conversation(s) with no members (neither participantIds nor participants is a list of strings)",
            "skipped 1 message(s) that count for no conversation (conversationId names no conversation with members, senderId is not a string, or neither createdAt nor timestamp is a time)",
        ])
        var shapes: [String: Int] = [:]
        var messages: [String: Int] = [:]
        for id in d.ids("messages") {
            if let c = try d.object("messages/\(id)")?["conversationId"]?.stringValue { messages[c, default: 0] += 1 }
        }
        for id in d.ids("conversations") where id != "conv-legacy-00001" {
            let c = try #require(try d.object("conversations/\(id)"))
            shapes[c["participantIds"] != nil ? "iOS" : "web", default: 0] += 1
            #expect(c["messageCount"] == .int(Int64(messages[id] ?? 0)), "\(id)")
            #expect(c["updatedAt"] == .string(Self.S), "\(id)")
        }
        #expect(shapes == ["iOS": 10, "web": 11])
        let group = try #require(try d.object("conversations/conv-study-group"))
        #expect(group["lastMessage"] == "See you at the library")
        #expect(group["lastActivity"] == "2026-11-18T10:00:00.000Z")
        #expect(group["unreadCount"] == .object(JSONObject([("u00007", 0), ("u00008", 2), ("u00009", 1)])))
        #expect(try d.object("conversations/conv-legacy-00001")?["updatedAt"] == nil)
        let again = try await d.run("conversation-sync", now: Self.now)
        #expect(again.plan.summaryLine == "No changes.")
    }
}
