public import HearthKit

/// `achievement-unlock` (docs/jobs/achievement-unlock.md#when-an-achievement-unlocks, skill-trading and campus apps): unlocks every
/// achievement whose metric a user has reached.
///
/// - Metrics by `category`: `trades` (completed trades the user created or joined),
///   `challenges` (the user's completed `userChallenges`), `collaborations` (completed ones
///   the user created or is a participant of), `streaks` (largest `longestStreak` /
///   `currentStreak` of the user's streaks), `xp` (`userXP.totalXP`), `level`
///   (`userXP.currentLevel`), `gifts` (`users.giftsGiven`), `points_gifted`
///   (`users.totalPointsGifted`). Another category: the achievement is skipped, with one
///   warning per run.
/// - Already unlocked = some `userAchievements` document (any id) with that `userId`,
///   `achievementId` and `isUnlocked == true`; it is never unlocked again.
/// - An unlock writes `userAchievements/{userId}_{achievementId}`, adds the id to the user's
///   `achievements`, awards `xpReward` XP through ``XPLedger`` (none when 0), creates
///   `notifications/achievement-{achievementId}-{userId}` with its push
///   (`push-{notificationId}`) and queues an `achievement.unlocked` event.
/// - Per user, achievements are checked in passes (in id order, every unlock of a pass
///   applied at once) until a pass unlocks nothing, so XP from one unlock can meet an `xp` or
///   `level` requirement in the same run.
public struct AchievementUnlock: Job {
    public static let descriptor = JobDescriptor(
        name: "achievement-unlock",
        summary: "Unlock achievements users have reached: userAchievements, XP, the achievements array, a notification.",
        defaultSchedule: "*/10 * * * *",
        reads: ["achievements", "users", "userXP", "userAchievements", "trades", "userChallenges", "collaborations", "streaks"],
        writes: ["userAchievements", "userXP", "xpTransactions", "users", "notifications"],
        triggers: ["userXP", "trades", "userChallenges"]
    )

    static let notificationType = "achievement_unlocked"
    static let categories = ["trades", "challenges", "collaborations", "streaks", "xp", "level", "gifts", "points_gifted"]

