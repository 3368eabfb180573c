import HearthKit
import HearthStore
import HearthHost
import Testing

/// docs/jobs/friend-notify.md#rules on a hand-made data set at T = S = 2026-11-18T12:00:00Z
/// (`maxAge` 7 days: requests created from 2026-11-11T12:00:00Z on are recent).
@Suite("friend-notify")
struct FriendNotifyTests {
    static let now = "2026-11-18T12:00:00Z"
    static let S = "2026-11-18T12:00:00.000Z"

    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        try d.writeDocument("users/amy", #"{"name": "Amy Chen", "fcmTokens": ["token-amy-abcdef123456"]}"#)
        try d.writeDocument("users/bo", #"{"name": "Bo Kim"}"#)
        try d.writeDocument("users/cy", #"{"username": "cy"}"#)
        try d.writeDocument("users/di", #"{"name": "Di Rossi"}"#)
        return d
    }

    static func friendship(_ a: String, _ b: String, _ status: String, by: String, created: String? = nil, accepted: String? = nil) -> String {
        let c = created.map { #""\#($0)""# } ?? "null"
        let x = accepted.map { #""\#($0)""# } ?? "null"
        return #"{"userId1": "\#(a)", "userId2": "\#(b)", "status": "\#(status)", "initiatedBy": "\#(by)", "createdAt": \#(c), "acceptedAt": \#(x)}"#
    }

    @Test func aRecentRequestAndARecentAcceptanceAreNotifiedWithTheirPushes() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("friendships/f1", Self.friendship("amy", "bo", "pending", by: "amy", created: "2026-11-18T11:00:00Z"))
        try d.writeDocument("friendships/f2", Self.friendship("amy", "cy", "accepted", by: "amy", created: "2026-10-01T00:00:00Z", accepted: "2026-11-18T09:00:00Z"))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "friend-notify", now: Self.now)
        #expect(outcome.plan.summaryLine == "Applied: 2 to create, 0 to update, 0 to delete; 1 push, 0 webhooks.")
        #expect(d.documentText("notifications/friend-request-f1") == """
            {
              "userId": "bo",
              "type": "friend_request",
              "title": "New friend request",
              "message": "Amy Chen wants to be friends",
              "relatedUserId": "amy",
              "relatedFriendshipId": "f1",
              "read": false,
              "createdAt": "\(Self.S)",
              "actionUrl": "/friends/requests"
            }
            """)
        // cy has no name: "" (never null).
        #expect(d.documentText("notifications/friend-accepted-f2") == """
            {
              "userId": "amy",
              "type": "friend_accepted",
              "title": "Friend request accepted",
              "message": " accepted your friend request",
              "relatedUserId": "cy",
              "relatedFriendshipId": "f2",
              "read": false,
              "createdAt": "\(Self.S)",
              "actionUrl": "/friends"
            }
            """)
        // Only amy has a device token.
        #expect(outcome.plan.messages.count == 1)
        let push = try #require(outcome.plan.messages.first)
        #expect(push.id == "push-friend-accepted-f2")
        #expect(JSONWriter.compact(.object(push.payload)) == #"{"userId":"amy","tokens":["token-amy-abcdef123456"],"title":"Friend request accepted","body":" accepted your friend request","data":{"notificationId":"friend-accepted-f2","type":"friend_accepted","actionUrl":"/friends"}}"#)
        let again = try await d.run("friend-notify", now: Self.now)
        #expect(again.plan.summaryLine == "No changes.")
        // notification-fanout does not push them again.
        let fanout = try await d.run("notification-fanout", now: Self.now)
        #expect(fanout.plan.messages.isEmpty)
    }

    @Test func onlyRequestsAndAcceptancesWithinMaxAgeOfTAreNotified() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("friendships/edge", Self.friendship("bo", "di", "pending", by: "di", created: "2026-11-11T12:00:00Z"))
        try d.writeDocument("friendships/old", Self.friendship("amy", "di", "pending", by: "di", created: "2026-11-11T11:59:59.999Z"))
        try d.writeDocument("friendships/future", Self.friendship("bo", "cy", "pending", by: "cy", created: "2026-11-18T12:00:01Z"))
        try d.writeDocument("friendships/nodate", Self.friendship("amy", "bo", "accepted", by: "bo", created: "2026-11-18T11:00:00Z"))
        try d.writeDocument("friendships/baddate", Self.friendship("cy", "di", "accepted", by: "cy", accepted: "last tuesday"))
        try d.writeDocument("friendships/oldaccept", Self.friendship("amy", "cy", "accepted", by: "cy", accepted: "2026-11-10T00:00:00Z"))
        _ = try await d.run("friend-notify", now: Self.now)
        #expect(d.ids("notifications") == ["friend-request-edge"])
        // With maxAge = 10d the old ones are recent too.
        _ = try await d.run("friend-notify", now: Self.now, params: ["maxAge": "10d"])
        #expect(d.ids("notifications") == ["friend-accepted-oldaccept", "friend-request-edge", "friend-request-old"])
    }

    @Test func noSecondNotificationWhereTheAppAlreadyMadeOne() async throws {
        let d = try makeData()
        defer { d.remove() }
        // The app's older client wrote the request notification itself, with a random id.
        try d.writeDocument("notifications/Xk9rQ2", #"{"userId": "di", "type": "friend_request", "title": "New friend request", "relatedUserId": "amy", "read": true}"#)
        try d.writeDocument("friendships/f10", Self.friendship("amy", "di", "pending", by: "amy", created: "2026-11-18T10:00:00Z"))
        // Something already at the deterministic id.
        try d.writeDocument("notifications/friend-accepted-f11", #"{"userId": "bo", "type": "friend_accepted", "note": "kept"}"#)
        try d.writeDocument("friendships/f11", Self.friendship("bo", "cy", "accepted", by: "bo", accepted: "2026-11-18T10:00:00Z"))
        // A request notification for another pair does not count.
        try d.writeDocument("notifications/Zz1", #"{"userId": "di", "type": "friend_request", "relatedUserId": "bo"}"#)
        try d.writeDocument("friendships/f12", Self.friendship("amy", "bo", "pending", by: "amy", created: "2026-11-18T10:00:00Z"))
        let outcome = try await d.run("friend-notify", now: Self.now)
        #expect(outcome.plan.changes.map(\.path.description) == ["notifications/friend-request-f12"])
        #expect(d.documentText("notifications/friend-accepted-f11") == #"{"userId": "bo", "type": "friend_accepted", "note": "kept"}"#)
    }

    @Test func malformedFriendshipsAndMissingUsersAreSkipped() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("friendships/stranger", Self.friendship("amy", "bo", "pending", by: "cy", created: "2026-11-18T10:00:00Z"))
        try d.writeDocument("friendships/self", Self.friendship("amy", "amy", "pending", by: "amy", created: "2026-11-18T10:00:00Z"))
        try d.writeDocument("friendships/ghost1", Self.friendship("amy", "ghost", "pending", by: "ghost", created: "2026-11-18T10:00:00Z"))
        try d.writeDocument("friendships/ghost2", Self.friendship("ghost", "zed", "accepted", by: "zed", accepted: "2026-11-18T10:00:00Z"))
        try d.writeDocument("friendships/blocked", Self.friendship("amy", "bo", "blocked", by: "amy", created: "2026-11-18T10:00:00Z"))
        try d.writeDocument("friendships/odd", #"{"userId1": 1, "userId2": "bo", "status": "pending", "initiatedBy": "bo", "createdAt": "2026-11-18T10:00:00Z"}"#)
        let outcome = try await d.run("friend-notify", now: Self.now)
        #expect(outcome.plan.summaryLine == "No changes.")
        #expect(outcome.record.warnings == ["skipped 2 friendship notification(s) whose user has no users document"])
    }

    @Test func theJobRefusesToRunWhenTheAppsCannotDecodeItsTypes() async throws {
        let d = try makeData()
        defer { d.remove() }
        do {
            _ = try await d.run("friend-notify", now: Self.now, config: "[notifications]\ntypes = [\"gift_received\", \"friend_request\"]\n")
            Issue.record("the run started")
        } catch let error as JobSetupError {
            #expect(error.message == #"friend-notify writes notifications of type "friend_accepted", but [notifications].types ("gift_received", "friend_request") does not list it. The apps cannot decode a notification type they do not know, and one unknown type breaks their whole notification list. Once the apps handle it, add "friend_accepted" to types under [notifications] in the config; otherwise set enabled = false under [jobs.friend-notify]."#)
        }
        #expect(d.ids("notifications") == [])
    }
}
