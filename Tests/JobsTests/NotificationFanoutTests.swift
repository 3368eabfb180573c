import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Jobs
import Testing

/// docs/jobs/notification-fanout.md#pushes at T = S = 2026-11-20 12:00Z, maxAge 24h, collapseAbove 3, provider fcm, one
/// webhook endpoint subscribed to `broadcast.sent` (events nobody subscribes to are not queued).
///
/// Users: u1 Ana (MIT; two FCM tokens, the legacy `fcmToken` repeating one, an APNs token FCM
/// ignores), u2 Ben (MIT; only the legacy `fcmToken`), u3 Cy (Stanford; no tokens), u4 Dee
/// (Stanford; one token, four new notifications: collapsed).
@Suite("notification-fanout")
struct NotificationFanoutTests {
    static let now = "2026-11-20T12:00:00Z"
    static let config = """
        [notifications]
        types = ["gift_received", "friend_request", "friend_accepted", "achievement_unlocked", "announcement"]
        [push]
        provider = "fcm"
        [push.fcm]
        serviceAccountFile = "/nonexistent/firebase-service-account.json"
        [[webhooks]]
        name = "ops"
        url = "https://ops.example.com/hooks/hearth"
        secretEnv = "OPS_WEBHOOK_SECRET"
        events = ["broadcast.sent"]
        """

