import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// docs/jobs/conversation-sync.md#triggered-runs: a run started by writes reads the
/// conversations they touch and those conversations' messages, and writes for them exactly what
/// a run over everything writes.
@Suite("conversation-sync, triggered")
struct ConversationSyncTriggeredTests {
    static let now = ConversationSyncTests.now

    static let users: [String: String] = [
        "users/amy": #"{"name": "Amy Chen", "fcmTokens": ["token-amy-abcdef123456"]}"#,
        "users/bo": #"{"name": "Bo Kim", "fcmTokens": ["token-bo-123456abcdef"]}"#,
        "users/cy": #"{"username": "cy"}"#,
    ]

    /// `count` conversations `c0000`… between amy and bo (in turn the iOS and the web shape),
    /// each with five messages, the last one new (`sent`, eleven minutes before T) and the
    /// summary stale, so a full run writes every one of them.
    static func chats(_ count: Int) -> [String: String] {
        var docs = users
        for c in 0..<count {
            let id = String(format: "c%04d", c)
            docs["conversations/\(id)"] = c % 2 == 0
                ? #"{"participantIds": ["amy", "bo"], "participants": [{"id": "amy"}, {"id": "bo"}], "messageCount": 4}"#
                : #"{"participants": ["amy", "bo"], "lastMessage": "old"}"#
            for m in 0..<5 {
                let from = m % 2 == 0 ? "amy" : "bo"
                let at = m == 4 ? "2026-11-18T11:49:00Z" : "2026-11-17T10:0\(m):00Z"
                docs["messages/\(id)-m\(m)"] = ConversationSyncTests.message(id, from: from, "hello \(m)", at: at, status: m == 4 ? "sent" : "read")
            }
        }
        return docs
    }

    static func changes(_ paths: String...) throws -> ChangedDocuments {
        ChangedDocuments(try paths.map { try DocumentPath(parsing: $0) })
    }

