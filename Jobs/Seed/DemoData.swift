public import Foundation
public import HearthKit

/// `hearth seed`: a deterministic demo data directory in the apps' own field names —
/// campus users, friendships, transactions, notifications, leaderboard inputs; the trading
/// app's trades, challenges, collaborations, streaks, achievements and XP; the gig board's
/// gigs (covering every rubric component and penalty); broadcasts; the trading app's chat
/// (conversations and messages in the iOS and web apps' shapes).
///
/// Everything is derived from `seed` and `anchor` (not the clock), so two runs with the same
/// options write byte-identical trees.
public struct DemoData: Sendable {
    public var users: Int
    public var seed: UInt64
    /// The instant the data is "current" at; timestamps fall in the weeks before it.
    public var anchor: Date

    public init(users: Int, seed: UInt64, anchor: Date = Timestamp.parseISO8601("2026-11-18T12:00:00Z")!) {
        self.users = users
        self.seed = seed
        self.anchor = anchor
    }

    static let firstNames = ["Madison", "Jake", "Priya", "Diego", "Aisha", "Liam", "Mei", "Noah", "Sofia", "Omar", "Hana", "Ethan", "Zara", "Lucas", "Amara", "Kenji", "Chloe", "Mateo", "Ines", "Ravi"]
    static let lastNames = ["Chen", "Miller", "Patel", "Garcia", "Okafor", "Smith", "Wang", "Johnson", "Rossi", "Haddad", "Sato", "Brown", "Khan", "Silva", "Mensah", "Tanaka", "Dubois", "Lopez", "Costa", "Iyer"]
    static let schools = ["University of Wisconsin-Madison", "Ohio State University", "University of Michigan", "Purdue University", "University of Minnesota"]
    static let zones = ["America/Chicago", "America/New_York", "America/Los_Angeles", "Europe/Berlin", "Asia/Tokyo", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Australia/Lord_Howe"]
    static let categories = ["trades", "challenges", "collaborations", "streaks", "xp", "level", "gifts", "points_gifted"]
    static let notificationTypes = ["gift_received", "friend_request", "friend_accepted", "achievement_unlocked"]

    /// Generates every document, in a fixed order, into `sink(collection, id, document)` (the
    /// CLI's `seed` writes them into a data directory). Returns the number of distinct documents.
    @discardableResult
    public func write(progress: ((Int) -> Void)? = nil, into sink: @escaping (String, String, JSONObject) throws -> Void) throws -> Int {
        var rng = SplitMix64(demoSeed: seed)
        var w = TreeWriter(sink: sink, progress: progress)
        let width = max(5, String(users).count)
        func uid(_ i: Int) -> String { "u" + String(repeating: "0", count: width - String(i).count) + String(i) }
        let anchorS = anchor.timeIntervalSince1970
        func ago(_ seconds: Double) -> JSONValue { Timestamp.json(Date(timeIntervalSince1970: (anchorS - seconds).rounded(.down))) }
        let day = 86_400.0

        // Transactions first, so the users' gift totals agree with them.
        var gifted = [Int64](repeating: 0, count: users + 1)
        var given = [Int64](repeating: 0, count: users + 1)
        var received = [Int64](repeating: 0, count: users + 1)
        var earned = [Int64](repeating: 0, count: users + 1)
        // Users in a pending gift of the last eight days: kept out of the designed gift chain of
        // ``writePendingWork`` (their balances move first). Draws nothing from `rng`.
        var recentlyPending = Set<Int>()
        for i in 1...max(users, 1) where users > 0 {
            for k in 0..<10 {
                let id = "t\(uid(i).dropFirst())-\(k)"
                let to = rng.int(1...users)
                let amount = Int64(rng.pick([5, 10, 10, 20, 25, 50, 100]))
                let age = Double(rng.int(0...(60 * 24 * 60))) * 60
                var o = JSONObject()
                switch k {
                case 0..<7:
                    let status = rng.chance(0.9) ? "completed" : rng.pick(["pending", "failed"])
                    // A few gifts come from accounts that were deleted (orphans).
                    let orphan = i % 97 == 0 && k == 0
                    let from = orphan ? "deleted-\(uid(i))" : uid(i)
                    o = JSONObject([
                        ("type", "gift"), ("fromUserId", .string(from)), ("toUserId", .string(uid(to))), ("amount", .int(amount)),
                        ("message", rng.chance(0.5) ? .string(rng.pick(["Thanks for the notes!", "Great study session", "Coffee on me", "For the ride"])) : .null),
                        ("status", .string(status)), ("createdAt", ago(age)), ("completedAt", status == "completed" ? ago(age - 1) : .null),
                        ("fromUserName", .string(name(i))), ("toUserName", .string(name(to))), ("fromUsername", .string(username(i))), ("toUsername", .string(username(to))),
                    ])
                    if status == "pending" && age < 8 * day {
                        recentlyPending.insert(i)
                        recentlyPending.insert(to)
                    }
                    if status == "completed" && !orphan {
                        gifted[i] += amount
                        given[i] += 1
                        received[to] += 1
                    }
                case 7, 8:
                    o = JSONObject([
                        ("type", "earned"), ("fromUserId", .null), ("toUserId", .string(uid(i))), ("amount", .int(amount)), ("message", "Study group attendance"),
                        ("status", "completed"), ("createdAt", ago(age)), ("completedAt", ago(age)),
                        ("fromUserName", .null), ("toUserName", .string(name(i))), ("fromUsername", .null), ("toUsername", .string(username(i))),
                    ])
                    earned[i] += amount
                default:
                    o = JSONObject([
                        ("type", "bonus"), ("fromUserId", .null), ("toUserId", .string(uid(i))), ("amount", 50), ("message", "Welcome bonus"),
                        ("status", "completed"), ("createdAt", ago(age)), ("completedAt", ago(age)),
                        ("fromUserName", .null), ("toUserName", .string(name(i))), ("fromUsername", .null), ("toUsername", .string(username(i))),
                    ])
                    earned[i] += 50
                }
                try w.put("transactions", id, o)
            }
        }

        for i in 1...max(users, 1) where users > 0 {
            let created = ago(Double(rng.int(30...400)) * day)
            var o = JSONObject([
                ("name", .string(name(i))), ("username", .string(username(i))), ("email", .string("\(username(i))@example.edu")),
                ("studentId", .string(String(9_081_000_000 + i))), ("school", .string(Self.schools[i % Self.schools.count])),
            ])
            if i % 20 != 0 {
                // Every 20th user was written by an older app version: only the profile
                // fields, the rest take the decoder's defaults.
                let pts = 500 + earned[i] - gifted[i]
                o["points"] = .int(max(0, pts))
                o["totalPointsEarned"] = .int(500 + earned[i])
                o["totalPointsGifted"] = .int(gifted[i])
                o["giftsGiven"] = .int(given[i])
                o["giftsReceived"] = .int(received[i])
                o["rank"] = 999
                o["generosityLevel"] = "Newbie"
                o["generosityScore"] = 0
                o["createdAt"] = created
                o["emailVerified"] = .bool(rng.chance(0.8))
                o["profileImageUrl"] = rng.chance(0.3) ? .string("https://cdn.example.edu/avatars/\(uid(i)).jpg") : .null
                o["lastActive"] = ago(Double(rng.int(0...(14 * 24))) * 3600)
                o["achievements"] = []
                o["isPrivate"] = .bool(rng.chance(0.05))
                o["timeZone"] = .string(Self.zones[i % Self.zones.count])
                if rng.chance(0.6) { o["fcmTokens"] = .array([.string(token(&rng))]) }
                if rng.chance(0.1) { o["fcmToken"] = .string(token(&rng)) }
            }
            try w.put("users", uid(i), o)

            // One streak per user.
            let lastActivity = ago(Double(rng.int(0...(5 * 24))) * 3600 + Double(rng.int(0...3599)))
            let current = Int64(rng.int(0...60))
            try w.put("streaks", "\(uid(i))_daily_login", JSONObject([
                ("userId", .string(uid(i))), ("type", "daily_login"), ("currentStreak", .int(current)), ("longestStreak", .int(current + Int64(rng.int(0...30)))),
                ("isActive", .bool(current > 0)), ("freezeCount", .int(Int64(rng.int(0...3)))), ("lastActivityDate", lastActivity), ("createdAt", created),
            ]))

            // Five notifications per user.
            for k in 0..<5 {
                let type = Self.notificationTypes[(i + k) % 3]
                let from = rng.int(1...users)
                try w.put("notifications", "n\(uid(i).dropFirst())-\(k)", JSONObject([
                    ("userId", .string(uid(i))), ("type", .string(type)),
                    ("title", .string(type == "gift_received" ? "\(firstName(from)) sent you points!" : type == "friend_request" ? "New friend request" : "Friend request accepted")),
                    ("message", .string(type == "gift_received" ? "\(name(from)) sent you \(rng.pick([5, 10, 25])) points" : "\(name(from)) wants to connect")),
                    ("relatedUserId", .string(uid(from))), ("read", .bool(rng.chance(0.6))), ("createdAt", ago(Double(rng.int(0...(72 * 60))) * 60)),
                    ("actionUrl", .string(type == "gift_received" ? "/transactions" : "/friends")),
                ]))
            }

            // Two friendships per user.
            for _ in 0..<2 {
                let other = rng.int(1...users)
                if other == i { continue }
                let (a, b) = uid(i) < uid(other) ? (i, other) : (other, i)
                let accepted = rng.chance(0.7)
                try w.put("friendships", "\(uid(a))_\(uid(b))", JSONObject([
                    ("userId1", .string(uid(a))), ("userId2", .string(uid(b))), ("status", .string(accepted ? "accepted" : "pending")),
                    ("initiatedBy", .string(uid(i))), ("createdAt", ago(Double(rng.int(1...90)) * day)), ("acceptedAt", accepted ? ago(Double(rng.int(0...24)) * 3600) : .null),
                    ("user1Name", .string(name(a))), ("user2Name", .string(name(b))), ("user1Username", .string(username(a))), ("user2Username", .string(username(b))),
                ]))
            }

            if i % 2 == 0 {
                let xp = Int64(rng.int(0...30000))
                let tier = XPLevels.tier(for: xp)
                try w.put("userXP", uid(i), JSONObject([
                    ("userId", .string(uid(i))), ("totalXP", .int(xp)), ("currentLevel", .int(Int64(tier.level))), ("xpToNextLevel", .int(XPLevels.xpToNextLevel(xp))),
                    ("lastUpdated", ago(Double(rng.int(1...30)) * day)), ("createdAt", created),
                ]))
                // A trade and a challenge per two users.
                let partner = rng.int(1...users)
                let status = rng.pick(["completed", "completed", "open", "in-progress", "cancelled"])
                try w.put("trades", "trade-\(uid(i))", JSONObject([
                    ("title", .string(rng.pick(["Guitar lessons for Spanish practice", "Logo design for a home-cooked meal", "Python tutoring for photography tips"]))),
                    ("description", "Weekly sessions, flexible schedule."), ("skillsOffered", []), ("skillsWanted", []),
                    ("creatorId", .string(uid(i))), ("creatorName", .string(name(i))), ("participantId", partner == i ? .null : .string(uid(partner))),
                    ("status", .string(status)), ("visibility", "public"), ("createdAt", ago(Double(rng.int(5...60)) * day)),
                    ("updatedAt", ago(Double(rng.int(0...4)) * day)), ("completedAt", status == "completed" ? ago(Double(rng.int(0...4)) * day + Double(rng.int(0...86399))) : .null),
                ]))
                let cstatus = rng.pick(["completed", "in_progress", "completed"])
                try w.put("userChallenges", "uc-\(uid(i))", JSONObject([
                    ("userId", .string(uid(i))), ("challengeId", .string("challenge-\(rng.int(1...20))")), ("status", .string(cstatus)), ("progress", .int(Int64(rng.int(0...100)))),
                    ("completedAt", cstatus == "completed" ? ago(Double(rng.int(0...10)) * day + Double(rng.int(0...86399))) : .null), ("createdAt", created),
                ]))
            }
            if i % 10 == 0 {
                let participants = (0..<rng.int(1...3)).map { _ in JSONValue.string(uid(rng.int(1...users))) }
                let status = rng.pick(["completed", "active", "recruiting"])
                try w.put("collaborations", "collab-\(uid(i))", JSONObject([
                    ("title", "Campus app hackathon team"), ("description", "Build something fun in a weekend."), ("creatorId", .string(uid(i))),
                    ("status", .string(status)), ("participantIds", .array(participants)), ("maxParticipants", 4),
                    ("completedAt", status == "completed" ? ago(Double(rng.int(0...10)) * day) : .null), ("createdAt", created),
                ]))
                try writeGig(&w, &rng, index: i / 10, ago: ago)
            }
        }

        // 100 achievements across the categories, 12 or 13 tiers each (requirement = the
        // category's base × tier). The bases are set so that about one user in ten has
        // reached an achievement not unlocked yet, as on an ordinary day of an app whose
        // achievement-unlock runs every ten minutes — not a backlog of every achievement ever
        // reached at once: each user reaches the first streak tier (80 days) with a chance of
        // ~5%, the first xp tier (28,000 XP) ~3%, the first trades and collaborations tiers
        // rarely, the others (challenges 2, level 7, gifts 8, points gifted 600) about never.
        for a in 1...100 {
            let category = Self.categories[(a - 1) % Self.categories.count]
            let tier = Int64(1 + (a - 1) / Self.categories.count)
            let requirement: Int64 = switch category {
            case "xp": 28_000 * tier
            case "level": 6 + tier
            case "points_gifted": 600 * tier
            case "streaks": 80 * tier
            case "trades": 3 * tier
            case "gifts": 7 + tier
            default: 2 * tier
            }
            try w.put("achievements", "ach-" + (a < 10 ? "00" : a < 100 ? "0" : "") + String(a), JSONObject([
                ("name", .string("\(category.capitalized) \(["Bronze", "Silver", "Gold", "Platinum"][a % 4]) \(a)")), ("description", .string("Reach \(requirement) in \(category)")),
                ("icon", .string(["star.fill", "flame.fill", "gift.fill", "trophy.fill"][a % 4])), ("xpReward", .int(Int64([0, 50, 100, 250][a % 4]))),
                ("category", .string(category)), ("tier", .string(["bronze", "silver", "gold", "platinum"][a % 4])), ("requirement", .int(requirement)),
            ]))
        }

        try w.put("broadcasts", "welcome-week", JSONObject([
            ("title", "Welcome week"), ("message", "Gift a friend 10 points and both of you get a badge!"), ("type", "gift_received"),
            ("audience", .object(JSONObject([("all", true)]))), ("status", "scheduled"), ("sendAt", ago(3600)), ("actionUrl", "/gift"),
        ]))
        try w.put("broadcasts", "madison-meetup", JSONObject([
            ("title", "Meetup tonight"), ("message", "Union South, 7pm"), ("type", "friend_request"),
            ("audience", .object(JSONObject([("school", .string(Self.schools[0]))]))), ("status", "scheduled"), ("sendAt", ago(-86400)), ("actionUrl", "/events"),
        ]))
        // The work of gift-settle, report-triage, xp-leaderboard and friend-notify, from a
        // generator of its own: the documents above stay byte-identical.
        let balances = (0...users).map { i -> Int64 in i % 20 == 0 ? CampusUser.defaultPoints : max(0, 500 + earned[i] - gifted[i]) }
        try writePendingWork(&w, balances: balances, recentlyPending: recentlyPending, uid: uid, ago: ago)
        try writeFunctionWork(&w, uid: uid, ago: ago)
        try writeConversations(&w, uid: uid)
        return w.count
    }

    func name(_ i: Int) -> String { firstName(i) + " " + Self.lastNames[(i / Self.firstNames.count) % Self.lastNames.count] }
    func firstName(_ i: Int) -> String { Self.firstNames[i % Self.firstNames.count] }
    func username(_ i: Int) -> String { firstName(i).lowercased() + String(i) }

    private func token(_ rng: inout SeededRandom) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        return String((0..<152).map { _ in alphabet[rng.int(0...(alphabet.count - 1))] })
    }

