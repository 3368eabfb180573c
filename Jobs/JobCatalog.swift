public import HearthKit

/// The one place jobs are registered by name.
public enum JobCatalog {
    public static let registry = JobRegistry([
        LeaderboardRebuild.self,
        WeeklyBonus.self,
        XPAward.self,
        AchievementUnlock.self,
        StreakReset.self,
        GigQualityScore.self,
        NotificationFanout.self,
        GiftSettle.self,
        ReportTriage.self,
        XPLeaderboard.self,
        FriendNotify.self,
        ConversationSync.self,
        SendGift.self,
        AwardXP.self,
    ])
}