    static func notification(_ user: String, _ type: String, _ title: String, _ message: String, read: Bool = false, createdAt: String, actionUrl: String? = "/inbox") -> String {
        """
        {
          "userId": "\(user)",
          "type": "\(type)",
          "title": "\(title)",
          "message": "\(message)",
          "read": \(read),
          "createdAt": "\(createdAt)"\(actionUrl.map { ",\n  \"actionUrl\": \"\($0)\"" } ?? "")
        }
        """
    }

    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        try d.writeDocument("users/u1", """
            {
              "name": "Ana",
              "school": "MIT",
              "fcmTokens": [
                "fcm-ana-phone-aaaa0001",
                "fcm-ana-tablet-aaaa0002"
              ],
              "fcmToken": "fcm-ana-phone-aaaa0001",
              "apnsTokens": [
                "apns-ana-0000000000000001"
              ]
            }
            """)
        try d.writeDocument("users/u2", #"{"name": "Ben", "school": "MIT", "fcmToken": "fcm-ben-legacy-bbbb0001"}"#)
        try d.writeDocument("users/u3", #"{"name": "Cy", "school": "Stanford"}"#)
        try d.writeDocument("users/u4", #"{"name": "Dee", "school": "Stanford", "fcmTokens": ["fcm-dee-dddd0001"]}"#)

        try d.writeDocument("notifications/n1", Self.notification("u1", "gift_received", "Gift received", "Ben sent you 50 points", createdAt: "2026-11-20T11:00:00.000Z", actionUrl: "/gifts/t1"))
        try d.writeDocument("notifications/n2", Self.notification("u1", "friend_request", "Friend request", "Cy wants to be friends", read: true, createdAt: "2026-11-20T11:30:00.000Z"))
        try d.writeDocument("notifications/n3", Self.notification("u1", "friend_accepted", "Friend accepted", "Dee accepted", createdAt: "2026-11-18T10:00:00.000Z"))
        try d.writeDocument("notifications/n4", Self.notification("u2", "gift_received", "Gift received", "Ana sent you 5 points", createdAt: "2026-11-20T11:59:00.000Z", actionUrl: nil))
        try d.writeDocument("notifications/n5", Self.notification("u3", "gift_received", "Gift received", "Dee sent you 1 point", createdAt: "2026-11-20T11:10:00.000Z"))
        for i in 1...4 {
            try d.writeDocument("notifications/d\(i)", Self.notification("u4", "friend_request", "Friend request", "Request \(i)", createdAt: "2026-11-20T11:0\(i):00.000Z"))
        }
        // Pushed already by the job that created it (its entry in Hearth's ledger).
        try d.writeDocument("notifications/n6", Self.notification("u1", "achievement_unlocked", "Achievement unlocked!", "You unlocked First Gift", createdAt: "2026-11-20T11:20:00.000Z"))
        try d.write(".hearth/ledger/notification-push/20261120T11-achievement-unlock-20261120T112000000Z-0001",
                    #"{"namespace": "notification-push", "job": "achievement-unlock", "entries": {"n6": "queued"}}"#)
        // A notification for a user that does not exist: nothing to push to.
        try d.writeDocument("notifications/n7", Self.notification("u9", "gift_received", "Gift received", "?", createdAt: "2026-11-20T11:00:00.000Z"))

        try d.writeDocument("broadcasts/b1", """
            {
              "title": "Finals week",
              "message": "The library is open 24h",
              "type": "announcement",
              "actionUrl": "/news/finals",
              "audience": {
                "school": "MIT"
              },
              "status": "scheduled",
              "sendAt": "2026-11-20T11:00:00.000Z"
            }
            """)
        try d.writeDocument("broadcasts/b2", """
            {
              "title": "50% off",
              "message": "Buy now",
              "type": "promo",
              "audience": {
                "all": true
              }
            }
            """)
        try d.writeDocument("broadcasts/b3", #"{"title": "Later", "message": "Tomorrow", "type": "announcement", "audience": {"all": true}, "sendAt": "2026-11-21T09:00:00.000Z"}"#)
        try d.writeDocument("broadcasts/b4", #"{"title": "Old", "message": "Done", "type": "announcement", "audience": {"all": true}, "status": "sent"}"#)
        try d.writeDocument("broadcasts/b5", """
            {
              "title": "Welcome",
              "message": "Hi Cy",
              "type": "announcement",
              "audience": {
                "userIds": [
                  "u3",
                  "u9",
                  "u3"
                ]
              }
            }
            """)
        return d
    }

    static func push(_ id: String, user: String, tokens: [String], title: String, body: String, data: [(String, String)], badge: Int) -> OutboxMessage {
        OutboxMessage(id: id, kind: .push, recipient: user, title: title, payload: JSONObject([
            ("userId", .string(user)), ("tokens", .array(tokens.map { .string($0) })), ("title", .string(title)), ("body", .string(body)),
            ("data", .object(JSONObject(data.map { ($0.0, .string($0.1)) }))), ("badge", .int(Int64(badge))),
        ]))
    }

    static let ana = ["fcm-ana-phone-aaaa0001", "fcm-ana-tablet-aaaa0002"]

    static let expectedMessages: [OutboxMessage] = [
        .event("broadcast.sent", id: "broadcast.sent-b1", data: JSONObject([
            ("broadcastId", "b1"), ("type", "announcement"), ("title", "Finals week"), ("recipientCount", 2), ("sentAt", "2026-11-20T12:00:00.000Z"),
        ])),
        .event("broadcast.sent", id: "broadcast.sent-b5", data: JSONObject([
            ("broadcastId", "b5"), ("type", "announcement"), ("title", "Welcome"), ("recipientCount", 1), ("sentAt", "2026-11-20T12:00:00.000Z"),
        ])),
        // Ana: unread n1, n3 (old, still unread), n6 and the broadcast = badge 4.
        push("push-n1", user: "u1", tokens: ana, title: "Gift received", body: "Ben sent you 50 points",
             data: [("notificationId", "n1"), ("type", "gift_received"), ("actionUrl", "/gifts/t1")], badge: 4),
        push("push-broadcast-b1-u1", user: "u1", tokens: ana, title: "Finals week", body: "The library is open 24h",
             data: [("notificationId", "broadcast-b1-u1"), ("type", "announcement"), ("actionUrl", "/news/finals")], badge: 4),
        push("push-n4", user: "u2", tokens: ["fcm-ben-legacy-bbbb0001"], title: "Gift received", body: "Ana sent you 5 points",
             data: [("notificationId", "n4"), ("type", "gift_received"), ("actionUrl", "")], badge: 2),
        push("push-broadcast-b1-u2", user: "u2", tokens: ["fcm-ben-legacy-bbbb0001"], title: "Finals week", body: "The library is open 24h",
             data: [("notificationId", "broadcast-b1-u2"), ("type", "announcement"), ("actionUrl", "/news/finals")], badge: 2),
        push("push-collapsed-u4-aaa6685b40e4ba69", user: "u4", tokens: ["fcm-dee-dddd0001"], title: "You have 4 new notifications", body: "",
             data: [("count", "4")], badge: 4),
    ]

    static let typeError = #"type "promo" is not one of the notification types the apps can decode ([notifications].types: "gift_received", "friend_request", "friend_accepted", "achievement_unlocked", "announcement"); nothing was sent"#

    @Test func sendsDueBroadcastsAndPushesUnreadRecentNotifications() async throws {
        let d = try makeData()
        defer { d.remove() }
        let b3 = d.text("broadcasts/b3")
        let b4 = d.text("broadcasts/b4")
        let outcome = try await d.run("notification-fanout", now: Self.now, config: Self.config)
        #expect(outcome.error == nil)
        #expect(outcome.plan.summaryLine == "Applied: 3 to create, 3 to update, 0 to delete; 5 pushes, 2 webhooks.")
        #expect(outcome.plan.messages == Self.expectedMessages)
        #expect(outcome.plan.warnings == ["broadcasts/b2.json: " + Self.typeError])

        #expect(d.ids("notifications") == ["broadcast-b1-u1", "broadcast-b1-u2", "broadcast-b5-u3", "d1", "d2", "d3", "d4", "n1", "n2", "n3", "n4", "n5", "n6", "n7"])
        #expect(d.documentText("notifications/broadcast-b1-u1") == """
            {
              "userId": "u1",
              "type": "announcement",
              "title": "Finals week",
              "message": "The library is open 24h",
              "read": false,
              "createdAt": "2026-11-20T12:00:00.000Z",
              "actionUrl": "/news/finals"
            }
            """)
        #expect(d.documentText("notifications/broadcast-b5-u3") == """
            {
              "userId": "u3",
              "type": "announcement",
              "title": "Welcome",
              "message": "Hi Cy",
              "read": false,
              "createdAt": "2026-11-20T12:00:00.000Z",
              "actionUrl": ""
            }
            """)
        #expect(d.documentText("broadcasts/b1") == """
            {
              "title": "Finals week",
              "message": "The library is open 24h",
              "type": "announcement",
              "actionUrl": "/news/finals",
              "audience": {
                "school": "MIT"
              },
              "status": "sent",
              "sendAt": "2026-11-20T11:00:00.000Z",
              "sentAt": "2026-11-20T12:00:00.000Z",
              "recipientCount": 2
            }
            """)
        #expect(d.documentText("broadcasts/b2") == """
            {
              "title": "50% off",
              "message": "Buy now",
              "type": "promo",
              "audience": {
                "all": true
              },
              "status": "failed",
              "error": \(JSONWriter.quoted(Self.typeError))
            }
            """)
        #expect(d.documentText("broadcasts/b5") == """
            {
              "title": "Welcome",
              "message": "Hi Cy",
              "type": "announcement",
              "audience": {
                "userIds": [
                  "u3",
                  "u9",
                  "u3"
                ]
              },
              "status": "sent",
              "sentAt": "2026-11-20T12:00:00.000Z",
              "recipientCount": 1
            }
            """)
        #expect(d.text("broadcasts/b3") == b3)
        #expect(d.text("broadcasts/b4") == b4)
        #expect(GamificationCheck.pendingOutbox(d) == Self.expectedMessages.map(\.id).sorted())

        // What was handled is in Hearth's ledger, never in the notifications.
        let ledger = try Ledger.entries(
            namespace: "notification-push", from: try #require(Timestamp.parseISO8601("2026-11-19T12:00:00Z")),
            to: try #require(Timestamp.parseISO8601("2026-11-21T12:00:00Z")), stateDirectory: d.root + "/.hearth")
        #expect(ledger == [
            "n1": "queued", "broadcast-b1-u1": "queued", "n4": "queued", "broadcast-b1-u2": "queued",
            "n5": "no-tokens", "broadcast-b5-u3": "no-tokens",
            "d1": "collapsed", "d2": "collapsed", "d3": "collapsed", "d4": "collapsed",
            "n6": "queued",
        ])
        #expect(d.documentText("notifications/n1") == Self.notification("u1", "gift_received", "Gift received", "Ben sent you 50 points", createdAt: "2026-11-20T11:00:00.000Z", actionUrl: "/gifts/t1"))

        // No full device token in the report or the run record.
        let records = try FileManager.default.contentsOfDirectory(atPath: d.root + "/.hearth/runs/notification-fanout")
        #expect(records.count == 1)
        let record = try String(contentsOfFile: d.root + "/.hearth/runs/notification-fanout/" + records[0], encoding: .utf8)
        let report = outcome.plan.text(limit: 100, color: false) + JSONWriter.compact(outcome.plan.json)
        for token in Self.ana + ["fcm-ben-legacy-bbbb0001", "fcm-dee-dddd0001"] {
            #expect(!record.contains(token))
            #expect(!report.contains(token))
        }
    }

    @Test func aSecondRunQueuesNothingNew() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("notification-fanout", now: Self.now, config: Self.config)
        let queued = GamificationCheck.pendingOutbox(d)
        let again = try await d.run("notification-fanout", now: Self.now, config: Self.config)
        #expect(again.plan.summaryLine == "No changes.")
        let later = try await d.run("notification-fanout", now: "2026-11-20T12:01:00Z", config: Self.config)
        #expect(later.plan.summaryLine == "No changes.")
        #expect(GamificationCheck.pendingOutbox(d) == queued)
    }

    @Test func aNewNotificationIsPushedAloneOnTheNextRun() async throws {
        let d = try makeData()
        defer { d.remove() }
        _ = try await d.run("notification-fanout", now: Self.now, config: Self.config)
        try d.writeDocument("notifications/n8", Self.notification("u2", "friend_request", "Friend request", "Dee wants to be friends", createdAt: "2026-11-20T12:00:30.000Z"))
        let next = try await d.run("notification-fanout", now: "2026-11-20T12:01:00Z", config: Self.config)
        #expect(next.plan.summaryLine == "Applied: 0 to create, 0 to update, 0 to delete; 1 push, 0 webhooks.")
        #expect(next.plan.messages == [Self.push(
            "push-n8", user: "u2", tokens: ["fcm-ben-legacy-bbbb0001"], title: "Friend request", body: "Dee wants to be friends",
            data: [("notificationId", "n8"), ("type", "friend_request"), ("actionUrl", "/inbox")], badge: 3)])
    }

    @Test func theDryRunShowsThePushesWithTokensRedactedAndQueuesNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        let before = GamificationCheck.snapshot(d)
        let dry = try await d.run("notification-fanout", now: Self.now, dryRun: true, config: Self.config)
        #expect(dry.plan.summaryLine == "Plan: 3 to create, 3 to update, 0 to delete; 5 pushes, 2 webhooks.")
        let text = dry.plan.text(limit: 20, color: false)
        #expect(text.contains("""
            outbox: 7 to queue
              webhook broadcast.sent
              webhook broadcast.sent
              push → u1: "Gift received" (…aa0001, …aa0002)
              push → u1: "Finals week" (…aa0001, …aa0002)
              push → u2: "Gift received" (…bb0001)
              push → u2: "Finals week" (…bb0001)
              push → u4: "You have 4 new notifications" (…dd0001)
            """))
        for token in ["fcm-ana-phone-aaaa0001", "fcm-ana-tablet-aaaa0002", "fcm-ben-legacy-bbbb0001", "fcm-dee-dddd0001"] {
            #expect(!text.contains(token))
            #expect(!JSONWriter.compact(dry.plan.json).contains(token))
        }
        #expect(GamificationCheck.snapshot(d) == before)
        #expect(GamificationCheck.pendingOutbox(d).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: d.root + "/.hearth/ledger/notification-push/20261120T12-notification-fanout-x.json"))
        let ledgerFiles = try FileManager.default.contentsOfDirectory(atPath: d.root + "/.hearth/ledger/notification-push")
        #expect(ledgerFiles == ["20261120T11-achievement-unlock-20261120T112000000Z-0001.json"], "a dry run records nothing")
        // The plan is what the real run then does.
        try await GamificationCheck.expectPlanMatchesRun(d, "notification-fanout", now: Self.now, config: Self.config)
    }

    @Test func notificationsAJobPushedInItsOwnCommitAreNotPushedAgain() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("achievements/a1", #"{"name": "First Gift", "icon": "gift", "xpReward": 0, "category": "gifts", "requirement": 1}"#)
        try d.writeDocument("users/u1", #"{"name": "Ana", "giftsGiven": 1, "fcmTokens": ["fcm-ana-phone-aaaa0001"]}"#)
        try d.writeDocument("users/u2", #"{"name": "Ben", "giftsGiven": 1}"#)
        let unlock = try await d.run("achievement-unlock", now: Self.now, config: Self.config)
        #expect(unlock.plan.messages.filter { $0.kind == .push }.map(\.id) == ["push-achievement-a1-u1"], "Ben has no device: no push")
        let fanout = try await d.run("notification-fanout", now: "2026-11-20T12:01:00Z", config: Self.config)
        #expect(fanout.plan.summaryLine == "No changes.")
    }

    @Test func withAPNsTheApnsTokensArePushed() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.writeDocument("users/u1", #"{"name": "Ana", "fcmTokens": ["fcm-ana-phone-aaaa0001"], "apnsTokens": ["apns-ana-0000000000000001"]}"#)
        try d.writeDocument("notifications/n1", Self.notification("u1", "gift_received", "Gift received", "Ben sent you 50 points", createdAt: "2026-11-20T11:00:00.000Z"))
        let config = """
            [push]
            provider = "apns"
            [push.apns]
            keyFile = "/nonexistent/AuthKey.p8"
            keyId = "KEY1234567"
            teamId = "TEAM123456"
            topic = "com.example.campus"
            """
        let outcome = try await d.run("notification-fanout", now: Self.now, config: config)
        #expect(outcome.plan.messages.map { $0.payload["tokens"] } == [.array(["apns-ana-0000000000000001"])])
    }

    @Test func aWrongTypedTokenFieldIsLeftOutWithAWarningThatNeverShowsTheToken() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        let user = #"{"name": "Ana", "fcmTokens": "fcm-ana-phone-aaaa0001", "fcmToken": "fcm-ana-legacy-aaaa0003", "school": 7}"#
        try d.writeDocument("users/u1", user)
        try d.writeDocument("notifications/n1", Self.notification("u1", "gift_received", "Gift received", "Ben sent you 50 points", createdAt: "2026-11-20T11:00:00.000Z"))
        let outcome = try await d.run("notification-fanout", now: Self.now, config: Self.config)
        #expect(outcome.plan.messages.map { $0.payload["tokens"] } == [.array(["fcm-ana-legacy-aaaa0003"])])
        #expect(outcome.plan.warnings == [#"users/u1.json: field "fcmTokens": expected an array of strings, found string; those tokens are not pushed to"#])
        #expect(outcome.record.status == .succeededWithWarnings)
        // Never invalid input: other jobs keep rewriting the user; nothing here rewrote it.
        #expect(d.documentText("users/u1") == user)
    }

    @Test func theParametersAreValidated() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        await #expect(throws: ParameterError.self) {
            _ = try await d.run("notification-fanout", now: Self.now, params: ["collapseAbove": "0"], config: Self.config)
        }
        await #expect(throws: ParameterError.self) {
            _ = try await d.run("notification-fanout", now: Self.now, params: ["maxAge": "soon"], config: Self.config)
        }
    }
}
