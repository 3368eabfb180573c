import Foundation
public import HearthKit

/// `leaderboard-rebuild` (docs/jobs/leaderboard-rebuild.md#rules, campus app): the weekly, monthly and all-time
/// leaderboards in `leaderboard_cache`, and every user's all-time `rank`,
/// `generosityLevel` and `generosityScore`.
public struct LeaderboardRebuild: Job {
    static let topParameter = Parameter.integer("top", default: 100, in: 1...10_000, help: "users listed in topUsers")
    static let periodsParameter = Parameter.stringList(
        "periods", default: ["weekly", "monthly", "alltime"], allowed: ["weekly", "monthly", "alltime"], help: "leaderboards to build")

    public static let descriptor = JobDescriptor(
        name: "leaderboard-rebuild",
        summary: "Rebuild leaderboard_cache (weekly, monthly, all-time) and users' rank and generosity level.",
        defaultSchedule: "*/15 * * * *",
        parameters: [topParameter, periodsParameter],
        reads: ["users", "transactions"],
        writes: ["leaderboard_cache", "users"]
    )

    /// Generosity levels by all-time points gifted (lower bound, name), highest first.
    static let generosityLevels: [(Int64, String)] = [(10_000, "Legend"), (2000, "Champion"), (500, "Giver"), (100, "Helper"), (0, "Newbie")]

    static func generosityLevel(pointsGifted: Int64) -> String {
        generosityLevels.first { pointsGifted >= $0.0 }?.1 ?? "Newbie"
    }

    static func generosityScore(giftsGiven: Int64) -> Int64 { min(100, 2 * max(0, giftsGiven)) }

    let top: Int
    let periods: [String]

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        top = Int(parameters[Self.topParameter])
        periods = parameters[Self.periodsParameter]
    }

    public func run(_ context: JobContext) async throws {
        // Each user is kept without its document's content (see `RankedUser`), once: the
        // lookups below hold positions in `users`, not copies.
        let users = try await context.decode("users") { d throws(FieldError) in try RankedUser(d) }
        let byID = Dictionary(uniqueKeysWithValues: users.indices.map { (users[$0].user.id, $0) })

        // All-time standings: every user, by the totals on the user document.
        let alltime = Ranking(users.map { ($0.user.id, GiftScore(totalPointsGifted: $0.user.totalPointsGifted, giftsGiven: $0.user.giftsGiven)) })
        // Written where the value changed, and where the field is missing or null even if the
        // value equals the decoder default: queries on the field must find every user.
        var stale: [(index: Int, rank: Int64, level: String, score: Int64)] = []
        for entry in alltime.entries {
            let i = byID[entry.userID]!
            let u = users[i].user
            let level = Self.generosityLevel(pointsGifted: u.totalPointsGifted)
            let score = Self.generosityScore(giftsGiven: u.giftsGiven)
            let lacks = users[i].lacks
            if u.rank != Int64(entry.rank) || lacks.contains(.rank) || u.generosityLevel != level || lacks.contains(.generosityLevel)
                || u.generosityScore != score || lacks.contains(.generosityScore)
            {
                stale.append((i, Int64(entry.rank), level, score))
            }
        }
        try await context.reread(stale.map { users[$0.index].user.document }) { i, document in
            guard let document else { return }
            let s = stale[i]
            let user = users[s.index].user
            context.update(document) { o in
                func lacks(_ field: String) -> Bool { o[field]?.isNull ?? true }
                if user.rank != s.rank || lacks("rank") { o["rank"] = .int(s.rank) }
                if user.generosityLevel != s.level || lacks("generosityLevel") { o["generosityLevel"] = .string(s.level) }
                if user.generosityScore != s.score || lacks("generosityScore") { o["generosityScore"] = .int(s.score) }
            }
        }
        stale = []
        let lookup = { (id: String) -> CampusUser in users[byID[id]!].user }
        if periods.contains("alltime") {
            try writeCache("alltime", ranking: alltime, periodStart: nil, context: context, user: lookup)
        }

        let windows = periods.filter { $0 != "alltime" }
        guard !windows.isEmpty else { return }
        let bounds = ["weekly", "monthly"].filter(windows.contains).map { period in
            (period, CalendarWindow(period == "weekly" ? .week : .month, containing: context.logicalTime, in: context.timeZone))
        }
        // Only the gifts inside a window are kept (every completed gift is still decoded, so a
        // malformed one is reported as before): a few percent of a million transactions.
        let gifts = try await context.decode("transactions") { d throws(FieldError) -> GiftTransaction? in
            guard let g = try GiftTransaction.decode(d), let at = g.createdAt, bounds.contains(where: { $0.1.contains(at) }) else { return nil }
            return g
        }
        let invalidUsers = Set(try context.store.documentIDs(in: "users")).subtracting(byID.keys)
        for (period, window) in bounds {
            var totals: [String: GiftScore] = [:]
            var orphans = 0
            var orphanIDs = Set<String>()
            for g in gifts {
                guard let at = g.createdAt, window.contains(at) else { continue }
                guard byID[g.fromUserID] != nil else {
                    if !invalidUsers.contains(g.fromUserID) {
                        orphans += 1
                        orphanIDs.insert(g.fromUserID)
                    }
                    continue
                }
                totals[g.fromUserID, default: GiftScore(totalPointsGifted: 0, giftsGiven: 0)].totalPointsGifted += g.amount
                totals[g.fromUserID, default: GiftScore(totalPointsGifted: 0, giftsGiven: 0)].giftsGiven += 1
            }
            if orphans > 0 {
                let shown = orphanIDs.sorted().prefix(5).joined(separator: ", ")
                context.warn("\(period): skipped \(orphans) completed gift(s) from \(orphanIDs.count) user id(s) with no users document (\(shown)\(orphanIDs.count > 5 ? ", …" : ""))")
            }
            let ranking = Ranking(totals.map { ($0.key, $0.value) })
            try writeCache(period, ranking: ranking, periodStart: window.start, context: context, user: lookup)
        }
    }

    private func writeCache(_ period: String, ranking: Ranking<GiftScore>, periodStart: Date?, context: JobContext, user: (String) -> CampusUser) throws {
        let topUsers: [JSONValue] = ranking.listed(top, where: { !user($0.userID).isPrivate }).map { e in
            let u = user(e.userID)
            return .object(JSONObject([
                ("userId", .string(u.id)), ("name", .string(u.name)), ("username", .string(u.username)), ("school", .string(u.school)),
                ("giftsGiven", .int(e.score.giftsGiven)), ("totalPointsGifted", .int(e.score.totalPointsGifted)), ("rank", .int(Int64(e.rank))),
            ]))
        }
        var fields: [(String, JSONValue)] = [("type", .string(period)), ("topUsers", .array(topUsers)), ("lastUpdated", Timestamp.json(context.startTime)), ("totalUsers", .int(Int64(ranking.entries.count)))]
        if let periodStart { fields.append(("periodStart", Timestamp.json(periodStart))) }
        try LeaderboardDocument.write(try DocumentPath("leaderboard_cache", period), fields: fields, context: context)
    }
}
