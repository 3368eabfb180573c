import HearthKit

extension LeaderboardRebuild {
    /// What the rebuild keeps of a user while it ranks them: the fields of ``CampusUser`` and
    /// which of the fields it writes are missing or null — not the document's content, which
    /// it reads again only for the users whose rank or generosity changed. A steady run (no
    /// user changes) so holds no user document at all; before, every document was held whole
    /// until the end of the run (docs/performance.md#reads-at-the-floor-writes-at-the-disks-pace).
    struct RankedUser: Sendable {
        struct Fields: OptionSet, Sendable {
            let rawValue: UInt8
            static let rank = Fields(rawValue: 1)
            static let generosityLevel = Fields(rawValue: 2)
            static let generosityScore = Fields(rawValue: 4)
        }

        /// The user, its ``CampusUser/document`` emptied: only its path and version are kept.
        var user: CampusUser
        /// The written fields that are missing or null in the document.
        var lacks: Fields

        init(_ d: Document) throws(FieldError) {
            user = try CampusUser(d)
            lacks = []
            if d["rank"]?.isNull ?? true { lacks.insert(.rank) }
            if d["generosityLevel"]?.isNull ?? true { lacks.insert(.generosityLevel) }
            if d["generosityScore"]?.isNull ?? true { lacks.insert(.generosityScore) }
            user.document.object = JSONObject()
        }
    }
}
