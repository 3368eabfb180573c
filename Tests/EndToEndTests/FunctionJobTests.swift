import Foundation
import Testing
import HearthTestSupport

/// Command jobs (docs/functions.md) through the real `hearth` binary, running the shipped
/// Python example and small scripts written by each test.
@Suite("command jobs")
struct FunctionJobTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let now = "2026-11-18T12:00:00Z"

    /// A data directory with four gigs (two to expire: one by `expiresAt`, one by age) and two
    /// posters, one with a device token.
    static func prepare(_ s: TempDirectory, extraConfig: String = "") throws {
        try s.write("d/users/alice.json", #"{"name": "Alice", "fcmTokens": ["tok-alice-1"]}"#)
        try s.write("d/users/bob.json", #"{"name": "Bob"}"#)
        try s.write("d/gigs/g1.json", #"{"title": "Barista", "status": "active", "postedBy": "alice", "postedAt": "2026-11-10T09:00:00.000Z", "expiresAt": "2026-11-17T00:00:00.000Z"}"#)
        try s.write("d/gigs/g2.json", #"{"title": "Tutor", "status": "active", "postedBy": "bob", "postedAt": "2026-10-01T09:00:00.000Z"}"#)
        try s.write("d/gigs/g3.json", #"{"title": "Lab aide", "status": "active", "postedBy": "alice", "postedAt": "2026-11-15T09:00:00.000Z", "expiresAt": "2026-12-01T00:00:00.000Z"}"#)
        try s.write("d/gigs/g4.json", #"{"title": "Mover", "status": "filled", "postedBy": "bob", "postedAt": "2026-09-01T09:00:00.000Z"}"#)
        try s.write("hearth.toml", """
            dataDir = "d"
            [notifications]
            types = ["gift_received", "gig_expired"]
            [jobs.expire-gigs]
            command = ["python3", "\(repo)/functions/expire_gigs.py"]
            reads = ["gigs", "users"]
            writes = ["gigs", "notifications"]
            schedule = "0 * * * *"
            params = { maxAgeDays = 30 }
            \(extraConfig)
            """)
    }

    /// Writes `functions/NAME.py` and a `[jobs.NAME]` table running it.
    static func addFunction(_ s: TempDirectory, _ name: String, _ script: String, writes: [String] = ["gigs"], extra: String = "", python: String = "python3") throws {
        try s.write("functions/\(name).py", script)
        let config = s.read("hearth.toml")! + """

            [jobs.\(name)]
            command = ["\(python)", "functions/\(name).py"]
            reads = ["gigs"]
            writes = [\(writes.map { "\"\($0)\"" }.joined(separator: ", "))]
            schedule = "0 * * * *"
            \(extra)

            """
        try s.write("hearth.toml", config)
    }

    /// The interpreter itself, not a version manager's shim (pyenv's adds its own variables).
    static let systemPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

    /// `hearth run JOB`: exits 1 with `message` on stderr, and the data directory is unchanged.
    @discardableResult
    func runFailsAndCommitsNothing(_ s: TempDirectory, _ job: String, saying message: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> HearthProcess.Result {
        let before = TreeSnapshot(s.path + "/d")
        let r = try await hearth(s, ["run", job, "--now", Self.now])
        #expect(r.status == 1, sourceLocation: sourceLocation)
        #expect(r.stderr.contains(message), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(TreeSnapshot(s.path + "/d") == before, sourceLocation: sourceLocation)
        return r
    }

    func hearth(_ s: TempDirectory, _ args: [String]) async throws -> HearthProcess.Result {
        try await HearthProcess.run(args + ["--config", "hearth.toml"], in: s.path)
    }

    @Test func thePlanListsExactlyWhatTheRunWritesAndASecondRunChangesNothing() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        let plan = try await hearth(s, ["plan", "expire-gigs", "--now", Self.now, "--format", "json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let planned = Set(try #require(json["changes"] as? [[String: Any]]).map { ($0["path"] as! String) + ".json" })
        #expect(planned == ["gigs/g1.json", "gigs/g2.json", "notifications/gig-expired-g1.json", "notifications/gig-expired-g2.json"])

        let before = TreeSnapshot(s.path + "/d")
        let run = try await hearth(s, ["run", "expire-gigs", "--now", Self.now])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("Applied: 2 to create, 2 to update, 0 to delete; 1 push, 2 webhooks.\n"), "\(run.stdout)")
        let after = TreeSnapshot(s.path + "/d")
        #expect(Set(after.files.keys.filter { after.files[$0] != before.files[$0] }) == planned)
        #expect(s.read("d/gigs/g1.json") == """
            {
              "title": "Barista",
              "status": "expired",
              "postedBy": "alice",
              "postedAt": "2026-11-10T09:00:00.000Z",
              "expiresAt": "2026-11-17T00:00:00.000Z",
              "expiredAt": "2026-11-18T12:00:00.000Z"
            }

            """)
        #expect(s.read("d/notifications/gig-expired-g1.json") == """
            {
              "userId": "alice",
              "type": "gig_expired",
              "title": "Your gig has expired",
              "message": "\\"Barista\\" is no longer listed. Repost it to keep hiring.",
              "read": false,
              "createdAt": "2026-11-18T12:00:00.000Z",
              "actionUrl": "/gigs/g1"
            }

            """)
        let second = try await hearth(s, ["run", "expire-gigs", "--now", Self.now])
        #expect(second.status == 0)
        #expect(second.stdout == "No changes.\n")
        #expect(TreeSnapshot(s.path + "/d") == after)
    }

    @Test func aWriteOutsideTheDeclaredWritesFailsTheRunAndCommitsNothing() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        try Self.addFunction(s, "sneaky", """
            import sys, json
            sys.stdin.read()
            print(json.dumps({"op": "update", "path": "gigs/g1", "merge": {"status": "closed"}}))
            print(json.dumps({"op": "update", "path": "users/alice", "merge": {"points": 1000000}}))
            """)
        try await runFailsAndCommitsNothing(s, "sneaky", saying: """
            hearth: error: function sneaky: output line 2: update users/alice: "users" is not in the job's writes ["gigs"]; add it to `writes` in its [jobs] table; nothing was committed (see docs/functions.md#output)
            """)
    }

    @Test func aMalformedLineFailsTheRunWithItsNumberAndCommitsNothing() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        try Self.addFunction(s, "typo", """
            import sys, json
            sys.stdin.read()
            print(json.dumps({"op": "update", "path": "gigs/g1", "merge": {"status": "closed"}}))
            print("")
            print(json.dumps({"op": "update", "path": "gigs/g2", "mrege": {"status": "closed"}}))
            """)
        try await runFailsAndCommitsNothing(s, "typo", saying: """
            hearth: error: function typo: output line 3: update: expected "data" (the whole document) or "merge" (an object of fields to set) or "remove" (field names); nothing was committed
            """)
    }

    @Test func aNonZeroExitFailsTheRunWithItsStatusAndStderrAndCommitsNothing() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        try Self.addFunction(s, "crashes", """
            import sys, json
            sys.stdin.read()
            print(json.dumps({"op": "update", "path": "gigs/g1", "merge": {"status": "closed"}}), flush=True)
            print("database of gigs is on fire", file=sys.stderr)
            sys.exit(3)
            """)
        try await runFailsAndCommitsNothing(s, "crashes", saying: "hearth: error: function crashes exited with status 3; nothing was committed; its last stderr lines:\ndatabase of gigs is on fire\n")
        let history = try await hearth(s, ["history", "crashes", "--format", "json"])
        #expect(history.stdout.contains(#""status" : "failed""#) || history.stdout.contains(#""status": "failed""#), "\(history.stdout)")
    }

    @Test func aFunctionPastItsTimeoutIsTerminatedAndCommitsNothing() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        try Self.addFunction(s, "slow", """
            import sys, json, time
            sys.stdin.read()
            print(json.dumps({"op": "update", "path": "gigs/g1", "merge": {"status": "closed"}}), flush=True)
            time.sleep(60)
            """, extra: "timeout = \"1s\"\nkillGrace = \"1s\"")
        let clock = ContinuousClock()
        let started = clock.now
        try await runFailsAndCommitsNothing(s, "slow", saying: "hearth: error: the run exceeded its timeout of 1s and was cancelled; nothing was committed. Raise `timeout` for this job if it needs longer.")
        #expect(clock.now - started < .seconds(20))
    }

    @Test func theFunctionSeesOnlyItsContextAndTheEnvironmentTheConfigNames() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        try Self.addFunction(s, "env", """
            import sys, json, os
            context = json.loads(sys.stdin.readline())
            docs = [json.loads(l) for l in sys.stdin]
            # Python 3.7+ sets LC_CTYPE itself under the C locale (PEP 538): not from Hearth.
            print(json.dumps({"op": "warn", "message": "env " + " ".join(sorted(k for k in os.environ if k != "LC_CTYPE"))}))
            print(json.dumps({"op": "warn", "message": "context " + json.dumps({k: context[k] for k in ["protocol", "job", "logicalTime", "timeZone", "dryRun", "params", "reads", "writes"]}, sort_keys=True)}))
            print(json.dumps({"op": "warn", "message": "input " + " ".join(d.get("path", "end=%d" % d.get("documents", -1)) for d in docs)}))
            """, extra: "env = [\"SHOWN\"]\nparams = { limit = 5, mode = \"fast\" }", python: Self.systemPython)
        let r = try await HearthProcess.run(["plan", "env", "--config", "hearth.toml", "--now", Self.now, "--param", "limit=7"], in: s.path, environment: ["SHOWN": "yes", "SECRET_TOKEN": "hunter2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: env HEARTH_DRY_RUN HEARTH_JOB HEARTH_LOGICAL_TIME HEARTH_PROTOCOL HEARTH_RUN_ID HEARTH_START_TIME HEARTH_TIME_ZONE PATH SHOWN\n"), "\(r.stderr)")
        #expect(r.stderr.contains(#"warning: context {"dryRun": true, "job": "env", "logicalTime": "2026-11-18T12:00:00.000Z", "params": {"limit": 7, "mode": "fast"}, "protocol": "hearth-function/1", "reads": ["gigs"], "timeZone": "UTC", "writes": ["gigs"]}"#), "\(r.stderr)")
        #expect(r.stderr.contains("warning: input gigs/g1 gigs/g2 gigs/g3 gigs/g4 end=4\n"), "\(r.stderr)")
        #expect(!r.stderr.contains("hunter2") && !r.stdout.contains("hunter2"))
    }

    @Test func theFunctionInheritsNoDescriptorButItsThreePipes() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        try Self.addFunction(s, "fds", """
            import sys, json, os
            sys.stdin.read()
            fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
            print(json.dumps({"op": "warn", "message": "fds " + " ".join(map(str, fds))}))
            """)
        // hearth itself inherits descriptor 7 without close-on-exec, as from a launcher's shell.
        let r = try await HearthProcess.run(
            ["plan", "fds", "--config", "hearth.toml", "--now", Self.now], in: s.path,
            launcher: ["/bin/sh", "-c", #"exec 7</dev/null; exec "$0" "$@""#])
        #expect(r.status == 0, "\(r.stderr)")
        // 0, 1, 2 and the one listdir opened to read the list.
        #expect(r.stderr.contains("warning: fds 0 1 2 3\n"), "\(r.stderr)")
    }

    @Test func aPushAndAnEventQueuedByAFunctionAreDeliveredThroughTheOutbox() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        let secret = "whsec_" + Data("function-e2e-\(UUID().uuidString)".utf8).base64EncodedString()
        let receiver = try WebhookReceiverProcess.start(secret: secret)
        defer { receiver.stop() }
        try s.write("hook.secret", secret + "\n")
        chmod(s.path + "/hook.secret", 0o600)
        try Self.prepare(s, extraConfig: """
            [push]
            provider = "webhook"
            [push.webhook]
            url = "\(receiver.url("/ok/push"))"
            secretFile = "hook.secret"
            [[webhooks]]
            name = "ops"
            url = "\(receiver.url("/ok/events"))"
            secretFile = "hook.secret"
            events = ["gig.expired"]
            """)
        let run = try await hearth(s, ["run", "expire-gigs", "--now", Self.now])
        #expect(run.status == 0, "\(run.stderr)")
        let received = try await receiver.received()
        let pushes = received.filter { $0.path == "/ok/push" }
        #expect(pushes.count == 1)
        #expect(pushes.allSatisfy { $0.signatureValid && $0.type == "push.send" })
        let push = try #require(pushes.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(push.body.utf8)) as? [String: Any])
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["userId"] as? String == "alice")
        #expect(data["token"] as? String == "tok-alice-1")
        #expect(data["title"] as? String == "Your gig has expired")
        let events = received.filter { $0.path == "/ok/events" }
        #expect(events.map(\.type) == ["gig.expired", "gig.expired"])
        #expect(Set(events.compactMap(\.id)) == ["event-expire-gigs-gig-expired-g1", "event-expire-gigs-gig-expired-g2"])
        let list = try await hearth(s, ["outbox", "list"])
        #expect(list.stdout == "The outbox is empty.\n")
    }

    @Test func theNodeDigestQueuesOnePushPerUserWithUnreadNotificationsOnceADay() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try s.write("d/users/alice.json", #"{"name": "Alice", "fcmTokens": ["tok-alice-1"]}"#)
        try s.write("d/users/bob.json", #"{"name": "Bob", "fcmTokens": ["tok-bob-1"]}"#)
        try s.write("d/notifications/n1.json", #"{"userId": "alice", "type": "gift_received", "title": "Gift from Bob", "read": false, "createdAt": "2026-11-18T09:00:00.000Z"}"#)
        try s.write("d/notifications/n2.json", #"{"userId": "alice", "type": "friend_request", "title": "Bob wants to connect", "read": false, "createdAt": "2026-11-18T10:00:00.000Z"}"#)
        try s.write("d/notifications/n3.json", #"{"userId": "bob", "type": "gift_received", "title": "Old gift", "read": false, "createdAt": "2026-11-16T10:00:00.000Z"}"#)
        try s.write("d/notifications/n4.json", #"{"userId": "bob", "type": "gift_received", "title": "Seen gift", "read": true, "createdAt": "2026-11-18T10:00:00.000Z"}"#)
        try s.write("hearth.toml", """
            dataDir = "d"
            [jobs.daily-digest]
            command = ["node", "\(Self.repo)/functions/daily_digest.js"]
            reads = ["notifications", "users", "digests"]
            writes = ["digests"]
            schedule = "0 8 * * *"
            """)
        let run = try await hearth(s, ["run", "daily-digest", "--now", Self.now])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("Applied: 1 to create, 0 to update, 0 to delete; 1 push, 0 webhooks.\n"), "\(run.stdout)")
        #expect(s.read("d/digests/2026-11-18-alice.json") == """
            {
              "userId": "alice",
              "day": "2026-11-18",
              "count": 2,
              "createdAt": "2026-11-18T12:00:00.000Z"
            }

            """)
        let again = try await hearth(s, ["run", "daily-digest", "--now", "2026-11-18T13:00:00Z"])
        #expect(again.stdout == "No changes.\n")
    }

    @Test(.enabled(if: SystemdAnalyze.isInstalled, "systemd-analyze is not installed"))
    func exportedUnitsRunACommandJobWithWriteExecuteMemoryAllowedAndStillScoreAtMostOnePointFive() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        let r = try await hearth(s, ["export", "systemd", "--out", s.path + "/units", "--user", "hearth", "--group", "hearth"])
        #expect(r.status == 0, "\(r.stderr)")
        let function = try #require(s.read("units/hearth-expire-gigs.service"))
        let builtIn = try #require(s.read("units/hearth-weekly-bonus.service"))
        let daemon = try #require(s.read("units/hearth.service"))
        #expect(function.contains("\nMemoryDenyWriteExecute=no\n") && daemon.contains("\nMemoryDenyWriteExecute=no\n"))
        #expect(builtIn.contains("\nMemoryDenyWriteExecute=yes\n"))
        #expect(function.contains("ExecStart=") && function.contains(" run expire-gigs"))
        for unit in ["hearth-expire-gigs.service", "hearth.service"] {
            let score = try #require(try SystemdAnalyze.exposure(of: s.path + "/units/" + unit).score)
            #expect(score <= 1.5, "\(unit): \(score)")
        }
    }

    /// A command job's commit is the runner's: SIGKILLed anywhere in a run of expire-gigs, the
    /// data is afterwards exactly as before or exactly as after an uninterrupted run.
    @Test func aSigkillDuringACommandJobsRunLeavesAllBeforeOrAllAfter() async throws {
        let s = try TempDirectory("hearth-fn")
        defer { s.remove() }
        try Self.prepare(s)
        let iterations = Int(ProcessInfo.processInfo.environment["HEARTH_CRASH_ITERATIONS"] ?? "") ?? 40
        let reference = s.path + "/reference"
        try FileManager.default.copyItem(atPath: s.path + "/d", toPath: reference)
        // A slow commit (20 ms a step over its few files) so that many kills land inside it.
        var killer = KillDuringCommit(args: ["run", "expire-gigs", "--config", s.path + "/hearth.toml", "--now", Self.now])
        killer.environment = ["HEARTH_FAULT_COMMIT_STEP_DELAY_US": "20000"]
        _ = try await killer
            .run(pristine: s.path + "/d", reference: reference, scratch: s.path, iterations: iterations)
    }
}
