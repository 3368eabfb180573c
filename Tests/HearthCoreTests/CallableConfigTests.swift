import Foundation
import HearthKit
import HearthHost
import Testing

/// `[jobs.NAME] callable` / `auth` and `[callable] origins` (docs/callables.md#configuration).
@Suite("Callable configuration")
struct CallableConfigTests {
    static let echo = JobDescriptor(name: "echo", summary: "", defaultSchedule: "", reads: [], writes: [], callable: true, callAuth: .required)
    static let tally = JobDescriptor(name: "tally", summary: "", defaultSchedule: "* * * * *", reads: [], writes: [])
    let loader = ConfigLoader(jobs: [echo, tally], environment: [:])

    func message(_ toml: String) -> String? {
        do { _ = try loader.parse("dataDir = \"/d\"\n" + toml, file: "/etc/hearth/hearth.toml") } catch { return error.description }
        return nil
    }

    @Test func aJobIsCallableAsItsDescriptorSaysUntilTheConfigSaysOtherwise() throws {
        let defaults = try loader.parse("dataDir = \"/d\"\n", file: "/etc/hearth/hearth.toml")
        #expect(defaults.jobs["echo"].map { ($0.callable, $0.callAuth, $0.schedule) } ?? (false, .optional, "?") == (true, .required, ""))
        #expect(defaults.jobs["tally"]?.callable == false)
        let set = try loader.parse("dataDir = \"/d\"\n[jobs.echo]\ncallable = false\n[jobs.tally]\ncallable = true\nauth = \"optional\"\n", file: "/etc/hearth/hearth.toml")
        #expect(set.jobs["echo"]?.callable == false)
        #expect(set.jobs["tally"].map { ($0.callable, $0.callAuth) } ?? (false, .required) == (true, .optional))
    }

    @Test func anAuthOtherThanRequiredOrOptionalIsRefusedWithTheAcceptedValues() {
        #expect(message("[jobs.echo]\nauth = \"none\"\n")
            == #"/etc/hearth/hearth.toml:3: [jobs.echo] auth: "none" is not accepted; accepted: "required" (a call needs an ID token), "optional""#)
    }

    @Test func originsAreSchemeAndHostWithNoPath() throws {
        let config = try loader.parse("dataDir = \"/d\"\n[callable]\norigins = [\"https://app.example.com\", \"http://localhost:5173\"]\n", file: "/etc/hearth/hearth.toml")
        #expect(config.callableOrigins == ["https://app.example.com", "http://localhost:5173"])
        #expect(message("[callable]\norigins = [\"https://app.example.com/\"]\n")
            == #"/etc/hearth/hearth.toml:3: [callable] origins: "https://app.example.com/" is not an origin; write scheme://host[:port] with no path, e.g. "https://app.example.com" or "http://localhost:5173""#)
        #expect(message("[callable]\norigin = [\"x\"]\n")?.contains(#"unknown key "callable.origin""#) == true)
    }

    @Test func aCommandJobNeedsAScheduleUnlessItIsCallable() throws {
        let callable = try loader.parse("dataDir = \"/d\"\n[jobs.hook]\ncommand = [\"/bin/true\"]\ncallable = true\n", file: "/etc/hearth/hearth.toml")
        #expect(callable.jobs["hook"].map { ($0.callable, $0.schedule) } ?? (false, "?") == (true, ""))
        #expect(message("[jobs.hook]\ncommand = [\"/bin/true\"]\n")?.hasSuffix(#"(or `callable = true` with no schedule: apps call it)"#) == true)
    }
}
