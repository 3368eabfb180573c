public import HearthKit

/// `xp-leaderboard` (docs/jobs/xp-leaderboard.md#rules, skill-trading app): one
/// `leaderboards/{category}-{timeframe}` document per board, the app's `LeaderboardData`.
///
/// - A user's XP on a board is the sum of `amount` over their `xpTransactions` whose `source`
///   fits the category (`global` any, `trades` `trade_completed`, `challenges`
///   `challenge_completed`, `collaborations` `collaboration_completed`) and, for `weekly` /
///   `monthly`, whose `createdAt` is in the ``CalendarWindow`` containing T in the job's zone.
///   `global` / `all-time` is `userXP.totalXP` instead. Transactions with a non-integer
///   `amount`, (for windows) without a parsable `createdAt`, or for an id without a `users`
///   document are skipped.
/// - Every user with XP > 0 is ranked (``Ranking``: descending, standard competition ranking,
///   ties by user id); `entries` lists the first `top` whose `public` is not `false`.
/// - Written through ``LeaderboardDocument``: only when something other than `lastUpdated`
///   changed, other fields of an existing document kept.
public struct XPLeaderboard: Job {
    static let timeframes = ["weekly", "monthly", "all-time"]
    static let categories = ["global", "trades", "challenges", "collaborations"]

    static let topParameter = Parameter.integer("top", default: 100, in: 1...10_000, help: "users listed in entries")
    static let timeframesParameter = Parameter.stringList("timeframes", default: timeframes, allowed: timeframes, help: "timeframes to build")
    static let categoriesParameter = Parameter.stringList("categories", default: categories, allowed: categories, help: "categories to build")

    public static let descriptor = JobDescriptor(
        name: "xp-leaderboard",
        summary: "Rebuild the XP leaderboards (global, trades, challenges, collaborations × weekly, monthly, all-time).",
        defaultSchedule: "*/15 * * * *",
        parameters: [topParameter, timeframesParameter, categoriesParameter],
        reads: ["users", "userXP", "xpTransactions"],
        writes: ["leaderboards"]
    )

    /// The `source` of each category's transactions (`global`: any).
    static let sources = ["trades": "trade_completed", "challenges": "challenge_completed", "collaborations": "collaboration_completed"]

