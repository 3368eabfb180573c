import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// docs/jobs/gift-settle.md#what-a-verdict-rests-on: each verdict rests on what it read beyond
/// the gift — a user found absent, the pair's friendships, the sender's balance, and for a
/// settled gift both users. Another writer changing one of them before the run commits makes
/// the commit a conflict (nothing written), and the run on the new state decides again.
@Suite("gift-settle, what a verdict rests on")
struct GiftSettleDependencyTests {
    static let now = GiftSettleTests.now

    /// The dependencies the run recorded: `path@read` (a version) or `path@absent`.
    static func dependencies(_ run: TestJobContext) -> [String] {
        run.changeset.dependencies.map { "\($0.path)@\($0.expected == nil ? "absent" : "read")" }
    }

    /// Runs gift-settle over `store` with `parameters`, then lets `meanwhile` write as another
    /// writer would before the run commits; returns the run and the commit's conflict (nil: it
    /// committed).
    static func runWithWriteBeforeCommit(
        _ store: InMemoryStore, parameters: [String: String] = [:], meanwhile: (InMemoryStore) throws -> Void
    ) async throws -> (TestJobContext, TestCommitConflict?) {
        let run = try TestJobContext(GiftSettle.self, store: store, now: now, parameters: parameters, environment: .hostDefaults())
        try await run.run()
        try meanwhile(store)
        do {
            try await run.commit()
            return (run, nil)
        } catch let conflict as TestCommitConflict {
            return (run, conflict)
        }
    }

    @Test func aGiftFailedForInsufficientPointsRestsOnTheSendersBalanceAndSettlesOnceACreditCameFirst() async throws {
        var docs = GiftSettleTests.users
        docs["transactions/g1"] = GiftSettleTests.gift(#""dave""#, #""bob""#, amount: "50")   // dave has 10
        let store = try InMemoryStore(documents: docs)
        let (run, conflict) = try await Self.runWithWriteBeforeCommit(store) { store in
            try store.write("users/dave", #"{"name": "Dave Rossi", "username": "dave", "points": 60}"#)
        }
        #expect(run.context.changeset.entries.map { "\($0.path) \($0.after?["failureReason"]?.stringValue ?? "")" } == ["transactions/g1 insufficient_points"])
        #expect(Self.dependencies(run) == ["users/dave@read"])
        #expect(conflict?.paths.map(\.description) == ["users/dave"])
        #expect(store.object("transactions/g1")?["status"] == "pending", "a conflict writes nothing")

        // The run again, on the credited balance.
        let again = try TestJobContext(GiftSettle.self, store: store, now: Self.now, environment: .hostDefaults())
        try await again.run()
        try await again.commit()
        #expect(store.object("transactions/g1")?["status"] == "completed")
        #expect(store.object("users/dave")?["points"] == 10)
        #expect(store.object("users/bob")?["points"] == 50)
    }

    @Test func anUnknownSenderOrReceiverRestsOnTheUsersDocumentStillBeingAbsent() async throws {
        var docs = GiftSettleTests.users
        docs["transactions/g1"] = GiftSettleTests.gift(#""erin""#, #""bob""#, amount: "5")
        docs["transactions/g2"] = GiftSettleTests.gift(#""alice""#, #""frank""#, amount: "5", at: #""2026-11-18T10:01:00Z""#)
        let store = try InMemoryStore(documents: docs)
        let (run, conflict) = try await Self.runWithWriteBeforeCommit(store) { store in
            try store.write("users/erin", #"{"name": "Erin", "points": 100}"#)
        }
        #expect(Self.dependencies(run) == ["users/erin@absent", "users/frank@absent"])
        #expect(conflict?.paths.map(\.description) == ["users/erin"])
    }

    @Test func aSettledGiftRestsOnBothUsersAndAGiftThatFailsOnItsOwnFieldsOnNothingElse() async throws {
        var docs = GiftSettleTests.users
        docs["transactions/g1"] = GiftSettleTests.gift(#""alice""#, #""bob""#, amount: "10")
        docs["transactions/g2"] = GiftSettleTests.gift(#""alice""#, #""alice""#, amount: "10", at: #""2026-11-18T10:01:00Z""#)
        docs["transactions/g3"] = GiftSettleTests.gift(#""carol""#, #""dave""#, amount: "0", at: #""2026-11-18T10:02:00Z""#)
        let store = try InMemoryStore(documents: docs)
        let (run, conflict) = try await Self.runWithWriteBeforeCommit(store) { store in
            // Nothing any verdict rests on: the commit goes through.
            try store.write("users/carol", #"{"name": "Carol Patel", "points": 7}"#)
        }
        #expect(Self.dependencies(run) == ["users/alice@read", "users/bob@read"])
        #expect(conflict == nil)
        #expect(store.object("transactions/g1")?["status"] == "completed")
        #expect(store.object("transactions/g2")?["failureReason"] == "self_gift")
        #expect(store.object("transactions/g3")?["failureReason"] == "invalid_amount")
    }

    @Test func withRequireFriendshipAVerdictRestsOnThePairsFriendships() async throws {
        var docs = GiftSettleTests.users
        docs["friendships/Qk2x"] = #"{"userId1": "bob", "userId2": "alice", "status": "pending"}"#
        docs["friendships/Zz9a"] = #"{"userId1": "alice", "userId2": "dave", "status": "accepted"}"#
        docs["transactions/g1"] = GiftSettleTests.gift(#""alice""#, #""bob""#, amount: "10")
        let store = try InMemoryStore(documents: docs)
        let (run, conflict) = try await Self.runWithWriteBeforeCommit(store, parameters: ["requireFriendship": "true"]) { store in
            try store.write("friendships/Qk2x", #"{"userId1": "bob", "userId2": "alice", "status": "accepted"}"#)
        }
        #expect(run.context.changeset.entry(for: try DocumentPath(parsing: "transactions/g1"))?.after?["failureReason"] == "not_friends")
        #expect(Self.dependencies(run) == ["friendships/Qk2x@read"])
        #expect(conflict?.paths.map(\.description) == ["friendships/Qk2x"])

        let again = try TestJobContext(GiftSettle.self, store: store, now: Self.now, parameters: ["requireFriendship": "true"], environment: .hostDefaults())
        try await again.run()
        try await again.commit()
        #expect(store.object("transactions/g1")?["status"] == "completed")
        #expect(Self.dependencies(again) == ["friendships/Qk2x@read", "users/alice@read", "users/bob@read"])
    }
}
