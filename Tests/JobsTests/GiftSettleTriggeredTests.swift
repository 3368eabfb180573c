import Foundation
import HearthKit
import HearthTesting
import Jobs
import Testing

/// docs/jobs/gift-settle.md#triggered-runs: a run started by writes reads only the transactions
/// written, and settles them exactly as a run over everything would.
@Suite("gift-settle, triggered")
struct GiftSettleTriggeredTests {
    static let now = GiftSettleTests.now

    /// The suite's four users plus `count` others (`p00000`…, 100 points each), and friendships
    /// with ids an app's `addDocument` would give (not made from the users' ids): each other
    /// user with the next one, and alice with bob the other way round (`userId1` bob).
    static func documents(users count: Int) -> [String: String] {
        var docs = GiftSettleTests.users
        for i in 0..<count {
            let id = String(format: "p%05d", i)
            docs["users/\(id)"] = #"{"name": "Person \#(i)", "username": "p\#(i)", "points": 100}"#
            docs["friendships/Xf\(i * 7919 % 100_003)"] = #"{"userId1": "\#(id)", "userId2": "\#(String(format: "p%05d", i + 1))", "status": "accepted"}"#
        }
        docs["friendships/Qk2x"] = #"{"userId1": "bob", "userId2": "alice", "status": "accepted", "initiatedBy": "bob"}"#
        docs["friendships/Zz9a"] = #"{"userId1": "alice", "userId2": "carol", "status": "pending", "initiatedBy": "alice"}"#
        // Settled long ago: never read by a triggered run that was not told of them.
        for i in 0..<40 {
            docs["transactions/old\(i)"] = GiftSettleTests.gift(#""alice""#, #""bob""#, amount: "1").replacingOccurrences(of: "pending", with: "completed")
        }
        return docs
    }

    static func changes(_ paths: String...) throws -> ChangedDocuments {
        ChangedDocuments(try paths.map { try DocumentPath(parsing: $0) })
    }

    /// Every document of `store` in the collections the job touches, path → text.
    static func contents(_ store: InMemoryStore) -> [String: String] {
        var out: [String: String] = [:]
        for c in ["transactions", "users", "notifications", "friendships"] {
            for id in store.ids(c) { out["\(c)/\(id)"] = store.text("\(c)/\(id)") }
        }
        return out
    }

    /// Runs gift-settle over `documents` twice — a full run, and a run told that `changed` were
    /// written — commits each into its own store, and checks that both wrote the same documents,
    /// queued the same messages and warned the same. Returns the triggered run.
    static func expectSameAsFullRun(
        _ documents: [String: String], changed: ChangedDocuments, parameters: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestJobContext {
        let full = try TestJobContext(GiftSettle.self, documents: documents, now: now, parameters: parameters, environment: .hostDefaults())
        try await full.run()
        try await full.commit()
        let triggered = try TestJobContext(
            GiftSettle.self, documents: documents, now: now, parameters: parameters, environment: .hostDefaults(), changes: changed)
        try await triggered.run()
        try await triggered.commit()
        #expect(triggered.changeset.entries.map(\.path) == full.changeset.entries.map(\.path), sourceLocation: sourceLocation)
        #expect(contents(triggered.store) == contents(full.store), sourceLocation: sourceLocation)
        #expect(triggered.changeset.messages == full.changeset.messages, sourceLocation: sourceLocation)
        #expect(triggered.warnings == full.warnings, sourceLocation: sourceLocation)
        #expect(triggered.summaryLine != "No changes.", sourceLocation: sourceLocation)
        return triggered
    }

    @Test func aTriggeredRunSettlesTheWrittenGiftsAsAFullRunDoesReadingAFewDocumentsOf10000Users() async throws {
        var docs = Self.documents(users: 10_000)
        // A chain (bob gives on what alice sends him), a failure, and a written transaction
        // that is not a pending gift.
        docs["transactions/g1"] = GiftSettleTests.gift(#""alice""#, #""bob""#, amount: "60", at: #""2026-11-18T09:00:00Z""#)
        docs["transactions/g2"] = GiftSettleTests.gift(#""bob""#, #""p00042""#, amount: "50", at: #""2026-11-18T09:30:00Z""#)
        docs["transactions/g3"] = GiftSettleTests.gift(#""dave""#, #""nobody""#, amount: "5")
        let changed = try Self.changes("transactions/g1", "transactions/g2", "transactions/g3", "transactions/old7")
        let run = try await Self.expectSameAsFullRun(docs, changed: changed)
        #expect(run.store.object("transactions/g2")?["status"] == "completed")
        #expect(run.store.object("transactions/g3")?["failureReason"] == "unknown_receiver")
        // 3 gifts and 4 users (alice, bob, dave, p00042; nobody is absent); old7, read and
        // turned down, and the absent notifications count as none (as in every read by path).
        #expect(run.context.documentsRead == 7)

        let one = try TestJobContext(
            GiftSettle.self, documents: Self.documents(users: 10_000).merging(["transactions/g1": GiftSettleTests.gift(#""dave""#, #""alice""#, amount: "5")]) { $1 },
            now: Self.now, environment: .hostDefaults(), changes: try Self.changes("transactions/g1"))
        try await one.run()
        // The transaction and its two users; the notification it may create is absent.
        #expect(one.context.documentsRead == 3)
        #expect(one.summaryLine == "Applied: 1 to create, 3 to update, 0 to delete; 1 push, 1 webhook.")
    }

    @Test func withRequireFriendshipATriggeredRunReadsOnlyTheFriendshipsOfTheUsersItsGiftsName() async throws {
        var docs = Self.documents(users: 10_000)
        docs["transactions/g1"] = GiftSettleTests.gift(#""alice""#, #""bob""#, amount: "10")   // friends as bob_alice
        docs["transactions/g2"] = GiftSettleTests.gift(#""alice""#, #""carol""#, amount: "10")   // pending only: not_friends
        docs["transactions/g3"] = GiftSettleTests.gift(#""p00010""#, #""p00011""#, amount: "10")   // friends
        docs["transactions/g4"] = GiftSettleTests.gift(#""p00011""#, #""p00010""#, amount: "10")   // the other way round
        docs["transactions/g5"] = GiftSettleTests.gift(#""p00010""#, #""p00012""#, amount: "10")   // not friends
        let changed = try Self.changes("transactions/g1", "transactions/g2", "transactions/g3", "transactions/g4", "transactions/g5")
        let run = try await Self.expectSameAsFullRun(docs, changed: changed, parameters: ["requireFriendship": "true"])
        let outcomes = (1...5).map { run.store.object("transactions/g\($0)").map { [$0["status"]?.stringValue, $0["failureReason"]?.stringValue].compactMap { $0 }.joined(separator: " ") } }
        #expect(outcomes == ["completed", "failed not_friends", "completed", "completed", "failed not_friends"])
        // 5 transactions, 6 users, and the friendships whose userId1 is one of them: Qk2x (bob),
        // Zz9a (alice), p00010's, p00011's and p00012's.
        #expect(run.context.documentsRead == 5 + 6 + 5)
    }

    @Test func aPendingGiftNotInTheChangesIsLeftForARunThatReadsEverything() async throws {
        var docs = Self.documents(users: 10)
        docs["transactions/g1"] = GiftSettleTests.gift(#""alice""#, #""bob""#, amount: "10")
        docs["transactions/g2"] = GiftSettleTests.gift(#""alice""#, #""dave""#, amount: "10", at: #""2026-11-18T08:00:00Z""#)
        let run = try TestJobContext(GiftSettle.self, documents: docs, now: Self.now, environment: .hostDefaults(), changes: try Self.changes("transactions/g1"))
        try await run.run()
        try await run.commit()
        #expect(run.store.object("transactions/g1")?["status"] == "completed")
        #expect(run.store.text("transactions/g2") == docs["transactions/g2"])
        #expect(run.store.object("users/alice")?["points"] == 90)
        #expect(run.changeset.messages.map(\.id) == ["gift.completed-g1"])   // bob has no device token

        // The next scheduled run (no changes) settles it.
        let backstop = try TestJobContext(GiftSettle.self, store: run.store, now: Self.now, environment: .hostDefaults())
        try await backstop.run()
        try await backstop.commit()
        #expect(run.store.object("transactions/g2")?["status"] == "completed")
        #expect(run.store.object("users/alice")?["points"] == 80)
    }

    @Test func aTriggeredRunToldOfNoPendingGiftChangesNothingAndReadsOnlyWhatItWasTold() async throws {
        var docs = Self.documents(users: 10)
        docs["transactions/g1"] = GiftSettleTests.gift(#""alice""#, #""bob""#, amount: "10")
        let run = try TestJobContext(
            GiftSettle.self, documents: docs, now: Self.now, environment: .hostDefaults(),
            changes: try Self.changes("transactions/old1", "transactions/gone", "users/alice"))
        try await run.run()
        #expect(run.summaryLine == "No changes.")
        // old1 is read and turned down (a read by path counts only what it keeps), gone is absent.
        #expect(run.context.documentsRead == 0)
    }
}
