import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// docs/jobs/send-gift.md#rules, written with HearthTesting at T = S = 2026-11-18T12:00:00Z over
/// gift-settle's users (alice 100 points with a device token, bob 0, carol with every figure
/// missing, dave 10): the commit of a gift, the checks in their order, the requestId replay.
@Suite("send-gift")
struct SendGiftTests {
    static let now = GiftSettleTests.now
    static let S = GiftSettleTests.S

    /// Calls send-gift as `uid` with `data` (JSON text) over `store` (gift-settle's users unless given).
    static func send(
        _ data: String, as uid: String = "alice", store: InMemoryStore? = nil, parameters: [String: String] = [:],
        environment: JobEnvironment? = nil
    ) async throws -> (TestJobContext, CallError?) {
        let ctx = try TestJobContext(
            SendGift.self, store: try store ?? InMemoryStore(documents: GiftSettleTests.users), now: now,
            parameters: parameters, environment: try environment ?? .hostDefaults(), call: Call(data: try JSONParser.parse(data), uid: uid))
        return (ctx, try await ctx.runCall())
    }

    /// The call is refused with `code` and `reason`, and nothing is written or queued.
    static func expectRefused(
        _ data: String, _ code: CallError.Code, _ reason: String, as uid: String = "alice", store: InMemoryStore? = nil,
        parameters: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (ctx, error) = try await send(data, as: uid, store: store, parameters: parameters)
        #expect(error?.code == code, "\(data)", sourceLocation: sourceLocation)
        #expect(error?.reason == reason, "\(data): \(error.map(String.init(describing:)) ?? "answered \(String(describing: ctx.result))")", sourceLocation: sourceLocation)
        #expect(ctx.changeset.isEmpty, "\(data): nothing is written", sourceLocation: sourceLocation)
    }

    // MARK: A gift

