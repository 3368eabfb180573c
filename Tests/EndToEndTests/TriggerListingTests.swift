import Foundation
import Testing
import HearthTestSupport

/// `hearth list` and `hearth check` show each job's triggers (docs/triggers.md#seeing-them) and
/// whether apps can call it (docs/callables.md#configuration); a bad trigger is a configuration
/// error before anything runs.
@Suite("triggers in hearth list and hearth check")
struct TriggerListingTests {
    static let config = """
        dataDir = "d"
        [jobs.gift-settle]
        triggers = ["transactions", "friendships"]
        triggerDelay = "50ms"
        [jobs.friend-notify]
        triggers = []

        """

    /// Every built-in job's triggers with the config above.
    static let expected: [String: [String]] = [
        "achievement-unlock": ["userXP", "trades", "userChallenges"], "conversation-sync": ["messages", "conversations"], "friend-notify": [],
        "gift-settle": ["transactions", "friendships"], "gig-quality-score": ["gigs"], "leaderboard-rebuild": [],
        "notification-fanout": ["notifications", "broadcasts"], "report-triage": ["reports"], "streak-reset": [], "weekly-bonus": [],
        "xp-award": ["trades", "userChallenges", "collaborations"], "xp-leaderboard": [], "send-gift": [], "award-xp": [],
    ]

    /// The callable jobs (the others are not).
    static let callable: Set<String> = ["send-gift", "award-xp"]

    func setUp() throws -> TempDirectory {
        let s = try TempDirectory("hearth-e2e")
        try s.write("d/users/u1.json", "{}")
        try s.write("hearth.toml", Self.config)
        return s
    }

    @Test func listShowsATriggersColumnAndTheJSONHasTriggersAndTheDelay() async throws {
        let s = try setUp()
        defer { s.remove() }
        let list = try await HearthProcess.run(["list", "--config", "hearth.toml"], in: s.path)
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("JOB ") == true)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true).suffix(2) == ["TRIGGERS", "CALLS"])
        var shown: [String: String] = [:]
        for row in lines.dropFirst() {
            let job = String(row.prefix { $0 != " " })
            shown[job] = row
        }
        #expect(Set(shown.keys) == Set(Self.expected.keys))
        for (job, triggers) in Self.expected {
            let text = triggers.isEmpty ? "none" : triggers.joined(separator: ", ")
            // The last two columns: TRIGGERS, then CALLS.
            let cells = (shown[job] ?? "").components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(cells.suffix(2) == [text, Self.callable.contains(job) ? "auth required" : "no"], "\(shown[job] ?? "no row for \(job)")")
        }

        let json = try await HearthProcess.run(["list", "--config", "hearth.toml", "--format", "json"], in: s.path)
        #expect(json.status == 0)
        let jobs = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        var listed: [String: [String]] = [:]
        var delays: [String: String] = [:]
        for j in jobs {
            let name = try #require(j["job"] as? String)
            listed[name] = j["triggers"] as? [String]
            delays[name] = j["triggerDelay"] as? String
        }
        #expect(listed == Self.expected)
        #expect(delays["gift-settle"] == "50ms")
        #expect(delays["report-triage"] == "20ms")
    }

    @Test func checkStartsWithEveryJobsTriggers() async throws {
        let s = try setUp()
        defer { s.remove() }
        let check = try await HearthProcess.run(["check", "--config", "hearth.toml"], in: s.path)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout == """
            triggers: achievement-unlock: userXP, trades, userChallenges (triggerDelay 20ms)
            triggers: award-xp: none
            triggers: conversation-sync: messages, conversations (triggerDelay 20ms)
            triggers: friend-notify: none
            triggers: gift-settle: transactions, friendships (triggerDelay 50ms)
            triggers: gig-quality-score: gigs (triggerDelay 20ms)
            triggers: leaderboard-rebuild: none
            triggers: notification-fanout: notifications, broadcasts (triggerDelay 20ms)
            triggers: report-triage: reports (triggerDelay 20ms)
            triggers: send-gift: none
            triggers: streak-reset: none
            triggers: weekly-bonus: none
            triggers: xp-award: trades, userChallenges, collaborations (triggerDelay 20ms)
            triggers: xp-leaderboard: none
            calls: award-xp: auth required
            calls: send-gift: auth required
            calls: no [auth]: calls to award-xp, send-gift are answered 401 UNAUTHENTICATED until [auth] names where the apps' ID-token keys are (docs/callables.md#id-tokens)
            Checked 1 documents in 1 collections: all valid.

            """)
        let json = try await HearthProcess.run(["check", "--config", "hearth.toml", "--format", "json"], in: s.path)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let triggers = try #require(report["triggers"] as? [String: [String: Any]])
        #expect(triggers.mapValues { $0["collections"] as? [String] ?? ["?"] } == Self.expected)
        #expect(triggers["gift-settle"]?["triggerDelay"] as? String == "50ms")
    }

    @Test func aTriggerOnACollectionTheJobDoesNotReadExitsSeventyEightNamingTheLine() async throws {
        let s = try setUp()
        defer { s.remove() }
        try s.write("hearth.toml", "dataDir = \"d\"\n[jobs.friend-notify]\ntriggers = [\"friendships\", \"gifts\"]\n")
        let r = try await HearthProcess.run(["list", "--config", "hearth.toml"], in: s.path)
        #expect(r.status == 78)
        #expect(r.stderr == "hearth: error: hearth.toml:3: [jobs.friend-notify] triggers: \"gifts\" is not a collection friend-notify reads, so a write there cannot change what it does; it reads: friendships, users, notifications\n")
    }
}
