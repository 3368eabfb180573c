import Foundation
import HearthKit
import HearthStore
import HearthHost
import Jobs
import Testing
import HearthTestSupport
import HearthTesting
import Jobs

/// docs/jobs/gift-settle.md#rules on hand-made data sets at T = S = 2026-11-18T12:00:00Z.
@Suite("gift-settle")
struct GiftSettleTests {
    static let now = "2026-11-18T12:00:00Z"
    static let S = "2026-11-18T12:00:00.000Z"

    func makeUsers() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        for (path, json) in Self.users { try d.writeDocument(path, json) }
        return d
    }

    /// A pending gift in the app's own shape (`amount` and `createdAt` as raw JSON).
    static func gift(_ from: String, _ to: String, amount: String, at: String = #""2026-11-18T10:00:00Z""#, extra: String = "") -> String {
        """
        {
          "type": "gift",
          "fromUserId": \(from),
          "toUserId": \(to),
          "amount": \(amount),
          "message": "Thanks!",
          "status": "pending",
          "createdAt": \(at)\(extra)
        }
        """
    }

    /// The gift after it failed with `code`: three fields appended, nothing else changed.
    static func failed(_ pending: String, _ code: String) -> String {
        pending.replacingOccurrences(of: #""status": "pending""#, with: #""status": "failed""#).dropLast(2) + """
            ,
              "failureReason": "\(code)",
              "failedAt": "\(S)"
            }
            """
    }

    /// Writes `gift` as `transactions/g1`, runs the job, and checks that it failed with `code`
    /// and that no user, notification or outbox message but the `gift.failed` event changed.
    func expectFails(
        _ gift: String, _ code: String, params: [String: String] = [:], setUp: (TestDataDirectory) throws -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let d = try makeUsers()
        defer { d.remove() }
        try setUp(d)
        try d.writeDocument("transactions/g1", gift)
        let before = GamificationCheck.snapshot(d)
        let outcome = try await d.run("gift-settle", now: Self.now, params: params)
        #expect(outcome.error == nil, sourceLocation: sourceLocation)
        #expect(d.documentText("transactions/g1") == Self.failed(gift, code), sourceLocation: sourceLocation)
        var after = GamificationCheck.snapshot(d)
        after["transactions/g1"] = before["transactions/g1"]
        #expect(after == before, "only the gift may change", sourceLocation: sourceLocation)
        #expect(outcome.plan.messages.map(\.id) == ["gift.failed-g1"], sourceLocation: sourceLocation)
        #expect(outcome.plan.messages.first?.payload["failureReason"] == .string(code), sourceLocation: sourceLocation)
    }

    // MARK: Settling

    @Test func aGiftSettlesAsTheAppsSendGiftWould() async throws {
        let d = try makeUsers()
        defer { d.remove() }
        try d.writeDocument("transactions/g1", Self.gift(#""alice""#, #""carol""#, amount: "40"))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "gift-settle", now: Self.now)
        #expect(outcome.plan.summaryLine == "Applied: 1 to create, 3 to update, 0 to delete; 0 pushes, 1 webhook.")
        #expect(d.documentText("transactions/g1") == """
            {
              "type": "gift",
              "fromUserId": "alice",
              "toUserId": "carol",
              "amount": 40,
              "message": "Thanks!",
              "status": "completed",
              "createdAt": "2026-11-18T10:00:00Z",
              "completedAt": "\(Self.S)",
              "fromUserName": "Alice Chen",
              "toUserName": "Carol Patel",
              "fromUsername": "alice",
              "toUsername": ""
            }
            """)
        #expect(d.documentText("users/alice") == Self.aliceAfterGiving40)
        // carol's missing figures start from the decoder defaults (500 points, 500 earned).
        #expect(d.documentText("users/carol") == Self.carolAfterReceiving40)
        #expect(d.documentText("notifications/gift-g1") == """
            {
              "userId": "carol",
              "type": "gift_received",
              "title": "Points received!",
              "message": "Alice Chen sent you 40 points",
              "relatedUserId": "alice",
              "relatedTransactionId": "g1",
              "read": false,
              "createdAt": "\(Self.S)",
              "actionUrl": "/transactions/g1"
            }
            """)
        #expect(outcome.plan.messages == [
            .event("gift.completed", id: "gift.completed-g1", data: JSONObject([
                ("transactionId", "g1"), ("fromUserId", "alice"), ("toUserId", "carol"), ("amount", 40), ("completedAt", .string(Self.S)),
            ])),
        ])
    }

    @Test func theReceiversPushIsQueuedInTheSameCommit() async throws {
        let d = try makeUsers()
        defer { d.remove() }
        try d.writeDocument("transactions/g1", Self.gift(#""dave""#, #""alice""#, amount: "5"))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "gift-settle", now: Self.now)
        #expect(outcome.plan.messages.map(\.id) == ["push-gift-g1", "gift.completed-g1"])
        let push = try #require(outcome.plan.messages.first)
        #expect(push.recipient == "alice")
        #expect(JSONWriter.compact(.object(push.payload)) == #"{"userId":"alice","tokens":["token-alice-0123456789"],"title":"Points received!","body":"Dave Rossi sent you 5 points","data":{"notificationId":"gift-g1","type":"gift_received","actionUrl":"/transactions/g1"}}"#)
        #expect(GamificationCheck.pendingOutbox(d) == ["gift.completed-g1", "push-gift-g1"])
        // notification-fanout knows the push was queued: it does not push it again.
        let fanout = try await d.run("notification-fanout", now: Self.now)
        #expect(fanout.plan.messages.isEmpty)
    }

    /// Written with HearthTesting (docs/jobs/README.md#writing-a-job): no files.
    @Test func aNotificationAlreadyAtItsIdIsKeptAndNotPushedAgain() async throws {
        let ctx = try TestJobContext(GiftSettle.self, documents: Self.users.merging([
            "notifications/gift-g1": #"{"userId": "alice", "type": "gift_received", "note": "written by hand"}"#,
            "transactions/g1": Self.gift(#""dave""#, #""alice""#, amount: "5"),
        ]) { $1 }, now: Self.now, environment: .hostDefaults())
        try await ctx.run()
        try await ctx.commit()
        #expect(ctx.store.object("transactions/g1")?["status"] == "completed")
        #expect(ctx.store.documentText("notifications/gift-g1") == #"{"userId": "alice", "type": "gift_received", "note": "written by hand"}"#)
        #expect(ctx.changeset.messages.map(\.id) == ["gift.completed-g1"])
    }

    /// Written with HearthTesting (docs/jobs/README.md#writing-a-job): no files.
    @Test func giftsSettleInCreatedAtOrderEachSeeingTheBalancesTheEarlierOnesLeft() async throws {
        let d = try InMemoryStore(documents: Self.users)
        // bob has 0: he can give on the 60 alice sends him first, but not 20 more after that.
        try d.write("transactions/a3", Self.gift(#""alice""#, #""bob""#, amount: "60", at: #""2026-11-18T09:00:00Z""#))
        try d.write("transactions/a1", Self.gift(#""bob""#, #""dave""#, amount: "50", at: #""2026-11-18T09:30:00Z""#))
        // Same createdAt as a1: after it, by id.
        try d.write("transactions/a2", Self.gift(#""bob""#, #""carol""#, amount: "20", at: #""2026-11-18T09:30:00Z""#))
        // firebase-admin's timestamp form, before everything else: settles first (alice 100 → 70).
        try d.write("transactions/z9", Self.gift(#""alice""#, #""dave""#, amount: "30", at: #"{"_seconds": 1794988800, "_nanoseconds": 0}"#))
        // alice has 10 left after a3 and z9.
        try d.write("transactions/b1", Self.gift(#""alice""#, #""carol""#, amount: "11", at: #""2026-11-18T11:00:00Z""#))
        let ctx = try TestJobContext(GiftSettle.self, store: d, now: Self.now, environment: .hostDefaults())
        try await ctx.run()
        try await ctx.commit()
        func outcome(_ id: String) throws -> String {
            let o = try #require(d.object("transactions/\(id)"))
            return [o["status"]?.stringValue, o["failureReason"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        }
        #expect(try outcome("z9") == "completed")
        #expect(try outcome("a3") == "completed")
        #expect(try outcome("a1") == "completed")
        #expect(try outcome("a2") == "failed insufficient_points")
        #expect(try outcome("b1") == "failed insufficient_points")
        func points(_ id: String) throws -> Int64? { d.object("users/\(id)")?["points"]?.intValue }
        #expect(try points("alice") == 10)
        #expect(try points("bob") == 10)
        #expect(try points("dave") == 90)
        #expect(d.documentText("users/carol") == "{\n  \"name\": \"Carol Patel\"\n}")
    }

    @Test func aSecondRunAtTheSameTimeChangesNothing() async throws {
        let d = try makeUsers()
        defer { d.remove() }
        try d.writeDocument("transactions/g1", Self.gift(#""alice""#, #""bob""#, amount: "60"))
        try d.writeDocument("transactions/g2", Self.gift(#""bob""#, #""bob""#, amount: "60"))
        _ = try await d.run("gift-settle", now: Self.now)
        let first = GamificationCheck.snapshot(d)
        let again = try await d.run("gift-settle", now: Self.now)
        #expect(again.plan.summaryLine == "No changes.")
        #expect(GamificationCheck.snapshot(d) == first)
    }

    /// Written with HearthTesting (docs/jobs/README.md#writing-a-job): no files.
    @Test func onlyPendingGiftsAreTouched() async throws {
        let completed = Self.gift(#""alice""#, #""bob""#, amount: "60").replacingOccurrences(of: "pending", with: "completed")
        let bonus = Self.gift(#""alice""#, #""bob""#, amount: "60").replacingOccurrences(of: #""gift""#, with: #""bonus""#)
        let odd = Self.gift(#""alice""#, #""bob""#, amount: "60").replacingOccurrences(of: #""pending""#, with: "7")
        let ctx = try TestJobContext(GiftSettle.self, documents: Self.users.merging([
            "transactions/done": completed, "transactions/bonus": bonus, "transactions/odd": odd,
        ]) { $1 }, now: Self.now, environment: .hostDefaults())
        try await ctx.run()
        #expect(ctx.summaryLine == "No changes.")
        #expect(ctx.warnings.isEmpty)
    }

    // MARK: Failure codes, in the order they are checked

    @Test func aMissingOrEmptyUserIdIsAnInvalidRequest() async throws {
        try await expectFails(Self.gift(#""""#, #""bob""#, amount: "10"), "invalid_request")
        try await expectFails(Self.gift(#""alice""#, "null", amount: "10"), "invalid_request")
        try await expectFails(Self.gift("42", #""bob""#, amount: "10"), "invalid_request")
        try await expectFails(Self.gift(#""../users/x""#, #""bob""#, amount: "10"), "invalid_request")
    }

    @Test func aMissingOrUnparsableCreatedAtIsAnInvalidRequest() async throws {
        try await expectFails(Self.gift(#""alice""#, #""bob""#, amount: "10", at: #""yesterday""#), "invalid_request")
        try await expectFails(Self.gift(#""alice""#, #""bob""#, amount: "10", at: "null"), "invalid_request")
    }

    @Test func anAmountThatIsNotAPositiveWholeNumberIsInvalid() async throws {
        for amount in [#""10""#, "2.5", "10.0", "0", "-5", "null", "true"] {
            try await expectFails(Self.gift(#""alice""#, #""bob""#, amount: amount), "invalid_amount")
        }
        // An exponent is not an integer either (the number itself round-trips as 100.0).
        let d = try makeUsers()
        defer { d.remove() }
        try d.writeDocument("transactions/g1", Self.gift(#""alice""#, #""bob""#, amount: "1e2"))
        _ = try await d.run("gift-settle", now: Self.now)
        #expect(try d.object("transactions/g1")?["failureReason"] == "invalid_amount")
    }

    @Test func anAmountOverMaxAmountIsOverLimit() async throws {
        try await expectFails(Self.gift(#""alice""#, #""bob""#, amount: "51"), "over_limit", params: ["maxAmount": "50"])
    }

    @Test func aGiftToOneselfIsASelfGift() async throws {
        try await expectFails(Self.gift(#""alice""#, #""alice""#, amount: "10"), "self_gift")
    }

    @Test func aGiftCreatedBeforeTMinusExpireAfterIsExpired() async throws {
        // Exactly 7 days before T still settles; a millisecond earlier is expired.
        try await expectFails(Self.gift(#""alice""#, #""bob""#, amount: "10", at: #""2026-11-11T11:59:59.999Z""#), "expired")
        try await expectFails(Self.gift(#""alice""#, #""bob""#, amount: "10", at: #""2026-11-18T09:59:59Z""#), "expired", params: ["expireAfter": "2h"])
        let d = try makeUsers()
        defer { d.remove() }
        try d.writeDocument("transactions/g1", Self.gift(#""alice""#, #""bob""#, amount: "10", at: #""2026-11-11T12:00:00Z""#))
        _ = try await d.run("gift-settle", now: Self.now)
        #expect(try d.object("transactions/g1")?["status"] == "completed")
    }

    @Test func aSenderWithoutAUsersDocumentIsAnUnknownSender() async throws {
        try await expectFails(Self.gift(#""ghost""#, #""bob""#, amount: "10"), "unknown_sender")
    }

    @Test func aReceiverWithoutAUsersDocumentIsAnUnknownReceiver() async throws {
        try await expectFails(Self.gift(#""alice""#, #""ghost""#, amount: "10"), "unknown_receiver")
    }

    @Test func withRequireFriendshipAGiftNeedsAnAcceptedFriendshipEitherWay() async throws {
        try await expectFails(Self.gift(#""alice""#, #""bob""#, amount: "10"), "not_friends", params: ["requireFriendship": "true"]) { d in
            try d.writeDocument("friendships/alice_bob", #"{"userId1": "alice", "userId2": "bob", "status": "pending", "initiatedBy": "alice"}"#)
            try d.writeDocument("friendships/alice_carol", #"{"userId1": "alice", "userId2": "carol", "status": "accepted", "initiatedBy": "alice"}"#)
        }
        let d = try makeUsers()
        defer { d.remove() }
        try d.writeDocument("friendships/x", #"{"userId1": "alice", "userId2": "bob", "status": "accepted", "initiatedBy": "bob"}"#)
        try d.writeDocument("transactions/g1", Self.gift(#""bob""#, #""alice""#, amount: "10", at: #""2026-11-18T11:00:00Z""#))
        try d.writeDocument("transactions/g0", Self.gift(#""alice""#, #""bob""#, amount: "10"))
        _ = try await d.run("gift-settle", now: Self.now, config: "[jobs.gift-settle.params]\nrequireFriendship = true\n")
        #expect(try d.object("transactions/g0")?["status"] == "completed")
        #expect(try d.object("transactions/g1")?["status"] == "completed")
    }

    @Test func aSenderWithFewerPointsThanTheAmountHasInsufficientPoints() async throws {
        try await expectFails(Self.gift(#""dave""#, #""bob""#, amount: "11"), "insufficient_points")
    }

    @Test func theFirstFailingRuleGivesTheCode() async throws {
        // Self-gift, expired, from an unknown user, and over balance: invalid_amount comes first.
        try await expectFails(Self.gift(#""ghost""#, #""ghost""#, amount: "0", at: #""2026-01-01T00:00:00Z""#), "invalid_amount")
        // Self-gift before expired before unknown_sender.
        try await expectFails(Self.gift(#""ghost""#, #""ghost""#, amount: "10", at: #""2026-01-01T00:00:00Z""#), "self_gift")
        try await expectFails(Self.gift(#""ghost""#, #""bob""#, amount: "10", at: #""2026-01-01T00:00:00Z""#), "expired")
    }

    // MARK: Bad input

    @Test func aGiftWhoseUserDocumentIsInvalidStaysPendingWithAWarningAndSettlesOnceFixed() async throws {
        let d = try makeUsers()
        defer { d.remove() }
        try d.writeDocument("users/erin", #"{"name": "Erin", "points": "12"}"#)
        let pending = Self.gift(#""alice""#, #""erin""#, amount: "10")
        try d.writeDocument("transactions/g1", pending)
        try d.writeDocument("transactions/g2", Self.gift(#""alice""#, #""bob""#, amount: "10", at: #""2026-11-18T10:30:00Z""#))
        let outcome = try await d.run("gift-settle", now: Self.now)
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == [
            #"users/erin.json: field "points": expected integer, found string "12""#,
            "transactions/g1.json: left pending because users/erin.json is invalid (see its warning); it settles once that is fixed",
        ])
        #expect(d.documentText("transactions/g1") == pending)
        #expect(d.documentText("users/erin") == #"{"name": "Erin", "points": "12"}"#)
        #expect(try d.object("transactions/g2")?["status"] == "completed")
        #expect(try d.object("users/alice")?["points"] == 90)

        try await GamificationCheck.expectFailsOnInvalid(d, "gift-settle", now: Self.now, message: #"users/erin.json: field "points": expected integer, found string "12""#)

        try d.writeDocument("users/erin", #"{"name": "Erin", "points": 12}"#)
        _ = try await d.run("gift-settle", now: Self.now)
        #expect(try d.object("transactions/g1")?["status"] == "completed")
        #expect(try d.object("users/erin")?["points"] == 22)
    }

    // MARK: Invariants over random gift sets

    /// Random sets of pending gifts — chains, ties in `createdAt`, missing fields, bad amounts,
    /// unknown users — over random balances: the sum of all users' points is unchanged, no
    /// balance goes below zero through a gift, every pending gift ends completed or failed, and
    /// a second run changes nothing.
    @Test(arguments: 0..<12)
    func randomGiftSetsKeepEveryInvariant(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed &* 7919 &+ 17)
        func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
        let d = try TestDataDirectory()
        defer { d.remove() }
        let users = (0..<6).map { "u\($0)" }
        var total: Int64 = 0
        for u in users {
            // Some users have no `points` (the default 500 counts).
            if int(0...4) == 0 {
                try d.writeDocument("users/\(u)", #"{"name": "\#(u)"}"#)
                total += 500
            } else {
                let p = int(0...80)
                try d.writeDocument("users/\(u)", #"{"name": "\#(u)", "points": \#(p)}"#)
                total += Int64(p)
            }
        }
        let ids = users + ["ghost", ""]
        for g in 0..<int(5...40) {
            let from = ids[int(0...(ids.count - 1))]
            let to = ids[int(0...(ids.count - 1))]
            let amount = ["1", "5", "20", "50", "100", "0", "-3", "2.5", "\"7\"", "null"][int(0...9)]
            // Few distinct times: many ties.
            let at = [#""2026-11-18T10:00:00Z""#, #""2026-11-18T10:01:00Z""#, #""2026-11-18T10:02:00Z""#, "null", #""2026-11-01T00:00:00Z""#][int(0...4)]
            var fields = [#""type": "gift""#, #""status": "pending""#, #""createdAt": \#(at)"#]
            if int(0...9) > 0 { fields.append(#""fromUserId": "\#(from)""#) }
            if int(0...9) > 0 { fields.append(#""toUserId": "\#(to)""#) }
            if int(0...9) > 0 { fields.append(#""amount": \#(amount)"#) }
            try d.writeDocument("transactions/g\(g)", "{" + fields.joined(separator: ", ") + "}")
        }
        let outcome = try await d.run("gift-settle", now: Self.now)
        #expect(outcome.error == nil)
        var sum: Int64 = 0
        for u in users {
            let o = try #require(try d.object("users/\(u)"))
            let p = o["points"]?.intValue ?? 500
            #expect(p >= 0)
            sum += p
        }
        #expect(sum == total)
        for id in d.ids("transactions") {
            let status = try d.object("transactions/\(id)")?["status"]?.stringValue
            #expect(status == "completed" || status == "failed", "\(id): \(status ?? "nil")")
        }
        let again = try await d.run("gift-settle", now: Self.now)
        #expect(again.plan.summaryLine == "No changes.")
    }
}
