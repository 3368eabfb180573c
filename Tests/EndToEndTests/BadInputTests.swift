import Foundation
import Testing
import HearthTestSupport

@Suite("bad input end to end")
struct BadInputTests {
    /// A data directory with one invalid document of each kind beside valid ones.
    func makeData(_ s: TempDirectory) throws -> String {
        try s.write("d/users/ok.json", #"{"name": "Ok", "totalPointsGifted": 150, "giftsGiven": 3}"#)
        try s.write("d/users/badjson.json", #"{"name": "#)
        try s.write("d/users/list.json", "[1, 2]")
        try s.write("d/users/wrongtype.json", #"{"name": "W", "giftsGiven": "12"}"#)
        try s.write("d/users/huge.json", #"{"name": ""# + String(repeating: "x", count: 1 << 20) + "\"}")
        try s.write("d/transactions/t1.json", #"{"type": "gift", "status": "completed", "fromUserId": "../../etc/passwd", "amount": 5, "createdAt": "2026-11-17T00:00:00Z"}"#)
        try s.write("outside/secret.json", #"{"name": "secret"}"#)
        try FileManager.default.createSymbolicLink(atPath: s.path + "/d/users/link.json", withDestinationPath: s.path + "/outside/secret.json")
        return s.path + "/d"
    }

    static let expectedIssues = [
        "users/badjson.json: invalid JSON at line 1, column 10: unexpected end of input",
        "users/huge.json: document is 1048588 bytes; the maximum is 1 MiB (1048576 bytes). Split it or move large data out of the document.",
        "users/link.json: symbolic link pointing outside the data directory; Hearth never follows it. Replace it with the document itself.",
        "users/list.json: expected a JSON object, found array",
        #"users/wrongtype.json: field "giftsGiven": expected integer, found string "12""#,
        #"transactions/t1.json: field "fromUserId": invalid document id "../../etc/passwd": names must not start with ".""#,
    ]

    @Test func skipWarnsAboutEveryInvalidDocumentAndNeverRewritesIt() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try makeData(s)
        let before = TreeSnapshot(data)
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", data, "--now", "2026-11-18T12:00:00Z"])
        #expect(r.status == 0)
        for issue in Self.expectedIssues { #expect(r.stderr.contains("warning: \(issue)\n"), "missing: \(issue)") }
        let after = TreeSnapshot(data)
        for name in ["badjson", "list", "wrongtype", "huge"] {
            #expect(after.files["users/\(name).json"] == before.files["users/\(name).json"])
        }
        #expect(after.files["transactions/t1.json"] == before.files["transactions/t1.json"])
        #expect(s.read("outside/secret.json") == #"{"name": "secret"}"#)
        #expect(s.read("d/users/ok.json")!.contains("\"rank\": 1"))
        let history = try await HearthProcess.run(["history", "--data", data, "--format", "json"])
        #expect(history.stdout.contains("\"status\": \"succeeded-with-warnings\""))
    }

    @Test func failExitsSixtyFiveAndCommitsNothing() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try makeData(s)
        try s.write("hearth.toml", "dataDir = \"d\"\n[defaults]\nonInvalidDocument = \"fail\"\n")
        let before = TreeSnapshot(data)
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--config", s.path + "/hearth.toml", "--now", "2026-11-18T12:00:00Z"])
        #expect(r.status == 65)
        #expect(r.stderr.contains("hearth: error: invalid input (onInvalidDocument = \"fail\"): users/badjson.json: invalid JSON at line 1, column 10"))
        #expect(TreeSnapshot(data) == before)
    }

    @Test func checkNamesEveryInvalidDocumentAndExitsSixtyFive() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try makeData(s)
        try s.write("d/users/notes.txt", "not a document")
        let r = try await HearthProcess.run(["check", "--data", data])
        #expect(r.status == 65)
        for issue in Self.expectedIssues.sorted() { #expect(r.stdout.contains("invalid: \(issue)\n"), "missing: \(issue)") }
        #expect(r.stdout.contains("ignored: users/notes.txt (not a .json document)\n"))

        let clean = try TempDirectory("hearth-e2e")
        defer { clean.remove() }
        try clean.write("d/users/a.json", #"{"name": "A"}"#)
        let ok = try await HearthProcess.run(["check", "--data", clean.path + "/d"])
        #expect(ok.status == 0)
        #expect(ok.stdout.hasSuffix(": all valid.\n"))
    }

    @Test(arguments: [
        ("dataDir = \"d\"\ntimeout = \"5m\"\n", "hearth.toml:2: unknown key \"timeout\""),
        ("dataDir = \"d\"\n[defaults]\nretries = \"two\"\n", "hearth.toml:3: defaults.retries: expected an integer, found string"),
        ("dataDir = \"d\"\n[defaults]\noverlap = \"sometimes\"\n", "hearth.toml:3: defaults.overlap: invalid value \"sometimes\"; accepted: \"skip\", \"queue\""),
        ("dataDir = \"d\"\nlockTimeout = \"soon\"\n", "hearth.toml:2: lockTimeout: expected a duration string like \"30s\", \"10m\", \"24h\" or \"7d\", found \"soon\""),
        ("dataDir = \"d\"\n\n[jobs.nope]\nschedule = \"* * * * *\"\n", "hearth.toml:3: unknown job \"nope\" in [jobs]; registered jobs: leaderboard-rebuild"),
        ("dataDir = \"d\"\n[jobs.leaderboard-rebuild.params]\ntop = 0\n", "hearth.toml:3: [jobs.leaderboard-rebuild.params] top: invalid value \"0\"; accepted: an integer from 1 to 10000"),
        ("dataDir = \"d\"\n[[webhooks]]\nname = \"ops\"\nurl = \"https://ops.example.com\"\nsecret = \"abc\"\n", "hearth.toml:5: webhooks.secret: secrets are never written in the config; put it in a file (secretFile) or an environment variable (secretEnv)"),
        ("dataDir = \"d\"\ntimeZone = \"Mars/Olympus\"\n", "hearth.toml:2: timeZone: unknown time zone \"Mars/Olympus\""),
        ("dataDir = \"d\"\n[defaults\n", "hearth.toml:2:"),
    ])
    func badConfigurationExitsSeventyEightNamingTheLine(config: String, message: String) async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        try s.write("hearth.toml", config)
        try s.write("d/users/a.json", "{}")
        let r = try await HearthProcess.run(["check", "--config", "hearth.toml"], in: s.path)
        #expect(r.status == 78)
        #expect(r.stderr.hasPrefix("hearth: error: " + message), "\(r.stderr)")
    }

    @Test func usageErrorsExitSixtyFourWithTheAcceptedValues() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        try s.write("d/users/a.json", "{}")
        let unknown = try await HearthProcess.run(["run", "nope", "--data", s.path + "/d"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("hearth: error: unknown job \"nope\"; registered jobs: leaderboard-rebuild"))
        let badParam = try await HearthProcess.run(["plan", "leaderboard-rebuild", "--data", s.path + "/d", "--param", "periods=daily"])
        #expect(badParam.status == 64)
        #expect(badParam.stderr == "hearth: error: parameter \"periods\": invalid value \"daily\"; accepted: a list of \"weekly\", \"monthly\", \"alltime\" (comma-separated on the command line)\n")
        let badNow = try await HearthProcess.run(["plan", "leaderboard-rebuild", "--data", s.path + "/d", "--now", "tomorrow"])
        #expect(badNow.status == 64)
    }

    @Test func aBusyLockExitsSeventyFiveNamingTheHolder() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        try s.write("d/users/a.json", #"{"totalPointsGifted": 5}"#)
        try s.write("hearth.toml", "dataDir = \"d\"\nlockTimeout = \"1s\"\n")
        try FileManager.default.createDirectory(atPath: s.path + "/d/.hearth", withIntermediateDirectories: true)
        // Another process holds the writers' lock.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", "import fcntl,os,sys,time; f=open(sys.argv[1],'a+'); fcntl.flock(f, fcntl.LOCK_EX); f.truncate(0); f.write('pid=%d job=weekly-bonus' % os.getpid()); f.flush(); print('locked', flush=True); time.sleep(30)", s.path + "/d/.hearth/lock"]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { holder.terminate() }
        _ = out.fileHandleForReading.availableData
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--config", s.path + "/hearth.toml"])
        #expect(r.status == 75)
        #expect(r.stderr.contains("is locked by another process (pid=\(holder.processIdentifier) job=weekly-bonus); waited 1s (lockTimeout)"), "\(r.stderr)")
    }
}
