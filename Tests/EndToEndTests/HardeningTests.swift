import Foundation
import HearthStore
import Testing
import HearthTestSupport

/// Issue "hardening": owners and modes kept, numbers kept as written, sandboxed units, and the
/// CLI's exit codes, zone names and `--format` handling; with the real binary, as root and as
/// nobody (through `setpriv`).
@Suite("hardening end to end", .enabled(if: geteuid() == 0, "needs root to chown files and to run hearth as nobody"))
struct HardeningTests {
    static let now = "2026-11-18T12:00:00Z"
    static let asNobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]

    /// `d/` with two users and a gift, owned by nobody:nogroup (the app's data).
    func makeData(_ s: TempDirectory) async throws -> String {
        try s.write("d/users/u1.json", #"{"name": "A", "totalPointsGifted": 150, "giftsGiven": 3}"#)
        try s.write("d/users/u2.json", #"{"name": "B", "totalPointsGifted": 10, "giftsGiven": 1}"#)
        try s.write("d/transactions/t1.json", #"{"type": "gift", "status": "completed", "fromUserId": "u1", "amount": 5, "createdAt": "2026-11-17T00:00:00Z"}"#)
        let data = s.path + "/d"
        try Self.shell("chown -R nobody:nogroup \(data) && chmod 2775 \(data) && chmod 664 \(data)/users/u1.json")
        return data
    }

    static func shell(_ command: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "\(command) failed")
    }

    /// `owner:group mode` as `stat -c '%U:%G %a'` prints it.
    static func owner(_ path: String) -> String {
        // Through FileIO: `stat`'s members are not visible here since swift-certificates (through
        // jwt-kit) is in the build (MemberImportVisibility names CoreFoundation or CDispatch).
        guard let st = try? FileIO.statPath(path) else { return "missing" }
        let user = ProcessIdentity.userName(st.uid) ?? String(st.uid)
        let group = ProcessIdentity.groupName(st.gid) ?? String(st.gid)
        return "\(user):\(group) \(String(st.mode & 0o7777, radix: 8))"
    }

    @Test func aRunAsRootKeepsTheOwnerAndModeOfTheAppsDocumentsAndNewOnesTakeTheDirectorysOwner() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try await makeData(s)
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", data, "--now", Self.now])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.read("d/users/u1.json")?.contains(#""rank": 1"#) == true)
        #expect(Self.owner(data + "/users/u1.json") == "nobody:nogroup 664")
        #expect(Self.owner(data + "/users/u2.json") == "nobody:nogroup 644")
        #expect(Self.owner(data + "/leaderboard_cache") == "nobody:nogroup 2755")
        #expect(Self.owner(data + "/leaderboard_cache/alltime.json") == "nobody:nogroup 644")
    }

    @Test func aRunAsNobodyOverADocumentOwnedByRootFailsBeforeCommitWithSeventySevenAndChangesNothing() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try await makeData(s)
        try Self.shell("chown root:root \(data)/users/u1.json")
        let before = TreeSnapshot(data)
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", data, "--now", Self.now], launcher: Self.asNobody)
        #expect(r.status == 77)
        #expect(r.stderr == """
            hearth: error: cannot keep the owner of 1 document(s) this run would rewrite: users/u1.json is owned by root:root (uid 0, gid 0). \
            Hearth runs as nobody (uid 65534, gid 65534), which may not give a file another owner, so nothing was committed. \
            Chown the documents to nobody (the user that owns the data), or run Hearth as their owner.

            """)
        #expect(TreeSnapshot(data) == before)
        #expect(Self.owner(data + "/users/u1.json") == "root:root 664")
        let history = try await HearthProcess.run(["history", "--data", data, "--format", "json"])
        #expect(history.stdout.contains(#""status": "failed""#))
    }

    @Test func aRunAsNobodyOverADocumentOfAnotherUserSuggestsRunningAsThatUser() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try await makeData(s)
        try Self.shell("chown daemon:daemon \(data)/users/u2.json")
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", data, "--now", Self.now], launcher: Self.asNobody)
        #expect(r.status == 77)
        #expect(r.stderr.hasPrefix("hearth: error: cannot keep the owner of 1 document(s) this run would rewrite: users/u2.json is owned by daemon:daemon (uid 1, gid 1). "))
        #expect(r.stderr.hasSuffix("Run Hearth as the user that owns the data (`User=daemon` in the systemd unit, `hearth export systemd --user daemon`), or chown the documents to nobody.\n"))
    }

    @Test func aRunAsNobodyKeepsTheGroupOfADocumentInOneOfItsOtherGroups() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try await makeData(s)
        try Self.shell("chown nobody:daemon \(data)/users/u1.json && chmod 660 \(data)/users/u1.json")
        let launcher = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=daemon", "--"]
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", data, "--now", Self.now], launcher: launcher)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.read("d/users/u1.json")?.contains(#""rank": 1"#) == true)
        #expect(Self.owner(data + "/users/u1.json") == "nobody:daemon 660")
        #expect(Self.owner(data + "/leaderboard_cache/alltime.json") == "nobody:nogroup 644")
    }

    @Test func checkAsNobodyListsTheDocumentsItCannotKeepTheOwnerOf() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try await makeData(s)
        try Self.shell("chown root:root \(data)/users/u1.json")
        let r = try await HearthProcess.run(["check", "--data", data], launcher: Self.asNobody)
        #expect(r.status == 77)
        #expect(r.stdout.contains("cannot keep owner: users/u1.json is owned by root:root (uid 0, gid 0)\n"))
        #expect(r.stdout.contains("1 document(s) in collections the jobs write belong to another user: Hearth, running as nobody (uid 65534, gid 65534), cannot rewrite them keeping their owner"))
        let asRoot = try await HearthProcess.run(["check", "--data", data])
        #expect(asRoot.status == 0)
        #expect(!asRoot.stdout.contains("cannot keep owner"))
    }

    @Test func untouchedNumbersKeepTheirExactTextThroughARun() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let numbers = #""big": 12345678901234567890, "tenth": 1.10, "hundred": 1E2, "negZero": -0.0, "tiny": 1e-7, "long": 0.1000000000000000055511151231257827"#
        try s.write("d/users/u1.json", #"{"name": "A", "totalPointsGifted": 150, "giftsGiven": 3, "#.appending(numbers) + "}")
        let r = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", s.path + "/d", "--now", Self.now])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.read("d/users/u1.json") == """
            {
              "name": "A",
              "totalPointsGifted": 150,
              "giftsGiven": 3,
              "big": 12345678901234567890,
              "tenth": 1.10,
              "hundred": 1E2,
              "negZero": -0.0,
              "tiny": 1e-7,
              "long": 0.1000000000000000055511151231257827,
              "rank": 1,
              "generosityLevel": "Helper",
              "generosityScore": 6
            }

            """)
    }

    @Test(arguments: [
        ["list"], ["check"], ["history"], ["next"], ["backfill", "streak-reset", "--from", "2026-11-18T00:00:00Z", "--to", "2026-11-18T01:00:00Z"],
        ["outbox", "list"], ["outbox", "dead"], ["outbox", "deliver"],
    ])
    func everyListingNeitherOffersNorAcceptsMarkdown(_ command: [String]) async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        try s.write("d/users/u1.json", "{}")
        let r = try await HearthProcess.run(command + ["--data", s.path + "/d", "--format", "markdown"])
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix("Error: The value 'markdown' is invalid for '--format <format>'. Please provide one of 'text' and 'json'.\n"))
        #expect(r.stdout == "")
        // … and its help no longer offers it.
        let help = try await HearthProcess.run(command + ["--help"])
        #expect(help.stdout.contains("(values: text, json;"), "\(help.stdout)")
        #expect(!help.stdout.contains("markdown"))
    }

    @Test func helpListsEveryExitCode() async throws {
        let r = try await HearthProcess.run(["--help"])
        let text = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains(
            "Exit codes: 0 success; 1 the job failed; 2 changes (with --detailed-exitcode); 64 usage error; 65 invalid input documents; "
                + "74 I/O error (e.g. disk full); 75 temporary failure (lock busy, conflicts); 77 no permission (documents whose owner Hearth cannot keep); "
                + "78 configuration error."))
    }

    @Test func listAndPlansNameTheDefaultZoneUTC() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        try s.write("d/users/u1.json", "{}")
        let r = try await HearthProcess.run(["list", "--data", s.path + "/d"])
        #expect(r.status == 0)
        let row = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("streak-reset ") })
        #expect(row.contains(" UTC "))
        #expect(!r.stdout.contains("GMT"))
        let json = try await HearthProcess.run(["list", "--data", s.path + "/d", "--format", "json"])
        #expect(json.stdout.contains(#""timeZone": "UTC""#))
        #expect(!json.stdout.contains("GMT"))
        let plan = try await HearthProcess.run(["plan", "streak-reset", "--data", s.path + "/d", "--now", Self.now, "--format", "markdown"])
        #expect(plan.stdout.hasPrefix("### Plan: `streak-reset` at 2026-11-18T12:00:00.000Z (UTC)\n"))
    }

    @Test(.enabled(if: SystemdAnalyze.isInstalled, "systemd-analyze is not installed"))
    func everyExportedUnitPassesVerifyAndEveryServiceScoresAtMostOnePointFive() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try await makeData(s)
        try s.write("secret", "s3cret")
        try s.write("hearth.toml", """
            dataDir = "\(data)"
            [[webhooks]]
            name = "app"
            url = "https://example.com/hook"
            secretFile = "\(s.path)/secret"
            """)
        let r = try await HearthProcess.run(["export", "systemd", "--config", s.path + "/hearth.toml", "--out", s.path + "/units", "--user", "hearth", "--group", "hearth"])
        #expect(r.status == 0, "\(r.stderr)")
        let units = try FileManager.default.contentsOfDirectory(atPath: s.path + "/units").sorted()
        #expect(units.count == 25)   // a service and a timer per built-in job, and the daemon
        var scores: [String: Double] = [:]
        for unit in units where unit.hasSuffix(".service") {
            scores[unit] = try SystemdAnalyze.exposure(of: s.path + "/units/" + unit).score
        }
        #expect(scores.count == 13)
        #expect(scores.values.allSatisfy { $0 <= 1.5 }, "\(scores)")
        let (status, text) = try SystemdAnalyze.verify(units.map { s.path + "/units/" + $0 })
        #expect(status == 0, "\(text)")
        #expect(text == "", "\(text)")
        let service = try #require(s.read("units/hearth-leaderboard-rebuild.service"))
        #expect(service.contains("\nReadWritePaths=\(data)\nReadOnlyPaths=\(s.path)/hearth.toml \(s.path)/secret\n"))
    }

    @Test func exportTakesTheUserAndGroupFromTheDataDirectoryAndNeverRoot() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = try await makeData(s)
        try s.write("hearth.toml", "dataDir = \"\(data)\"\n")
        let r = try await HearthProcess.run(["export", "systemd", "--config", s.path + "/hearth.toml", "--out", s.path + "/units", "--binary", "/usr/local/bin/hearth"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.read("units/hearth.service")?.contains("\nUser=nobody\nGroup=nogroup\nUMask=0022\n") == true)
        #expect(r.stderr.contains("warning: User=nobody: nobody is shared by unrelated services"))
        try Self.shell("chown root:root \(data)")
        let root = try await HearthProcess.run(["export", "systemd", "--config", s.path + "/hearth.toml", "--out", s.path + "/units2"])
        #expect(root.status == 64)
        #expect(root.stderr == "hearth: error: the data directory \(data) is owned by root, so the units' user cannot be taken from it; pass --user NAME (the user that owns the apps' data; the units never run as root)\n")
        let explicitRoot = try await HearthProcess.run(["export", "systemd", "--config", s.path + "/hearth.toml", "--out", s.path + "/units2", "--user", "root"])
        #expect(explicitRoot.status == 64)
    }
}