    /// Gigs that between them hit every rubric component level and every penalty of
    /// docs/jobs/gig-quality-score.md#the-rubric, at the anchor as T: gig N is variant (N − 1) mod 12 of the table below, so any
    /// 12 consecutive gigs (`--users 120` or more) cover all of them. Each gig's company (or,
    /// without one, its title) carries its number, so the only duplicates are the designed
    /// ones (variant 2 repeats variant 1's title, company and `postedAt`: the tie goes to the
    /// smaller id). Expected verdicts at T = anchor:
    ///
    /// | variant | what it shows | score | reasons |
    /// |---|---|---|---|
    /// | 1 | everything right | 100 high | — |
    /// | 2 | duplicate of 1, same `postedAt` | 80 high | duplicate |
    /// | 3 | shouting title, 45 words, pay as text, remote, 10 days old, http link, `!!!` | 56 medium | weak_title, short_description, vague_pay, stale, insecure_apply_url, hype |
    /// | 4 | 5-character title, 23 words, no pay, no place, 40 days old, no apply link, email | 13 low | weak_title, short_description, no_pay, no_location, stale, no_apply_path, contact_details |
    /// | 5 | >120-character title, 8 words, pay without a digit, no company, no `postedAt`, dot-less host, phone number | 0 low | weak_title, short_description, no_pay, no_company, stale, no_apply_path, contact_details |
    /// | 6 | good but `expiresAt` 2 days before T | 0 low | expired |
    /// | 7 | `status: "closed"` | not scored | |
    /// | 8 | `status: "deleted"` | not scored | |
    /// | 9 | 29 days old, https link, `$$` | 85 high | stale, hype |
    /// | 10 | 4-character title, 39 words, posted exactly 7 days before T | 70 medium | weak_title, short_description |
    /// | 11 | no company, remote, 15 words, pay as text, exactly 30 days old, http link | 55 medium | short_description, vague_pay, no_company, stale, insecure_apply_url |
    /// | 12 | everything right, only `payMax`, `expiresAt` in 14 days | 100 high | — |
    private func writeGig(_ w: inout TreeWriter, _ rng: inout SeededRandom, index g: Int, ago: (Double) -> JSONValue) throws {
        // Gigs draw nothing from `rng`: their content depends only on their number, and the
        // rest of the demo data does not change when the gig table does.
        let day = 86_400.0
        let filler = "Join our friendly team and help students every day while learning useful skills in a flexible environment that fits your class schedule".split(separator: " ").map(String.init)
        /// `count` words in all: filler words, then `ending` (whose words count too).
        func text(_ count: Int, ending: String = "") -> String {
            let tail = ending.split(separator: " ").map(String.init)
            return ((0..<max(0, count - tail.count)).map { filler[$0 % filler.count] } + tail).joined(separator: " ")
        }
        let variant = (g - 1) % 12 + 1
        // Variant 2 copies variant 1 (the gig before it).
        let n = variant == 2 ? g - 1 : g
        var o = JSONObject()
        func set(_ title: String, _ description: String, company: String?, location: String = "Madison, WI", remote: Bool = false) {
            o["title"] = .string(title)
            o["description"] = .string(description)
            o["company"] = company.map { .string($0) } ?? .null
            o["location"] = .string(location)
            o["isRemote"] = .bool(remote)
        }
        switch variant {
        case 1, 2:
            set("Barista, morning shift", text(90), company: "Badger Brew #\(n)")
            o["payMin"] = .int(Int64(14 + n % 4)); o["payMax"] = .int(Int64(18 + n % 5))
            o["postedAt"] = ago(2 * day); o["source"] = "internal"
        case 3:
            set("URGENT HIRING NOW: BARISTA!!!", text(45), company: "State Street Coffee #\(g)", location: "", remote: true)
            o["compensation"] = "$15/hour"
            o["postedAt"] = ago(10 * day); o["source"] = "indeed"; o["externalUrl"] = .string("http://jobs.example.com/\(g)")
        case 4:
            set("Tutor", text(23, ending: "Questions? Email tutoring.jobs@example.com"), company: "Learning Lab #\(g)", location: "   ")
            o["postedAt"] = ago(40 * day); o["source"] = "handshake"
        case 5:
            set("Research assistant for the psychology department's longitudinal study of sleep, memory and study habits in first-year students, study \(g)",
                text(8, ending: "Call (608) 555-0199"), company: nil)
            o["compensation"] = "Competitive"
            o["source"] = "handshake"; o["externalUrl"] = .string("https://localhost/apply/\(g)")
        case 6:
            set("Front desk assistant at the rec center", text(85), company: "Rec Sports #\(g)")
            o["payMin"] = 13.5
            o["postedAt"] = ago(3 * day); o["expiresAt"] = ago(2 * day); o["source"] = "internal"
        case 7:
            set("Summer camp counselor", text(60), company: "Camp Lakeside #\(g)")
            o["postedAt"] = ago(20 * day); o["source"] = "internal"; o["status"] = "closed"
        case 8:
            set("Social media intern", text(50), company: "Fetch Media #\(g)")
            o["postedAt"] = ago(5 * day); o["source"] = "internal"; o["status"] = "deleted"
        case 9:
            set("Weekend event staff", text(80, ending: "Earn $$ on weekends"), company: "Kohl Center Events #\(g)")
            o["payMin"] = .int(Int64(16 + g % 3))
            o["postedAt"] = ago(29 * day); o["source"] = "handshake"; o["externalUrl"] = .string("https://careers.example.com/gigs/\(g)")
        case 10:
            set("Cook", text(39), company: "Union South Kitchen #\(g)")
            o["payMin"] = 15; o["payMax"] = 19
            o["postedAt"] = ago(7 * day); o["source"] = "internal"
        case 11:
            set("Delivery driver, route \(g)", text(15), company: nil, location: "", remote: true)
            o["compensation"] = "$18/hour + tips"
            o["postedAt"] = ago(30 * day); o["source"] = "indeed"; o["externalUrl"] = .string("http://deliveries.example.com/apply?route=\(g)")
        default:
            set("Lab technician (chemistry)", text(100), company: "Chemistry Department #\(g)")
            o["payMax"] = .int(Int64(20 + g % 6))
            o["postedAt"] = ago(1 * day); o["expiresAt"] = ago(-14 * day); o["source"] = "internal"
        }
        if o["status"] == nil { o["status"] = "active" }
        o["postedBy"] = .string("employer-\(g % 50)")
        try w.put("gigs", "gig-" + String(repeating: "0", count: max(0, 5 - String(g).count)) + String(g), o)
    }
}

/// Hands documents to the sink and counts the distinct ones.
struct TreeWriter {
    let sink: (String, String, JSONObject) throws -> Void
    var written: Set<String> = []
    var count = 0
    let progress: ((Int) -> Void)?

    init(sink: @escaping (String, String, JSONObject) throws -> Void, progress: ((Int) -> Void)?) {
        self.sink = sink
        self.progress = progress
    }

    mutating func put(_ collection: String, _ id: String, _ object: JSONObject) throws {
        try sink(collection, id, object)
        if written.insert(collection + "/" + id).inserted { count += 1 }
        if count % 10_000 == 0 { progress?(count) }
    }
}