    /// A full run and a run told of `changed`, each over `documents`; the triggered run's writes
    /// and pushes must be the full run's for `conversations` (the conversations and their
    /// messages), and its warnings `warnings`.
    static func expectSameAsFullRun(
        _ documents: [String: String], changed: ChangedDocuments, conversations: Set<String>, warnings: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestJobContext {
        let full = try TestJobContext(ConversationSync.self, documents: documents, now: now)
        try await full.run()
        let triggered = try TestJobContext(ConversationSync.self, documents: documents, now: now, changes: changed)
        try await triggered.run()
        func concerns(_ path: DocumentPath) -> Bool {
            switch path.collection {
            case "conversations": return conversations.contains(path.id)
            case "messages": return documents[path.description].flatMap { try? JSONParser.parse($0) }?.objectValue?["conversationId"]?.stringValue.map(conversations.contains) ?? false
            default: return false
            }
        }
        func written(_ c: Changeset) -> [String] {
            c.entries.filter { concerns($0.path) }.map { "\($0.path) \($0.action) \(String(decoding: $0.content ?? [], as: UTF8.self))" }
        }
        #expect(triggered.changeset.entries.allSatisfy { concerns($0.path) }, sourceLocation: sourceLocation)
        #expect(written(triggered.changeset) == written(full.changeset), sourceLocation: sourceLocation)
        let pushes = full.changeset.messages.filter { $0.payload["data"]?.objectValue?["conversationId"]?.stringValue.map(conversations.contains) ?? false }
        #expect(triggered.changeset.messages == pushes, sourceLocation: sourceLocation)
        #expect(triggered.warnings == warnings, sourceLocation: sourceLocation)
        return triggered
    }

    @Test func aNewMessageUpdatesOnlyItsConversationReadingItAndItsMessages() async throws {
        let docs = Self.chats(1000)
        let run = try await Self.expectSameAsFullRun(docs, changed: try Self.changes("messages/c0421-m4"), conversations: ["c0421"])
        #expect(run.changeset.entries.map(\.path.description) == ["conversations/c0421", "messages/c0421-m4"])
        #expect(run.changeset.messages.map(\.id) == ["message-c0421-m4-bo"])
        // The written message, its conversation, its five messages, and bo, who is pushed.
        #expect(run.context.documentsRead == 1 + 1 + 5 + 1)
        let c = try #require(run.changeset.entries.first?.after)
        #expect(c["messageCount"] == 5)
        #expect(JSONWriter.compact(c["unreadCount"]!) == #"{"amy":2,"bo":3}"#)
    }

    @Test func writtenConversationsAndMessagesOfSeveralConversationsAreEachSummarised() async throws {
        var docs = Self.chats(20)
        // A message naming no conversation, one naming a conversation without members, and a
        // conversation without members: skipped with the full run's warnings.
        docs["messages/stray"] = ConversationSyncTests.message("nowhere", from: "amy", "lost", at: "2026-11-18T11:30:00Z")
        docs["conversations/legacy"] = #"{"participants": [{"id": "amy"}]}"#
        docs["messages/legacy-1"] = ConversationSyncTests.message("legacy", from: "amy", "old", at: "2026-11-18T11:30:00Z")
        docs["messages/numbered"] = #"{"conversationId": 7, "senderId": "amy", "content": "x", "createdAt": "2026-11-18T11:30:00Z"}"#
        let run = try await Self.expectSameAsFullRun(
            docs, changed: try Self.changes("messages/c0003-m1", "conversations/c0008", "messages/stray", "conversations/legacy", "messages/numbered"),
            conversations: ["c0003", "c0008", "legacy"],
            warnings: [
                "skipped 1 conversation(s) with no members (neither participantIds nor participants is a list of strings)",
                "skipped 3 message(s) that count for no conversation (conversationId names no conversation with members, senderId is not a string, or neither createdAt nor timestamp is a time)",
            ])
        #expect(run.changeset.entries.map(\.path.description) == ["conversations/c0003", "conversations/c0008", "messages/c0003-m4", "messages/c0008-m4"])
    }

    @Test func aSecondTriggeredRunChangesNothing() async throws {
        let store = try InMemoryStore(documents: Self.chats(3))
        let first = try TestJobContext(ConversationSync.self, store: store, now: Self.now, changes: try Self.changes("messages/c0001-m2"))
        try await first.run()
        try await first.commit()
        #expect(first.summaryLine == "Applied: 0 to create, 2 to update, 0 to delete; 1 push, 0 webhooks.")
        let again = try TestJobContext(ConversationSync.self, store: store, now: Self.now, changes: try Self.changes("messages/c0001-m2", "conversations/c0001"))
        try await again.run()
        #expect(again.summaryLine == "No changes.")
        // The others were not touched: the next full run writes them.
        let full = try TestJobContext(ConversationSync.self, store: store, now: Self.now)
        try await full.run()
        #expect(full.changeset.entries.map(\.path.description) == ["conversations/c0000", "conversations/c0002", "messages/c0000-m4", "messages/c0002-m4"])
    }

    @Test func aDeletedMessageMakesTheRunReadEverything() async throws {
        let docs = Self.chats(4)
        let run = try await Self.expectSameAsFullRun(
            docs, changed: try Self.changes("messages/c0002-gone"), conversations: ["c0000", "c0001", "c0002", "c0003"])
        #expect(run.changeset.entries.count == 8)
    }

    @Test func aMessageMovedIntoAnotherConversationCountsThereAtOnce() async throws {
        let store = try InMemoryStore(documents: Self.chats(2))
        let first = try TestJobContext(ConversationSync.self, store: store, now: Self.now)
        try await first.run()
        try await first.commit()
        try store.write("messages/c0000-m1", ConversationSyncTests.message("c0001", from: "bo", "moved", at: "2026-11-17T10:01:00Z", status: "read"))
        let run = try TestJobContext(ConversationSync.self, store: store, now: Self.now, changes: try Self.changes("messages/c0000-m1"))
        try await run.run()
        #expect(run.changeset.entries.map(\.path.description) == ["conversations/c0001"])
        #expect(run.changeset.entries.first?.after?["messageCount"] == 6)
    }
}
