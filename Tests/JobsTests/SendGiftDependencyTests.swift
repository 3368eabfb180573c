import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// docs/jobs/send-gift.md#what-a-decision-rests-on: each answer rests on what it read beyond what
/// it writes — a user found absent, the pair's friendships, the sender's balance, the requestId's
/// transaction. Two calls spending the same points at once cannot both commit: the second one's
/// commit is a conflict, and decided again it is answered on the state the first left.
@Suite("send-gift, what a decision rests on")
struct SendGiftDependencyTests {
    static func dependencies(_ run: TestJobContext) -> [String] { GiftSettleDependencyTests.dependencies(run) }

    @Test func aGiftRestsOnTheRequestIdsAbsenceThePairsFriendshipsAndBothUsers() async throws {
        var docs = GiftSettleTests.users
        docs["friendships/f1"] = #"{"userId1": "bob", "userId2": "alice", "status": "accepted"}"#
        docs["friendships/f2"] = #"{"userId1": "alice", "userId2": "dave", "status": "accepted"}"#
        let (run, _) = try await SendGiftTests.send(
            #"{"toUserId": "bob", "amount": 5, "requestId": "r1"}"#, store: try InMemoryStore(documents: docs), parameters: ["requireFriendship": "true"])
        #expect(Self.dependencies(run) == ["transactions/gift-alice-r1@absent", "friendships/f1@read", "users/alice@read", "users/bob@read"])
        // Without a requestId and the parameter: the two users only (both written).
        let (plain, _) = try await SendGiftTests.send(#"{"toUserId": "bob", "amount": 5}"#)
        #expect(Self.dependencies(plain) == ["users/alice@read", "users/bob@read"])
    }

    @Test func eachRefusalRestsOnWhatItRead() async throws {
        var docs = GiftSettleTests.users
        docs["friendships/f1"] = #"{"userId1": "bob", "userId2": "dave", "status": "pending"}"#
        let store = try InMemoryStore(documents: docs)
        let cases: [(data: String, uid: String, parameters: [String: String], dependencies: [String])] = [
            (#"{"toUserId": "bob", "amount": 0, "requestId": "r1"}"#, "dave", [:], []),
            (#"{"toUserId": "bob", "amount": 5, "requestId": "r1"}"#, "ghost", [:], ["transactions/gift-ghost-r1@absent", "users/ghost@absent"]),
            (#"{"toUserId": "ghost", "amount": 5}"#, "dave", [:], ["users/ghost@absent"]),
            (#"{"toUserId": "bob", "amount": 5}"#, "dave", ["requireFriendship": "true"], ["friendships/f1@read"]),
            (#"{"toUserId": "bob", "amount": 11}"#, "dave", [:], ["users/dave@read"]),
        ]
        for c in cases {
            let (run, error) = try await SendGiftTests.send(c.data, as: c.uid, store: store, parameters: c.parameters)
            #expect(error != nil)
            #expect(Self.dependencies(run) == c.dependencies, "\(c.data)")
        }
    }

    @Test func twoCallsSpendingTheSamePointsAtOnceCannotBothCommit() async throws {
        let store = try InMemoryStore(documents: GiftSettleTests.users)
        // alice has 100: each call alone could send 60, both read before either commits.
        let (first, _) = try await SendGiftTests.send(#"{"toUserId": "bob", "amount": 60, "requestId": "a"}"#, store: store)
        let (second, _) = try await SendGiftTests.send(#"{"toUserId": "carol", "amount": 60, "requestId": "b"}"#, store: store)
        try await first.commit()
        await #expect(throws: TestCommitConflict.self) { try await second.commit() }
        #expect(store.ids("transactions") == ["gift-alice-a"], "a conflict writes nothing")
        // Decided again, on the state the first left: refused, nothing lost or made.
        let (again, error) = try await SendGiftTests.send(#"{"toUserId": "carol", "amount": 60, "requestId": "b"}"#, store: store)
        #expect(error?.reason == "insufficient_points")
        #expect(again.changeset.isEmpty)
        let points = try ["alice", "bob", "carol", "dave"].map { try #require(store.object("users/\($0)"))["points"]?.intValue ?? 500 }
        #expect(points == [40, 60, 500, 10])
    }

    @Test func aRetryRacingItsFirstCallIsAnsweredFromTheTransactionTheFirstCommitted() async throws {
        let store = try InMemoryStore(documents: GiftSettleTests.users)
        let data = #"{"toUserId": "bob", "amount": 10, "requestId": "tap"}"#
        let (first, _) = try await SendGiftTests.send(data, store: store)
        let (retry, _) = try await SendGiftTests.send(data, store: store)
        try await first.commit()
        await #expect(throws: TestCommitConflict.self) { try await retry.commit() }
        let (again, error) = try await SendGiftTests.send(data, store: store)
        #expect(error == nil)
        #expect(again.result == .object(JSONObject([("transactionId", "gift-alice-tap"), ("status", "completed"), ("points", 90)])))
        #expect(store.object("users/bob")?["points"] == 10)
    }

    @Test func anInsufficientBalanceCreditedBeforeTheCommitIsDecidedAgain() async throws {
        let store = try InMemoryStore(documents: GiftSettleTests.users)
        let (run, error) = try await SendGiftTests.send(#"{"toUserId": "bob", "amount": 50}"#, as: "dave", store: store)
        #expect(error?.reason == "insufficient_points")
        #expect(run.changeset.dependencyChecks.map(\.path.description) == ["users/dave"])
        try store.write("users/dave", #"{"name": "Dave Rossi", "username": "dave", "points": 60}"#)
        // What the refusal rested on changed: a runner that checks it decides again, and the gift goes through.
        await #expect(throws: TestCommitConflict.self) { try await run.commit() }
        let (again, retryError) = try await SendGiftTests.send(#"{"toUserId": "bob", "amount": 50}"#, as: "dave", store: store)
        #expect(retryError == nil)
        #expect(again.result?.objectValue?["points"] == 10)
    }
}
