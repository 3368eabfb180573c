import HearthKit

/// Writes a cached leaderboard document (`leaderboard_cache/{period}`,
/// `leaderboards/{category}-{timeframe}`) only when something other than its `lastUpdated`
/// changed, so `lastUpdated` is when the standings last changed (docs/jobs/leaderboard-rebuild.md#rules,
/// docs/jobs/xp-leaderboard.md#rules). Other fields of an existing document are kept; new
/// keys are appended in the order of `fields`.
enum LeaderboardDocument {
    /// `fields` must include `lastUpdated` (its value is the run's S).
    static func write(_ path: DocumentPath, fields: [(String, JSONValue)], context: JobContext) throws {
        if let existing = try context.document(path) {
            var o = existing.object
            var changed = false
            for (k, v) in fields where k != "lastUpdated" {
                if o[k].map({ !$0.sameContent(as: v) }) ?? true { changed = true }
                o[k] = v
            }
            if !changed { return }
            o["lastUpdated"] = Timestamp.json(context.startTime)
            context.update(existing, to: o)
        } else if !context.isInvalid(path) {
            context.create(path, JSONObject(fields))
        }
    }
}
