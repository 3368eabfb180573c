import Foundation
import HearthKit
import HearthHost
import Jobs
import Testing

/// `[jobs.NAME] triggers` and `triggerDelay` (docs/triggers.md#configuration), with the
/// built-in jobs' declared defaults.
@Suite("Trigger configuration")
struct TriggerConfigTests {
    static func load(_ toml: String) throws(ConfigError) -> HearthConfig {
        try ConfigLoader(jobs: JobCatalog.registry.descriptors, environment: [:]).parse(toml, file: "/etc/hearth/hearth.toml", dataOverride: "/tmp")
    }

    /// The message of the error `toml` makes.
    static func error(_ toml: String) -> String {
        do {
            _ = try load(toml)
            return "(no error)"
        } catch {
            return error.description
        }
    }

    @Test func everyBuiltInJobHasTheDocumentedDefaultsAndTheyAreCollectionsItReads() throws {
        let config = try Self.load("")
        var triggers: [String: [String]] = [:]
        for (name, jc) in config.jobs { triggers[name] = jc.triggers }
        #expect(triggers == [
            "gift-settle": ["transactions"], "friend-notify": ["friendships"], "report-triage": ["reports"], "gig-quality-score": ["gigs"],
            "xp-award": ["trades", "userChallenges", "collaborations"], "achievement-unlock": ["userXP", "trades", "userChallenges"],
            "notification-fanout": ["notifications", "broadcasts"], "conversation-sync": ["messages", "conversations"],
            "leaderboard-rebuild": [], "xp-leaderboard": [], "weekly-bonus": [], "streak-reset": [], "send-gift": [], "award-xp": [],
        ])
        #expect(config.jobs.values.allSatisfy { $0.triggerDelay == .milliseconds(20) })
        for d in JobCatalog.registry.descriptors {
            #expect(Set(d.triggers).isSubset(of: d.reads), "\(d.name) triggers on a collection it does not read")
        }
    }

    @Test func theConfigReplacesTheTriggersAndTheDelayOrTurnsThemOff() throws {
        let config = try Self.load("""
            [jobs.gift-settle]
            triggers = ["transactions", "friendships"]
            triggerDelay = "100ms"
            [jobs.friend-notify]
            triggers = []
            [jobs.leaderboard-rebuild]
            triggers = ["transactions"]
            """)
        #expect(config.jobs["gift-settle"]?.triggers == ["transactions", "friendships"])
        #expect(config.jobs["gift-settle"]?.triggerDelay == .milliseconds(100))
        #expect(config.jobs["friend-notify"]?.triggers == [])
        #expect(config.jobs["leaderboard-rebuild"]?.triggers == ["transactions"])
        #expect(config.jobs["report-triage"]?.triggers == ["reports"])
    }

    @Test func aCommandJobHasNoTriggersUntilItNamesCollectionsItReads() throws {
        let toml = """
            [jobs.expire-gigs]
            command = ["python3", "f.py"]
            reads = ["gigs", "users"]
            writes = ["gigs"]
            schedule = "0 * * * *"
            """
        #expect(try Self.load(toml).jobs["expire-gigs"]?.triggers == [])
        #expect(try Self.load(toml + "\ntriggers = [\"gigs\"]\ntriggerDelay = \"1s\"\n").jobs["expire-gigs"]?.triggers == ["gigs"])
        #expect(Self.error(toml + "\ntriggers = [\"users\", \"notifications\"]\n")
            == #"/etc/hearth/hearth.toml:6: [jobs.expire-gigs] triggers: "notifications" is not a collection expire-gigs reads, so a write there cannot change what it does; it reads: gigs, users"#)
        #expect(Self.error("[jobs.noop]\ncommand = [\"true\"]\nschedule = \"0 * * * *\"\ntriggers = [\"gigs\"]\n")
            == #"/etc/hearth/hearth.toml:4: [jobs.noop] triggers: "gigs" is not a collection noop reads, so a write there cannot change what it does; it reads none (list them in reads)"#)
    }

    @Test(arguments: [
        // The line of the element, in a list over several lines.
        ("[jobs.gift-settle]\ntriggers = [\n  \"transactions\",\n  \"gigs\",\n]\n",
         #"/etc/hearth/hearth.toml:4: [jobs.gift-settle] triggers: "gigs" is not a collection gift-settle reads, so a write there cannot change what it does; it reads: transactions, users, friendships"#),
        ("[jobs.gift-settle]\ntriggers = \"transactions\"\n",
         #"/etc/hearth/hearth.toml:2: [jobs.gift-settle] triggers: expected an array of collection names, e.g. ["transactions"] ([] turns triggers off), found string"#),
        ("[jobs.gift-settle]\ntriggers = [\"transactions\", 1]\n",
         #"/etc/hearth/hearth.toml:2: [jobs.gift-settle] triggers: expected an array of collection names, found integer in it"#),
        ("[jobs.gift-settle]\ntriggers = [\"transactions\", \"users\", \"transactions\"]\n",
         #"/etc/hearth/hearth.toml:2: [jobs.gift-settle] triggers: "transactions" is listed twice"#),
        ("[jobs.gift-settle]\ntriggerDelay = \"soon\"\n",
         #"/etc/hearth/hearth.toml:2: jobs.gift-settle.triggerDelay: expected a duration string like "30s", "10m", "24h" or "7d", found "soon""#),
        ("[defaults]\ntriggers = [\"transactions\"]\n",
         #"/etc/hearth/hearth.toml:2: unknown key "defaults.triggers"; accepted here:"#),
    ])
    func aBadTriggerSettingIsAConfigErrorNamingTheLine(toml: String, message: String) {
        let error = Self.error(toml)
        #expect(error == message || (message.hasSuffix("accepted here:") && error.hasPrefix(message)), "\(error)")
    }
}