    let top: Int
    let boards: [(category: String, timeframe: String)]

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        top = Int(parameters[Self.topParameter])
        let timeframes = parameters[Self.timeframesParameter]
        let categories = parameters[Self.categoriesParameter]
        var boards: [(String, String)] = []
        for c in Self.categories where categories.contains(c) {
            for t in Self.timeframes where timeframes.contains(t) { boards.append((c, t)) }
        }
        self.boards = boards
    }

    struct Profile: Sendable {
        var id: String
        var displayName: String
        var photoURL: JSONValue
        var isPublic: Bool

        init(_ d: Document) throws(FieldError) {
            id = d.id
            let name = try d.string("displayName") ?? ""
            displayName = name.isEmpty ? "User" : name
            let photo = try d.string("photoURL").flatMap { $0.isEmpty ? nil : $0 }
            let picture = try d.string("profilePicture").flatMap { $0.isEmpty ? nil : $0 }
            photoURL = (photo ?? picture).map { .string($0) } ?? .null
            isPublic = try d.bool("public") ?? true
        }
    }

    struct Progress: Sendable {
        var totalXP: Int64
        var level: Int64
    }

    /// One XP transaction, reduced (on all cores, while the collection is read) to the boards
    /// it counts on: bit `i` of `boards` is `self.boards[i]`.
    struct Award: Sendable {
        var userID: String
        var amount: Int64
        var boards: UInt16
    }

    public func run(_ context: JobContext) async throws {
        guard !boards.isEmpty else { return }
        var profiles: [String: Profile] = [:]
        for p in try await context.decode("users", { d throws(FieldError) in try Profile(d) }) { profiles[p.id] = p }
        var progress: [String: Progress] = [:]
        for (id, p) in try await context.decode("userXP", { d throws(FieldError) in
            (d.id, Progress(totalXP: try d.int("totalXP") ?? 0, level: try d.int("currentLevel") ?? 1))
        }) { progress[id] = p }

        let week = CalendarWindow(.week, containing: context.logicalTime, in: context.timeZone)
        let month = CalendarWindow(.month, containing: context.logicalTime, in: context.timeZone)
        // XP per user and board (indexed as `boards`), from the transactions (read leniently:
        // they are the app's history, never rewritten here); global / all-time comes from
        // userXP. slot[category][timeframe] (indexes into Self.categories / Self.timeframes) is
        // the board's position in `boards`, or -1 when it is not built from transactions.
        var slot = [[Int]](repeating: [-1, -1, -1], count: Self.categories.count)
        for (i, b) in boards.enumerated() where !(b.category == "global" && b.timeframe == "all-time") {
            slot[Self.categories.firstIndex(of: b.category)!][Self.timeframes.firstIndex(of: b.timeframe)!] = i
        }
        var xp: [String: [Int64]] = [:]
        if slot.contains(where: { $0.contains { $0 >= 0 } }) {
            // The category of each source (global, index 0, counts every source).
            let categoryOfSource = Dictionary(uniqueKeysWithValues: Self.sources.map { ($0.value, Self.categories.firstIndex(of: $0.key)!) })
            let (weekly, monthly, allTime) = (0, 1, 2)
            let awards = try await context.decode("xpTransactions") { [slot] d throws(FieldError) -> Award? in
                guard let u = d["userId"]?.stringValue, case .int(let amount)? = d["amount"] else { return nil }
                let at = d["createdAt"].flatMap(Timestamp.date(from:))
                let inWeek = at.map(week.contains) ?? false
                let inMonth = at.map(month.contains) ?? false
                var mask: UInt16 = 0
                func add(_ c: Int) {
                    for (t, yes) in [(weekly, inWeek), (monthly, inMonth), (allTime, true)] where yes && slot[c][t] >= 0 { mask |= 1 << slot[c][t] }
                }
                add(0)
                if let c = d["source"]?.stringValue.flatMap({ categoryOfSource[$0] }) { add(c) }
                return mask == 0 ? nil : Award(userID: u, amount: amount, boards: mask)
            }
            let none = [Int64](repeating: 0, count: boards.count)
            for a in awards where profiles[a.userID] != nil {
                var m = a.boards
                while m != 0 {
                    let i = m.trailingZeroBitCount
                    m &= m - 1
                    let (sum, overflow) = xp[a.userID, default: none][i].addingReportingOverflow(a.amount)
                    xp[a.userID, default: none][i] = overflow ? (a.amount > 0 ? .max : .min) : sum
                }
            }
        }

        for (i, (category, timeframe)) in boards.enumerated() {
            let board = "\(category)-\(timeframe)"
            let scores: [(userID: String, score: Int64)]
            if category == "global" && timeframe == "all-time" {
                scores = progress.compactMap { profiles[$0.key] != nil && $0.value.totalXP > 0 ? ($0.key, $0.value.totalXP) : nil }
            } else {
                scores = xp.compactMap { $0.value[i] > 0 ? ($0.key, $0.value[i]) : nil }
            }
            let ranking = Ranking(scores)
            let entries: [JSONValue] = ranking.listed(top, where: { profiles[$0.userID]!.isPublic }).map { e in
                let p = profiles[e.userID]!
                return .object(JSONObject([
                    ("userId", .string(e.userID)), ("displayName", .string(p.displayName)), ("photoURL", p.photoURL), ("xp", .int(e.score)),
                    ("level", .int(progress[e.userID]?.level ?? 1)), ("rank", .int(Int64(e.rank))),
                ]))
            }
            var fields: [(String, JSONValue)] = [
                ("category", .string(category)), ("timeframe", .string(timeframe)), ("entries", .array(entries)),
                ("totalCount", .int(Int64(ranking.entries.count))), ("lastUpdated", Timestamp.json(context.startTime)),
            ]
            if timeframe != "all-time" { fields.append(("periodStart", Timestamp.json(timeframe == "weekly" ? week.start : month.start))) }
            try LeaderboardDocument.write(try DocumentPath("leaderboards", board), fields: fields, context: context)
        }
    }
}
