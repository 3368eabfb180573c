import HearthKit
import HearthHost
import Jobs
import Testing

/// The demo data's work for gift-settle, report-triage, xp-leaderboard and friend-notify (docs/cli.md#hearth-seed) does what its
/// documentation says, at the anchor as T.
@Suite("demo data for gift-settle, report-triage, xp-leaderboard, friend-notify")
struct DemoPendingWorkTests {
    static let now = "2026-11-18T12:00:00Z"

    @Test func theDesignedGiftsEndAsDocumented() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try DemoData(users: 200, seed: 7).write(to: d.root)
        let outcome = try await d.run("gift-settle", now: Self.now)
        #expect(outcome.error == nil)
        func result(_ n: Int) throws -> String {
            let o = try #require(try d.object("transactions/gift-pending-0\(n)"))
            return [o["status"]?.stringValue, o["failureReason"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        }
        // 1: A → B; 2: B gives on what A sent (more than B had before the run).
        #expect(try result(1) == "completed")
        #expect(try result(2) == "completed")
        #expect(try result(3) == "failed insufficient_points")
        #expect(try result(4) == "failed expired")
        #expect(try result(5) == "failed unknown_receiver")
        #expect(try result(6) == "failed self_gift")
        #expect(try result(7) == "failed invalid_amount")
        #expect(try result(8) == "completed")
        let again = try await d.run("gift-settle", now: Self.now)
        #expect(again.plan.summaryLine == "No changes.")
    }

    @Test func theTradeThreeUsersReportIsHeldAndEveryRejectionCodeOccurs() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try DemoData(users: 200, seed: 7).write(to: d.root)
        _ = try await d.run("report-triage", now: Self.now)
        #expect(try d.object("trades/trade-u00002")?["moderationHold"] == true)
        // The three designed reporters (u00003 twice), and one of the random reports.
        #expect(try d.object("moderationQueue/trade-trade-u00002")?["reporterIds"] == ["u00003", "u00004", "u00005", "u00167"])
        let codes = Set(try d.ids("reports").compactMap { try d.object("reports/\($0)")?["rejectReason"]?.stringValue })
        #expect(codes == ["invalid_report", "content_not_found", "unknown_reporter", "own_content"])
    }

    @Test func theRequestTheOlderClientNotifiedGetsNoSecondNotification() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try DemoData(users: 200, seed: 7).write(to: d.root)
        _ = try await d.run("friend-notify", now: Self.now)
        #expect(d.text("notifications/friend-request-fresh-u00001_u00010") == nil)
        #expect(d.ids("notifications").contains { $0.hasPrefix("friend-request-fresh-") || $0.hasPrefix("friend-accepted-fresh-") })
        let boards = try await d.run("xp-leaderboard", now: Self.now)
        #expect(boards.plan.summaryLine == "Applied: 12 to create, 0 to update, 0 to delete; 0 pushes, 0 webhooks.")
    }
}