    @Test func aGiftIsOneCommitSettledAsGiftSettleWouldAndAnsweredAtOnce() async throws {
        let (ctx, error) = try await Self.send(#"{"toUserId": "carol", "amount": 40, "message": "Lunch!", "requestId": "r-1"}"#)
        #expect(error == nil)
        #expect(ctx.result == .object(JSONObject([("transactionId", "gift-alice-r-1"), ("status", "completed"), ("points", 60)])))
        try await ctx.commit()
        #expect(ctx.store.documentText("transactions/gift-alice-r-1") == """
            {
              "type": "gift",
              "status": "completed",
              "fromUserId": "alice",
              "toUserId": "carol",
              "amount": 40,
              "message": "Lunch!",
              "createdAt": "\(Self.S)",
              "completedAt": "\(Self.S)",
              "fromUserName": "Alice Chen",
              "toUserName": "Carol Patel",
              "fromUsername": "alice",
              "toUsername": ""
            }
            """)
        // The same users as gift-settle's settling of the same gift.
        #expect(ctx.store.documentText("users/alice") == GiftSettleTests.aliceAfterGiving40)
        #expect(ctx.store.documentText("users/carol") == GiftSettleTests.carolAfterReceiving40)
        #expect(ctx.store.documentText("notifications/gift-gift-alice-r-1") == """
            {
              "userId": "carol",
              "type": "gift_received",
              "title": "Points received!",
              "message": "Alice Chen sent you 40 points",
              "relatedUserId": "alice",
              "relatedTransactionId": "gift-alice-r-1",
              "read": false,
              "createdAt": "\(Self.S)",
              "actionUrl": "/transactions/gift-alice-r-1"
            }
            """)
        // carol has no device token: no push, the notification only.
        #expect(ctx.changeset.messages == [
            .event("gift.completed", id: "gift.completed-gift-alice-r-1", data: JSONObject([
                ("transactionId", "gift-alice-r-1"), ("fromUserId", "alice"), ("toUserId", "carol"), ("amount", 40), ("completedAt", .string(Self.S)),
            ])),
        ])
        #expect(ctx.changeset.ledgerRecords.map { "\($0.key) \($0.value)" } == ["gift-gift-alice-r-1 no-tokens"])
        #expect(ctx.warnings.isEmpty)
    }

    @Test func theReceiversPushIsQueuedInTheSameCommit() async throws {
        let (ctx, error) = try await Self.send(#"{"toUserId": "alice", "amount": 5}"#, as: "dave")
        #expect(error == nil)
        // Without a requestId the id comes from the run's id ("test" in HearthTesting).
        #expect(ctx.result == .object(JSONObject([("transactionId", "gift-dave-test"), ("status", "completed"), ("points", 5)])))
        #expect(ctx.changeset.messages.map(\.id) == ["push-gift-gift-dave-test", "gift.completed-gift-dave-test"])
        let push = try #require(ctx.changeset.messages.first)
        #expect(push.recipient == "alice")
        #expect(JSONWriter.compact(.object(push.payload)) == #"{"userId":"alice","tokens":["token-alice-0123456789"],"title":"Points received!","body":"Dave Rossi sent you 5 points","data":{"notificationId":"gift-gift-dave-test","type":"gift_received","actionUrl":"/transactions/gift-dave-test"}}"#)
        #expect(ctx.changeset.ledgerRecords.map { "\($0.key) \($0.value)" } == ["gift-gift-dave-test queued"])
        try await ctx.commit()
        #expect(ctx.store.object("transactions/gift-dave-test")?["message"] == nil, "no message given, none written")
        #expect(ctx.store.object("users/dave")?["points"] == 5)
    }

    @Test func aRunWithoutAnIdNamesTheTransactionAfterItsStartTime() async throws {
        let store = try InMemoryStore(documents: GiftSettleTests.users)
        let at = try #require(Timestamp.parseISO8601(Self.now))
        let parameters = try JobParameters.resolve(specs: SendGift.descriptor.parameters, config: [:], commandLine: [:])
        let context = JobContext(
            jobName: "send-gift", logicalTime: at, startTime: at, timeZone: TimeZone(identifier: "UTC")!, parameters: parameters,
            store: store, policy: .skip, call: Call(data: try JSONParser.parse(#"{"toUserId": "bob", "amount": 1}"#), uid: "alice"))
        try await SendGift(parameters: parameters, environment: .hostDefaults()).run(context)
        #expect(context.result?.objectValue?["transactionId"] == "gift-alice-20261118T120000000Z")
    }

    @Test func whenTheAppsCannotDecodeGiftNotificationsTheGiftSettlesWithoutNotificationOrPush() async throws {
        let (ctx, error) = try await Self.send(
            #"{"toUserId": "alice", "amount": 5}"#, as: "dave", environment: JobEnvironment(notificationTypes: ["friend_request"], pushProvider: .fcm))
        #expect(error == nil)
        #expect(ctx.changeset.entries.map(\.path.description) == ["transactions/gift-dave-test", "users/dave", "users/alice"])
        #expect(ctx.changeset.messages.map(\.id) == ["gift.completed-gift-dave-test"])
        #expect(ctx.warnings == ["gift_received is not in [notifications].types: gifts settle, but no notification is written and nothing is pushed"])
    }

    @Test func aNotificationAlreadyAtItsIdIsKeptAndNotPushedAgain() async throws {
        var docs = GiftSettleTests.users
        docs["notifications/gift-gift-dave-r1"] = #"{"userId": "alice", "note": "written by hand"}"#
        let (ctx, error) = try await Self.send(#"{"toUserId": "alice", "amount": 5, "requestId": "r1"}"#, as: "dave", store: try InMemoryStore(documents: docs))
        #expect(error == nil)
        #expect(ctx.changeset.entry(for: try DocumentPath("notifications", "gift-gift-dave-r1")) == nil)
        #expect(ctx.changeset.messages.map(\.id) == ["gift.completed-gift-dave-r1"])
    }

    // MARK: The checks, in order

    @Test func check1DataThatIsNotARequestIsInvalid() async throws {
        let long = String(repeating: "a", count: 65)
        for data in [
            "null", "[1]", #""carol""#, "{}",
            #"{"amount": 5}"#, #"{"toUserId": null, "amount": 5}"#, #"{"toUserId": "", "amount": 5}"#, #"{"toUserId": 42, "amount": 5}"#,
            #"{"toUserId": "../users/x", "amount": 5}"#,
            #"{"toUserId": "bob", "amount": 5, "message": 42}"#, #"{"toUserId": "bob", "amount": 5, "message": ["hi"]}"#,
            #"{"toUserId": "bob", "amount": 5, "requestId": ""}"#, #"{"toUserId": "bob", "amount": 5, "requestId": "\#(long)"}"#,
            #"{"toUserId": "bob", "amount": 5, "requestId": "a b"}"#, #"{"toUserId": "bob", "amount": 5, "requestId": "a.b"}"#,
            #"{"toUserId": "bob", "amount": 5, "requestId": "ä"}"#, #"{"toUserId": "bob", "amount": 5, "requestId": 7}"#,
        ] {
            try await Self.expectRefused(data, .invalidArgument, "invalid_request")
        }
    }

    @Test func check1AMessageIsAtMost500CodePoints() async throws {
        // 🎁 is one code point (four bytes); e + a combining accent is two code points, one character.
        let gifts500 = String(repeating: "🎁", count: 500)
        let (ctx, error) = try await Self.send(#"{"toUserId": "bob", "amount": 5, "message": "\#(gifts500)"}"#)
        #expect(error == nil)
        #expect(ctx.changeset.entries.first?.after?["message"] == .string(gifts500))
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 5, "message": "\#(gifts500)🎁"}"#, .invalidArgument, "invalid_request")
        let accented = String(repeating: "e\u{301}", count: 251)   // 251 characters, 502 code points
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 5, "message": "\#(accented)"}"#, .invalidArgument, "invalid_request")
    }

    @Test func check1ARequestIdIsOneTo64LettersDigitsUnderscoresOrDashes() async throws {
        for id in ["a", "A-z_09", String(repeating: "x", count: 64)] {
            let (ctx, error) = try await Self.send(#"{"toUserId": "bob", "amount": 5, "requestId": "\#(id)"}"#)
            #expect(error == nil)
            #expect(ctx.result?.objectValue?["transactionId"] == .string("gift-alice-\(id)"))
        }
    }

    @Test func check1NullFieldsCountAsAbsentAndOtherFieldsAreIgnored() async throws {
        let (ctx, error) = try await Self.send(#"{"toUserId": "bob", "amount": 5, "message": null, "requestId": null, "fromUserId": "dave", "x": [1]}"#)
        #expect(error == nil)
        #expect(ctx.result?.objectValue?["transactionId"] == "gift-alice-test")
        let transaction = try #require(ctx.changeset.entry(for: try DocumentPath("transactions", "gift-alice-test"))?.after)
        #expect(transaction.keys == ["type", "status", "fromUserId", "toUserId", "amount", "createdAt", "completedAt", "fromUserName", "toUserName", "fromUsername", "toUsername"])
        #expect(transaction["fromUserId"] == "alice")
    }

    @Test func check2AnAmountThatIsNotAWholeNumberOfAtLeastOneIsInvalid() async throws {
        for amount in [#""10""#, "2.5", "10.0", "1e2", "0", "-5", "null", "true", "12345678901234567890"] {
            try await Self.expectRefused(#"{"toUserId": "bob", "amount": \#(amount)}"#, .invalidArgument, "invalid_amount")
        }
        try await Self.expectRefused(#"{"toUserId": "bob"}"#, .invalidArgument, "invalid_amount")
    }

    @Test func check3AnAmountOverMaxAmountIsOverLimit() async throws {
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 51}"#, .invalidArgument, "over_limit", parameters: ["maxAmount": "50"])
        let (_, error) = try await Self.send(#"{"toUserId": "bob", "amount": 50}"#, parameters: ["maxAmount": "50"])
        #expect(error == nil)
    }

    @Test func check4AGiftToOneselfIsASelfGift() async throws {
        try await Self.expectRefused(#"{"toUserId": "alice", "amount": 5}"#, .invalidArgument, "self_gift")
    }

    @Test func check6AnUnknownSenderOrReceiverIsNotFound() async throws {
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 5}"#, .notFound, "unknown_sender", as: "ghost")
        try await Self.expectRefused(#"{"toUserId": "ghost", "amount": 5}"#, .notFound, "unknown_receiver")
        // The sender is looked for first.
        try await Self.expectRefused(#"{"toUserId": "nobody", "amount": 5}"#, .notFound, "unknown_sender", as: "ghost")
    }

    @Test func check6AnInvalidUserDocumentIsAFailedPrecondition() async throws {
        var docs = GiftSettleTests.users
        docs["users/erin"] = #"{"name": "Erin", "points": "12"}"#
        docs["users/fay"] = #"{"name": "Fay""#
        for (uid, to) in [("erin", "bob"), ("alice", "erin"), ("alice", "fay")] {
            let store = try InMemoryStore(documents: docs)
            let (ctx, error) = try await Self.send(#"{"toUserId": "\#(to)", "amount": 5}"#, as: uid, store: store)
            #expect(error?.code == .failedPrecondition)
            #expect(error?.reason == "invalid_document")
            #expect(ctx.changeset.isEmpty)
            #expect(ctx.warnings.count == 1 && ctx.warnings[0].hasPrefix("users/\(to == "bob" ? uid : to).json: "), "\(ctx.warnings)")
        }
        // An unknown receiver is answered before an invalid sender.
        try await Self.expectRefused(#"{"toUserId": "ghost", "amount": 5}"#, .notFound, "unknown_receiver", as: "erin", store: try InMemoryStore(documents: docs))
    }

    @Test func check7WithRequireFriendshipTheTwoMustBeAcceptedFriendsEitherWay() async throws {
        var docs = GiftSettleTests.users
        docs["friendships/f1"] = #"{"userId1": "bob", "userId2": "alice", "status": "pending"}"#
        docs["friendships/f2"] = #"{"userId1": "alice", "userId2": "carol", "status": "accepted"}"#
        let friendship = ["requireFriendship": "true"]
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 5}"#, .failedPrecondition, "not_friends", store: try InMemoryStore(documents: docs), parameters: friendship)
        let (ctx, error) = try await Self.send(#"{"toUserId": "alice", "amount": 5}"#, as: "carol", store: try InMemoryStore(documents: docs), parameters: friendship)
        #expect(error == nil)
        #expect(ctx.result?.objectValue?["points"] == 495)
        // Without the parameter no friendship is needed.
        let (_, unfriended) = try await Self.send(#"{"toUserId": "bob", "amount": 5}"#, store: try InMemoryStore(documents: docs))
        #expect(unfriended == nil)
    }

    @Test func check8ASenderWithFewerPointsThanTheAmountHasInsufficientPoints() async throws {
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 11}"#, .failedPrecondition, "insufficient_points", as: "dave")
        let (ctx, error) = try await Self.send(#"{"toUserId": "bob", "amount": 10}"#, as: "dave")
        #expect(error == nil)
        #expect(ctx.result?.objectValue?["points"] == 0)
        // carol has no points field: the decoder default, 500.
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 501}"#, .failedPrecondition, "insufficient_points", as: "carol")
    }

    @Test func theFirstFailingCheckAnswers() async throws {
        // Each call breaks its own check and every later one.
        try await Self.expectRefused(#"{"toUserId": "", "amount": 0}"#, .invalidArgument, "invalid_request", as: "ghost")
        try await Self.expectRefused(#"{"toUserId": "ghost", "amount": 0}"#, .invalidArgument, "invalid_amount", as: "ghost", parameters: ["maxAmount": "1"])
        try await Self.expectRefused(#"{"toUserId": "ghost", "amount": 900}"#, .invalidArgument, "over_limit", as: "ghost", parameters: ["maxAmount": "1"])
        try await Self.expectRefused(#"{"toUserId": "ghost", "amount": 900}"#, .invalidArgument, "self_gift", as: "ghost")
        try await Self.expectRefused(#"{"toUserId": "zed", "amount": 900}"#, .notFound, "unknown_sender", as: "ghost", parameters: ["requireFriendship": "true"])
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 900}"#, .failedPrecondition, "not_friends", as: "dave", parameters: ["requireFriendship": "true"])
    }

    // MARK: 5. A retried call

    @Test func check5ARetriedCallIsAnsweredFromItsTransactionAndMovesNoPointsTwice() async throws {
        let store = try InMemoryStore(documents: GiftSettleTests.users)
        let data = #"{"toUserId": "bob", "amount": 30, "requestId": "tap-1"}"#
        let (first, _) = try await Self.send(data, store: store)
        try await first.commit()
        let users = ["alice", "bob"].map { store.text("users/\($0)") }
        // The retry, after alice received 5 from dave: her points now, the same transaction.
        try store.write("users/alice", store.text("users/alice")!.replacingOccurrences(of: #""points": 70"#, with: #""points": 75"#))
        let (again, error) = try await Self.send(data, store: store)
        #expect(error == nil)
        #expect(again.result == .object(JSONObject([("transactionId", "gift-alice-tap-1"), ("status", "completed"), ("points", 75)])))
        #expect(again.changeset.isEmpty)
        #expect(GiftSettleDependencyTests.dependencies(again) == ["transactions/gift-alice-tap-1@read", "users/alice@read"])
        #expect(store.text("users/bob") == users[1])
        // The requestId names the gift: other fields, a receiver now unknown, are not checked again.
        let (other, otherError) = try await Self.send(#"{"toUserId": "ghost", "amount": 99, "requestId": "tap-1"}"#, store: store)
        #expect(otherError == nil)
        #expect(other.result?.objectValue?["status"] == "completed")
    }

    @Test func check5TheReplayAnswersTheTransactionsStatusAsItIs() async throws {
        var docs = GiftSettleTests.users
        docs["transactions/gift-alice-r9"] = #"{"type": "gift", "status": "failed", "fromUserId": "alice", "toUserId": "bob", "amount": 5}"#
        docs["transactions/gift-dave-x-r9"] = #"{"type": "gift", "status": "completed", "fromUserId": "dave-x", "toUserId": "bob", "amount": 5}"#
        let (ctx, _) = try await Self.send(#"{"toUserId": "bob", "amount": 5, "requestId": "r9"}"#, store: try InMemoryStore(documents: docs))
        #expect(ctx.result == .object(JSONObject([("transactionId", "gift-alice-r9"), ("status", "failed"), ("points", 100)])))
        // dave's requestId "x-r9" names dave-x's transaction: not his to replay.
        try await Self.expectRefused(#"{"toUserId": "bob", "amount": 5, "requestId": "x-r9"}"#, .invalidArgument, "invalid_request", as: "dave", store: try InMemoryStore(documents: docs))
    }
}
