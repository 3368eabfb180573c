/// The apps' XP level table (docs/jobs/achievement-unlock.md#when-an-achievement-unlocks; TradeYa's `LEVEL_TIERS`), shared by every job that
/// writes XP.
public enum XPLevels {
    public struct Tier: Sendable, Equatable {
        public var level: Int
        public var name: String
        public var minXP: Int64
        /// nil for the top tier.
        public var maxXP: Int64?
    }

    public static let tiers: [Tier] = [
        Tier(level: 1, name: "Novice", minXP: 0, maxXP: 1000),
        Tier(level: 2, name: "Apprentice", minXP: 1000, maxXP: 2500),
        Tier(level: 3, name: "Practitioner", minXP: 2500, maxXP: 5000),
        Tier(level: 4, name: "Expert", minXP: 5000, maxXP: 10_000),
        Tier(level: 5, name: "Master", minXP: 10_000, maxXP: 20_000),
        Tier(level: 6, name: "Grandmaster", minXP: 20_000, maxXP: 50_000),
        Tier(level: 7, name: "Legend", minXP: 50_000, maxXP: 100_000),
        Tier(level: 8, name: "Mythic", minXP: 100_000, maxXP: nil),
    ]

    public static func tier(for totalXP: Int64) -> Tier {
        tiers.last { totalXP >= $0.minXP } ?? tiers[0]
    }

    /// Upper bound of the tier minus total XP; 0 at the top level.
    public static func xpToNextLevel(_ totalXP: Int64) -> Int64 {
        guard let max = tier(for: totalXP).maxXP else { return 0 }
        return max - totalXP
    }
}
