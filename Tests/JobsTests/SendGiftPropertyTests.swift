import Foundation
import HearthKit
import HearthTestSupport
import HearthTesting
import Jobs
import Testing

/// docs/jobs/send-gift.md#rules: a gift sent by `send-gift` and the same gift settled by
/// `gift-settle` (as a pending transaction at the same id, created at S) leave the same documents
/// — users, transaction, notification — and queue the same push and event; a gift one refuses,
/// the other fails with the same code. Both go through `GiftSettlement`; this checks that nothing
/// around it differs.
@Suite("send-gift and gift-settle agree")
struct SendGiftPropertyTests {
    static let cases = 300

    /// Random users (figures, names, tokens missing or not), a random gift between two of them
    /// (or an unknown user, or oneself), a random amount (within the balance or not, sometimes
    /// not a whole number), with or without requireFriendship and maxAmount.
    @Test func aGiftSentBySendGiftLeavesWhatGiftSettleLeavesForTheSameGift() async throws {
        // 2026 unless HEARTH_TEST_SEED says otherwise: the assertions hold for any seed.
        let seed = try TestSeed(fixed: 2026)
        var rng = seed.generator()
        func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
        func maybe(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }
        let environment = JobEnvironment(notificationTypes: ["gift_received"], pushProvider: .fcm)
        var settled = 0
        for n in 0..<Self.cases {
            var docs: [String: String] = [:]
            let users = (0..<3).map { "u\($0)" }
            for u in users {
                var fields: [String] = []
                if !maybe(4) { fields.append(#""name": "Name \#(u)""#) }
                if !maybe(4) { fields.append(#""username": "\#(u)x""#) }
                for f in ["points", "totalPointsEarned", "totalPointsGifted", "giftsGiven", "giftsReceived"] where !maybe(3) {
                    fields.append(#""\#(f)": \#(int(0...300))"#)
                }
                if maybe(2) { fields.append(#""fcmTokens": ["tok-\#(u)"]"#) }
                docs["users/\(u)"] = "{" + fields.joined(separator: ", ") + "}"
            }
            for (a, b) in [(0, 1), (1, 2), (2, 0)] where maybe(2) {
                docs["friendships/f\(a)\(b)"] = #"{"userId1": "u\#(a)", "userId2": "u\#(b)", "status": "\#(maybe(4) ? "pending" : "accepted")"}"#
            }
            let from = users[int(0...2)]
            let to = maybe(10) ? from : maybe(10) ? "ghost" : users.filter { $0 != from }[int(0...1)]
            let amount = maybe(10) ? ["0", "2.5", #""5""#][int(0...2)] : "\(maybe(4) ? int(1...400) : int(1...60))"
            let message = maybe(2) ? #", "message": "gift \#(n)""# : ""
            var parameters: [String: String] = [:]
            if maybe(4) { parameters["requireFriendship"] = "true" }
            if maybe(5) { parameters["maxAmount"] = "\(int(1...300))" }
            let context = "case \(n): \(from) → \(to), amount \(amount), \(parameters), users \(users.map { docs["users/\($0)"] ?? "" }) (\(seed))"

            // send-gift, as `from`.
            let called = try InMemoryStore(documents: docs)
            let (call, refusal) = try await SendGiftTests.send(
                #"{"toUserId": "\#(to)", "amount": \#(amount)\#(message), "requestId": "p\#(n)"}"#, as: from, store: called, parameters: parameters,
                environment: environment)
            try await call.commit()

            // gift-settle, the same gift pending at the same id.
            let id = "gift-\(from)-p\(n)"
            let pending = try InMemoryStore(documents: docs.merging([
                "transactions/\(id)": #"{"type": "gift", "status": "pending", "fromUserId": "\#(from)", "toUserId": "\#(to)", "amount": \#(amount)\#(message), "createdAt": "\#(SendGiftTests.S)"}"#,
            ]) { $1 })
            let settle = try TestJobContext(GiftSettle.self, store: pending, now: SendGiftTests.now, parameters: parameters, environment: environment)
            try await settle.run()
            try await settle.commit()

            if let refusal {
                #expect(pending.object("transactions/\(id)")?["failureReason"]?.stringValue == refusal.reason, "\(context)")
                for u in users { #expect(called.text("users/\(u)") == docs["users/\(u)"], "\(context)") }
                continue
            }
            settled += 1
            for path in users.map({ "users/\($0)" }) + ["transactions/\(id)", "notifications/gift-\(id)"] {
                #expect(called.text(path) == pending.text(path), "\(path), \(context)")
            }
            #expect(called.text("notifications/gift-\(id)") != nil, "\(context)")
            #expect(call.changeset.messages == settle.changeset.messages, "\(context)")
            #expect(call.changeset.ledgerRecords == settle.changeset.ledgerRecords, "\(context)")
            #expect(call.result?.objectValue?["points"] == pending.object("users/\(from)")?["points"] ?? 500, "\(context)")
        }
        // The draws give both outcomes plenty of cases.
        #expect(settled > Self.cases / 4 && settled < Self.cases * 3 / 4, "\(settled) of \(Self.cases) settled (\(seed))")
    }
}
