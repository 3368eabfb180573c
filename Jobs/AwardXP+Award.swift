import HearthKit

/// The award an `award-xp` call asks for (docs/jobs/award-xp.md#rules).
extension AwardXP {
    struct Award: Sendable, Equatable {
        static let invalidRequest = "invalid_request"
        static let dailyLogin = "daily_login"
        static let profileCompletion = "profile_completion"
        static let skillPractice = "skill_practice"

        var source: String
        var sourceID: String
        var id: String
        var amount: Int64
        var description: String
        /// For a skill practice, `skill_practice-{uid}-{D}-`: the ids of the day's practices.
        var dailyPrefix: String?

        /// `data` = `{source, sourceId?}` (a `null` field counts as absent, other fields are
        /// ignored); ``CallError/Code/invalidArgument`` `invalid_request` for a source this job
        /// does not award, or a skill practice without a valid skill id.
        init(_ data: JSONValue, uid: String, day: LocalDate, amounts: AwardXP) throws(CallError) {
            let o = try Call(data: data).dataObject(reason: Self.invalidRequest)
            let d = day.description
            switch o["source"]?.stringValue {
            case Self.dailyLogin?:
                self.init(source: Self.dailyLogin, sourceID: d, id: "\(Self.dailyLogin)-\(uid)-\(d)", amount: amounts.dailyLogin, description: "Daily login")
            case Self.profileCompletion?:
                self.init(
                    source: Self.profileCompletion, sourceID: uid, id: "\(Self.profileCompletion)-\(uid)", amount: amounts.profileCompletion,
                    description: "Profile completed")
            case Self.skillPractice?:
                guard let skill = o["sourceId"]?.stringValue, ClientID.isValid(skill) else {
                    throw CallError(.invalidArgument, "sourceId must name the skill: 1 to 64 letters, digits, \"_\" or \"-\".", reason: Self.invalidRequest)
                }
                let prefix = "\(Self.skillPractice)-\(uid)-\(d)-"
                self.init(
                    source: Self.skillPractice, sourceID: skill, id: prefix + skill, amount: amounts.skillPractice, description: "Skill practice",
                    dailyPrefix: prefix)
            default:
                throw CallError(
                    .invalidArgument, "source must be \"\(Self.dailyLogin)\", \"\(Self.profileCompletion)\" or \"\(Self.skillPractice)\".",
                    reason: Self.invalidRequest)
            }
        }

        init(source: String, sourceID: String, id: String, amount: Int64, description: String, dailyPrefix: String? = nil) {
            self.source = source
            self.sourceID = sourceID
            self.id = id
            self.amount = amount
            self.description = description
            self.dailyPrefix = dailyPrefix
        }
    }
}