    /// Which device tokens pushes carry (see ``PushMessages``).
    let pushProvider: PushProviderKind

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        pushProvider = environment.pushProvider
        guard environment.notificationTypes.contains(Self.notificationType) else {
            let listed = environment.notificationTypes.map { JSONWriter.quoted($0) }.joined(separator: ", ")
            throw JobSetupError(
                "achievement-unlock writes notifications of type \"\(Self.notificationType)\", but [notifications].types "
                    + "(\(listed.isEmpty ? "empty" : listed)) does not list it. The apps cannot decode a notification type they do not know, "
                    + "and one unknown type breaks their whole notification list. Once the apps handle it, add \"\(Self.notificationType)\" "
                    + "to types under [notifications] in the config; otherwise set enabled = false under [jobs.achievement-unlock].")
        }
    }

    struct Achievement: Sendable {
        var id: String
        var name: String
        var icon: String
        var xpReward: Int64
        var category: String
        /// nil: missing (the achievement is skipped with a warning).
        var requirement: Int64?
    }

    struct User: Sendable {
        /// Path and version only: the content is read again for the users an unlock updates.
        var document: Document
        var giftsGiven: Int64
        var totalPointsGifted: Int64
        var achievements: [String]?
        var tokens: [String]
    }

    /// The counts that do not change during a run, per user.
    struct Activity: Sendable {
        var trades: [String: Int64] = [:]
        var challenges: [String: Int64] = [:]
        var collaborations: [String: Int64] = [:]
        var streaks: [String: Int64] = [:]
    }

    struct UnlockKey: Hashable, Sendable {
        var userID: String
        var achievementID: String
    }

    public func run(_ context: JobContext) async throws {
        var achievements = try await context.decode("achievements") { d throws(FieldError) -> Achievement? in
            Achievement(
                id: d.id, name: try d.string("name") ?? "", icon: try d.string("icon") ?? "", xpReward: try d.int("xpReward") ?? 0,
                category: try d.string("category") ?? "", requirement: try d.int("requirement"))
        }
        achievements = achievements.filter { a in
            guard a.requirement != nil else {
                context.warn("achievements/\(a.id).json: no requirement; achievement skipped")
                return false
            }
            guard Self.categories.contains(a.category) else {
                context.warn("achievements/\(a.id).json: unknown category \(JSONWriter.quoted(a.category)) (known: \(Self.categories.joined(separator: ", "))); achievement skipped")
                return false
            }
            return true
        }
        guard !achievements.isEmpty else { return }
        achievements.sort { $0.id < $1.id }

        let provider = pushProvider
        let users = try await context.decode("users") { d throws(FieldError) in
            User(document: d.pathAndVersion, giftsGiven: try d.int("giftsGiven") ?? 0, totalPointsGifted: try d.int("totalPointsGifted") ?? 0,
                 achievements: try d.stringArray("achievements"), tokens: DeviceTokens(of: d, provider: provider).tokens)
        }
        guard !users.isEmpty else { return }

        // Unlocked already (whatever the document id), and the app's locked progress
        // documents that sit at the id this job writes (completed in place).
        var unlocked = Set<UnlockKey>()
        var lockedAtOurID: [String: Document] = [:]
        for (key, doc) in try await context.decode("userAchievements", { d throws(FieldError) -> (UnlockKey?, Document?)? in
            let u = try d.string("userId")
            let a = try d.string("achievementId")
            if try d.bool("isUnlocked") == true {
                guard let u, let a else { return nil }
                return (UnlockKey(userID: u, achievementID: a), nil)
            }
            return u != nil && a != nil && d.id == "\(u!)_\(a!)" ? (nil, d) : nil
        }) {
            if let key { unlocked.insert(key) }
            if let doc { lockedAtOurID[doc.id] = doc }
        }
        // Notifications and XP transactions already at this job's ids (a user achievement
        // deleted by hand and unlocked again): never written twice.
        let existing = Existing(
            notifications: Set(try context.store.documentIDs(in: "notifications").filter { $0.hasPrefix("achievement-") }),
            xpTransactions: Set(try context.store.documentIDs(in: "xpTransactions").filter { $0.hasPrefix("achievement-") }),
            userAchievements: lockedAtOurID)

        let needed = Set(achievements.map(\.category))
        let activity = try await loadActivity(needed, context: context)
        var ledger = try await XPLedger(context: context)
        let now = Timestamp.json(context.startTime)

        var updates: [(user: Document, achievements: [String])] = []
        for user in users {
            let uid = user.document.id
            // A user whose XP account cannot be written gets nothing this run (it is invalid input).
            guard ledger.canAward(uid, context: context) else { continue }
            var added: [String] = []
            while true {
                // One pass: everything reached at the pass's start, then applied in id order.
                var pass: [Achievement] = []
                for a in achievements where !unlocked.contains(UnlockKey(userID: uid, achievementID: a.id)) {
                    let metric: Int64 = switch a.category {
                    case "trades": activity.trades[uid] ?? 0
                    case "challenges": activity.challenges[uid] ?? 0
                    case "collaborations": activity.collaborations[uid] ?? 0
                    case "streaks": activity.streaks[uid] ?? 0
                    case "xp": ledger.totalXP(uid)
                    case "level": ledger.level(uid)
                    case "gifts": user.giftsGiven
                    default: user.totalPointsGifted
                    }
                    if metric >= a.requirement ?? .max { pass.append(a) }
                }
                var any = false
                for a in pass {
                    let key = UnlockKey(userID: uid, achievementID: a.id)
                    unlocked.insert(key)
                    guard try unlock(a, for: uid, tokens: user.tokens, ledger: &ledger, existing: existing, now: now, context: context) else { continue }
                    added.append(a.id)
                    any = true
                }
                if !any { break }
            }
            if !added.isEmpty {
                var list = user.achievements ?? []
                for id in added where !list.contains(id) { list.append(id) }
                updates.append((user.document, list))
            }
        }
        // Nothing else this job writes is a user document, so updating them last writes the same.
        try await context.reread(updates.map(\.user)) { i, document in
            guard let document else {
                // Valid when first read, unreadable now: another writer is at it.
                context.warn("\(updates[i].user.path.relativeFile): its achievements list was not updated; it changed while the job ran and is no longer readable")
                return
            }
            let list = updates[i].achievements
            context.update(document) { o in
                o["achievements"] = .array(list.map { .string($0) })
            }
        }
    }

    /// What is already there at the ids an unlock writes.
    struct Existing: Sendable {
        var notifications: Set<String>
        var xpTransactions: Set<String>
        var userAchievements: [String: Document]
    }

    /// Writes one unlock; false when it cannot be written (its `userAchievements` document is
    /// invalid input), so nothing of it is written.
    private func unlock(_ a: Achievement, for uid: String, tokens: [String], ledger: inout XPLedger, existing: Existing, now: JSONValue, context: JobContext) throws -> Bool {
        let uaPath = try DocumentPath("userAchievements", "\(uid)_\(a.id)")
        let notificationID = "achievement-\(a.id)-\(uid)"
        let notificationPath = try DocumentPath("notifications", notificationID)
        let txID = "achievement-\(a.id)-\(uid)"
        if context.isInvalid(uaPath) {
            context.warn("\(a.id) for \(uid): not unlocked because \(uaPath.relativeFile) is invalid")
            return false
        }
        let ua = existing.userAchievements[uaPath.id]

        let fields: [(String, JSONValue)] = [
            ("userId", .string(uid)), ("achievementId", .string(a.id)), ("achievementName", .string(a.name)),
            ("achievementIcon", .string(a.icon)), ("progress", .int(a.requirement ?? 0)), ("isUnlocked", true), ("unlockedAt", now), ("createdAt", now),
        ]
        if let ua {
            // The app's own progress document under our id: complete it, keeping its createdAt.
            context.update(ua) { o in
                for (k, v) in fields where !(k == "createdAt" && o.index(of: k) != nil) { o[k] = v }
            }
        } else {
            context.create(uaPath, JSONObject(fields))
        }

        // An XP transaction already at the id: that XP was awarded before; not again.
        if a.xpReward > 0, !existing.xpTransactions.contains(txID) {
            try ledger.award(a.xpReward, to: uid, source: "achievement_unlocked", sourceID: a.id, description: "Unlocked: \(a.name)",
                             transactionID: txID, context: context)
        }

        let title = "Achievement unlocked!"
        let message = "You unlocked \(a.name)"
        let actionURL = "/achievements/\(a.id)"
        if !existing.notifications.contains(notificationID) {
            context.create(notificationPath, JSONObject([
                ("userId", .string(uid)), ("type", .string(Self.notificationType)), ("title", .string(title)), ("message", .string(message)),
                ("read", false), ("createdAt", now), ("actionUrl", .string(actionURL)),
            ]))
            PushMessages.queue(
                notificationID: notificationID, userID: uid, tokens: tokens, title: title, body: message, type: Self.notificationType,
                actionURL: actionURL, createdAt: context.startTime, context: context)
        }
        context.queue(.event("achievement.unlocked", id: "achievement.unlocked-\(a.id)-\(uid)", data: JSONObject([
            ("userId", .string(uid)), ("achievementId", .string(a.id)), ("achievementName", .string(a.name)),
            ("category", .string(a.category)), ("xpReward", .int(max(0, a.xpReward))), ("unlockedAt", now),
        ])))
        return true
    }

    /// Counts per user for the categories that need other collections (only those read).
    private func loadActivity(_ categories: Set<String>, context: JobContext) async throws -> Activity {
        var act = Activity()
        if categories.contains("trades") {
            for users in try await context.decode("trades", { d throws(FieldError) -> [String]? in
                guard try d.string("status") == "completed" else { return nil }
                var users: [String] = []
                if let c = try d.string("creatorId") { users.append(c) }
                if let p = try d.string("participantId"), !users.contains(p) { users.append(p) }
                return users
            }) {
                for u in users { act.trades[u, default: 0] += 1 }
            }
        }
        if categories.contains("challenges") {
            for u in try await context.decode("userChallenges", { d throws(FieldError) -> String? in
                guard try d.string("status") == "completed" else { return nil }
                return try d.string("userId")
            }) { act.challenges[u, default: 0] += 1 }
        }
        if categories.contains("collaborations") {
            for users in try await context.decode("collaborations", { d throws(FieldError) -> [String]? in
                guard try d.string("status") == "completed" else { return nil }
                var users: [String] = []
                if let c = try d.string("creatorId") { users.append(c) }
                for p in try d.stringArray("participantIds") ?? [] where !users.contains(p) { users.append(p) }
                return users
            }) {
                for u in users { act.collaborations[u, default: 0] += 1 }
            }
        }
        if categories.contains("streaks") {
            for (u, best) in try await context.decode("streaks", { d throws(FieldError) -> (String, Int64)? in
                guard let u = try d.string("userId") else { return nil }
                return (u, max(try d.int("longestStreak") ?? 0, try d.int("currentStreak") ?? 0))
            }) { act.streaks[u] = max(act.streaks[u] ?? 0, best) }
        }
        return act
    }
}
