import Foundation
import HearthKit

extension DemoData {
    /// The demo's work for `gift-settle`, `report-triage`, `xp-leaderboard` and `friend-notify`
    /// (docs/cli.md#hearth-seed), from a generator of its own so that every document written
    /// before it stays byte-identical. At the anchor as T:
    ///
    /// - **Pending gifts** `transactions/gift-pending-NN`, among users no older pending gift of
    ///   the last eight days involves (A and F with 100 points or more): A → B 50 (settles); B → C B's balance + 25 (settles only
    ///   on the 50 B received earlier in the same run); D → E D's balance + 1
    ///   (`insufficient_points`); E → F created nine days ago (`expired`); F → a deleted account
    ///   (`unknown_receiver`); C → C (`self_gift`); A → F `"10"` (`invalid_amount`); F → A 15
    ///   (settles). Plus one random small gift per 20 users, between other users, an hour or
    ///   more earlier.
    /// - **Reports** `reports/report-NNNNN`: `trade-u00002` reported by three distinct users
    ///   (the hold), a message and a user reported, one report per rejection code, and one
    ///   random report per 25 users; two `messages` (of `conversations/conv-study-group`).
    /// - **XP history** `xpTransactions/xp-history-uNNNNN-K`: three per two users over the 40
    ///   days before the anchor, of every source.
    /// - **Fresh friendships** `friendships/fresh-uA_uB`: one per 25 users, requested in the
    ///   last two days, every other one accepted in the last hours; and one request the app's
    ///   older client already notified itself (a `friend_request` notification with a random id).
    func writePendingWork(
        _ w: inout TreeWriter, balances: [Int64], recentlyPending: Set<Int>, uid: (Int) -> String, ago: (Double) -> JSONValue
    ) throws {
        guard users >= 10 else { return }
        var rng = SplitMix64(demoSeed: seed ^ 0x6A09_E667_F3BC_C908)
        let minute = 60.0, hour = 3600.0, day = 86_400.0

        // Pending gifts.
        func gift(_ n: Int, _ from: String, _ to: String, _ amount: JSONValue, _ age: Double) throws {
            try w.put("transactions", "gift-pending-" + (n < 10 ? "0" : "") + String(n), JSONObject([
                ("type", "gift"), ("fromUserId", .string(from)), ("toUserId", .string(to)), ("amount", amount),
                ("message", .string(["Thanks for the notes!", "Coffee on me", "For the ride", "Great study session"][n % 4])),
                ("status", "pending"), ("createdAt", ago(age)),
            ]))
        }
        let free = (1...users).filter { !recentlyPending.contains($0) }
        let rich = free.filter { balances[$0] >= 100 }
        let rest = free.filter { !rich.prefix(2).contains($0) }
        if rich.count >= 2, rest.count >= 4 {
            let (a, f) = (rich[0], rich[1])
            let (b, c, d, e) = (rest[0], rest[1], rest[2], rest[3])
            let designed = Set([a, b, c, d, e, f])
            try gift(1, uid(a), uid(b), 50, 50 * minute)
            try gift(2, uid(b), uid(c), .int(balances[b] + 25), 40 * minute)
            try gift(3, uid(d), uid(e), .int(balances[d] + 1), 30 * minute)
            try gift(4, uid(e), uid(f), 20, 9 * day)
            try gift(5, uid(f), "deleted-\(uid(f))", 10, 20 * minute)
            try gift(6, uid(c), uid(c), 5, 15 * minute)
            try gift(7, uid(a), uid(f), "10", 12 * minute)
            try gift(8, uid(f), uid(a), 15, 10 * minute)
            let others = (1...users).filter { !designed.contains($0) }
            for n in 0..<(users / 20) where others.count >= 2 {
                let from = others[rng.int(0...(others.count - 1))]
                var to = others[rng.int(0...(others.count - 1))]
                if to == from { to = others[(others.firstIndex(of: from)! + 1) % others.count] }
                try gift(9 + n, uid(from), uid(to), .int(Int64(rng.pick([5, 10, 10, 20, 25]))), hour + Double(rng.int(0...(5 * 3600))))
            }
        }

        // Reports and the messages they name (in the chat's shape: `conversations/conv-study-group`
        // is written with the demo's conversations).
        try w.put("messages", "msg-00001", JSONObject([
            ("conversationId", "conv-study-group"), ("senderId", .string(uid(7))), ("senderName", .string(name(7))),
            ("content", "Cheap followers, DM me"), ("type", "text"), ("createdAt", ago(3 * hour)), ("readBy", .array([.string(uid(7))])),
        ]))
        try w.put("messages", "msg-00002", JSONObject([
            ("conversationId", "conv-study-group"), ("senderId", .string(uid(9))), ("senderName", .string(name(9))),
            ("content", "See you at the library"), ("type", "text"), ("createdAt", ago(2 * hour)), ("readBy", .array([.string(uid(9)), .string(uid(7))])),
        ]))
        var reportNumber = 0
        func report(_ reporter: String, _ type: String, _ content: String, _ reason: String, _ age: Double) throws {
            reportNumber += 1
            try w.put("reports", "report-" + String(repeating: "0", count: max(0, 5 - String(reportNumber).count)) + String(reportNumber), JSONObject([
                ("reporterId", .string(reporter)), ("contentId", .string(content)), ("contentType", .string(type)), ("reason", .string(reason)),
                ("details", .string(reason == "other" ? "Asked me to pay outside the app" : "")), ("createdAt", ago(age)),
            ]))
        }
        let held = "trade-\(uid(2))"
        try report(uid(3), "trade", held, "spam", 5 * hour)
        try report(uid(4), "trade", held, "inappropriate", 4 * hour)
        try report(uid(5), "trade", held, "spam", 3 * hour)
        try report(uid(3), "trade", held, "spam", 2 * hour)  // the same reporter again: counted, not distinct
        try report(uid(8), "message", "msg-00001", "spam", 90 * minute)
        try report(uid(6), "user", uid(7), "harassment", 80 * minute)
        try report(uid(2), "trade", held, "other", 70 * minute)  // own_content
        try report(uid(6), "trade", "trade-deleted", "spam", 60 * minute)  // content_not_found
        try report("deleted-\(uid(6))", "user", uid(7), "spam", 50 * minute)  // unknown_reporter
        try report(uid(6), "gig", "gig-00001", "spam", 40 * minute)  // invalid_report
        for _ in 0..<(users / 25) {
            let reporter = rng.int(1...users)
            let target = rng.int(1...users)
            let onTrade = rng.chance(0.5)
            try report(
                uid(reporter), onTrade ? "trade" : "user", onTrade ? "trade-\(uid(max(2, target - target % 2)))" : uid(target),
                rng.pick(["inappropriate", "spam", "harassment", "other"]), Double(rng.int(0...(48 * 60))) * minute)
        }

        // XP history.
        let sources = ["trade_completed", "challenge_completed", "collaboration_completed", "achievement_unlocked", "daily_login"]
        for i in stride(from: 2, through: users, by: 2) {
            for k in 0..<3 {
                let source = rng.pick(sources)
                let amount: Int64 = switch source {
                case "trade_completed": 500
                case "challenge_completed": 300
                case "collaboration_completed": 400
                case "achievement_unlocked": Int64(rng.pick([50, 100, 250]))
                default: 10
                }
                try w.put("xpTransactions", "xp-history-\(uid(i))-\(k)", JSONObject([
                    ("userId", .string(uid(i))), ("amount", .int(amount)), ("source", .string(source)), ("sourceId", .string("history-\(uid(i))-\(k)")),
                    ("description", .string(source.replacingOccurrences(of: "_", with: " ").capitalized)),
                    ("createdAt", ago(Double(rng.int(0...(40 * 24 * 60))) * minute)),
                ]))
            }
        }

        // Fresh friendships.
        for n in 0..<max(1, users / 25) {
            let x = rng.int(1...users)
            var y = rng.int(1...users)
            if y == x { y = x % users + 1 }
            let (a, b) = uid(x) < uid(y) ? (x, y) : (y, x)
            let accepted = n % 2 == 1
            try w.put("friendships", "fresh-\(uid(a))_\(uid(b))", JSONObject([
                ("userId1", .string(uid(a))), ("userId2", .string(uid(b))), ("status", .string(accepted ? "accepted" : "pending")),
                ("initiatedBy", .string(uid(x))), ("createdAt", ago(Double(rng.int(60...(48 * 60))) * minute)),
                ("acceptedAt", accepted ? ago(Double(rng.int(1...(6 * 60))) * minute) : .null),
                ("user1Name", .string(name(a))), ("user2Name", .string(name(b))), ("user1Username", .string(username(a))), ("user2Username", .string(username(b))),
            ]))
        }
        // A request the older client already notified (with a random id, as it does).
        try w.put("friendships", "fresh-\(uid(1))_\(uid(10))", JSONObject([
            ("userId1", .string(uid(1))), ("userId2", .string(uid(10))), ("status", "pending"), ("initiatedBy", .string(uid(10))),
            ("createdAt", ago(3 * hour)), ("acceptedAt", .null),
            ("user1Name", .string(name(1))), ("user2Name", .string(name(10))), ("user1Username", .string(username(1))), ("user2Username", .string(username(10))),
        ]))
        try w.put("notifications", "q7Hc2LxT9v", JSONObject([
            ("userId", .string(uid(1))), ("type", "friend_request"), ("title", "New friend request"), ("message", .string("\(name(10)) wants to be friends")),
            ("relatedUserId", .string(uid(10))), ("read", false), ("createdAt", ago(3 * hour)), ("actionUrl", "/friends/requests"),
        ]))
    }
}
