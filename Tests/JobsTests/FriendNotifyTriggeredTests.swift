import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// docs/jobs/friend-notify.md#triggered-runs: a run started by writes reads the friendships
/// written, their users and their recipients' notifications, and notifies exactly what a run
/// over everything would for them.
@Suite("friend-notify, triggered")
struct FriendNotifyTriggeredTests {
    static let now = FriendNotifyTests.now

    /// amy, bo, cy, di and `count` others, each with an old notification and an old accepted
    /// friendship (outside `maxAge`: nothing to notify).
    static func documents(users count: Int) -> [String: String] {
        var docs: [String: String] = [
            "users/amy": #"{"name": "Amy Chen", "fcmTokens": ["token-amy-abcdef123456"]}"#,
            "users/bo": #"{"name": "Bo Kim"}"#,
            "users/cy": #"{"username": "cy"}"#,
            "users/di": #"{"name": "Di Rossi"}"#,
        ]
        for i in 0..<count {
            let id = String(format: "p%05d", i)
            docs["users/\(id)"] = #"{"name": "Person \#(i)"}"#
            docs["notifications/n\(i)"] = #"{"userId": "\#(id)", "type": "gift_received", "relatedUserId": "amy"}"#
            docs["friendships/old\(i)"] = FriendNotifyTests.friendship(id, "amy", "accepted", by: id, created: "2026-01-01T00:00:00Z", accepted: "2026-01-02T00:00:00Z")
        }
        return docs
    }

    @Test func aTriggeredRunNotifiesTheWrittenFriendshipsAsAFullRunDoes() async throws {
        var docs = Self.documents(users: 5_000)
        docs["friendships/Rq1"] = FriendNotifyTests.friendship("amy", "bo", "pending", by: "amy", created: "2026-11-18T11:00:00Z")
        docs["friendships/Ac2"] = FriendNotifyTests.friendship("amy", "cy", "accepted", by: "amy", created: "2026-10-01T00:00:00Z", accepted: "2026-11-18T09:00:00Z")
        // The app's older client already notified di of this request, with a random id.
        docs["friendships/Rq3"] = FriendNotifyTests.friendship("bo", "di", "pending", by: "bo", created: "2026-11-18T10:00:00Z")
        docs["notifications/Xy7"] = #"{"userId": "di", "type": "friend_request", "relatedUserId": "bo"}"#
        // A user without a users document: skipped with the warning.
        docs["friendships/Rq4"] = FriendNotifyTests.friendship("amy", "zed", "pending", by: "zed", created: "2026-11-18T10:00:00Z")
        let changed = ChangedDocuments(try ["friendships/Rq1", "friendships/Ac2", "friendships/Rq3", "friendships/Rq4", "friendships/old3"].map { try DocumentPath(parsing: $0) })

        let full = try TestJobContext(FriendNotify.self, documents: docs, now: Self.now, environment: .hostDefaults())
        try await full.run()
        let triggered = try TestJobContext(FriendNotify.self, documents: docs, now: Self.now, environment: .hostDefaults(), changes: changed)
        try await triggered.run()
        func written(_ c: Changeset) -> [String] { c.entries.map { "\($0.path) \($0.action) \(String(decoding: $0.content ?? [], as: UTF8.self))" } }
        #expect(written(triggered.changeset) == written(full.changeset))
        #expect(triggered.changeset.entries.map(\.path.description) == ["notifications/friend-accepted-Ac2", "notifications/friend-request-Rq1"])
        #expect(triggered.changeset.messages == full.changeset.messages)
        #expect(triggered.warnings == full.warnings)
        #expect(triggered.warnings == ["skipped 1 friendship notification(s) whose user has no users document"])
        // 5 friendships, 5 users (amy, bo, cy, di; zed is absent), and the notifications of the
        // recipients (bo, amy, di): di's Xy7.
        #expect(triggered.context.documentsRead == 4 + 4 + 1)
    }

    @Test func aNotificationAlreadyAtItsIdIsKeptByATriggeredRun() async throws {
        var docs = Self.documents(users: 3)
        docs["friendships/Rq1"] = FriendNotifyTests.friendship("amy", "bo", "pending", by: "amy", created: "2026-11-18T11:00:00Z")
        docs["notifications/friend-request-Rq1"] = #"{"userId": "bo", "note": "by hand"}"#
        let run = try TestJobContext(
            FriendNotify.self, documents: docs, now: Self.now, environment: .hostDefaults(),
            changes: ChangedDocuments([try DocumentPath(parsing: "friendships/Rq1")]))
        try await run.run()
        #expect(run.summaryLine == "No changes.")
    }
}
