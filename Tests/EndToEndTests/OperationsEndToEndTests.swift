import Foundation
import Glibc
import Testing
import HearthTestSupport

/// Actions over the daemon's endpoint on the real binary (docs/operations/api.md): every route
/// with every role and error, the exact audit entries, the counters, and a real browser
/// (headless Chromium driven over the DevTools protocol) signing in, pausing with a note,
/// running now and seeing the run; forms without their CSRF token are refused.
@Suite("Operations end to end")
struct OperationsEndToEndTests {
    static let job = "leaderboard-rebuild"
    static let operate = "ops-token-0123456789abcdef0123"
    static let read = "read-token-abcdef0123456789abcd"

    /// A daemon with `[server]` on a free port, the two tokens (`ops` operate from the
    /// environment, `viewer` read from a file), `leaderboard-rebuild` every 6 hours (so only
    /// the runs a test asks for happen) and the other jobs disabled.
    static func startDaemon(extraServer: String = "", extraJobs: String = "", prepare: (TempDirectory) async throws -> Void = { _ in }) async throws -> MonitoringEndToEndTests.Daemon {
        let dir = try TempDirectory("hearth-operations")
        let seed = try await HearthProcess.run(["seed", "--out", "data", "--users", "20"], in: dir.path)
        try #require(seed.status == 0, "\(seed.stderr)")
        let list = try await HearthProcess.run(["list", "--data", "data", "--format", "json"], in: dir.path)
        let jobs = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["job"] as? String } ?? []
        try dir.write("viewer.token", read + "\n")
        chmod(dir.path + "/viewer.token", 0o600)
        var config = DaemonEndToEndTests.config(schedule: "every 6 hours", disabling: jobs.filter { $0 != job })
        config += extraJobs
        config += """
            [server]
            listen = "127.0.0.1:0"
            \(extraServer)
            [[server.tokens]]
            name = "ops"
            env = "HEARTH_OPS_TOKEN"
            role = "operate"
            [[server.tokens]]
            name = "viewer"
            file = "viewer.token"
            role = "read"

            """
        try dir.write("hearth.toml", config)
        try await prepare(dir)
        let running = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path, environment: ["HEARTH_OPS_TOKEN": operate])
        let stderr = StderrCollector(running.stderrPipe)
        try await stderr.waitFor("HTTP endpoint listening")
        let port = stderr.text.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5).prefix { $0.isNumber }) }
        return MonitoringEndToEndTests.Daemon(dir: dir, running: running, stderr: stderr, port: try #require(port, "no port in: \(stderr.text)"))
    }

    static func audit(_ dir: TempDirectory) async throws -> [[String: Any]] {
        let r = try await HearthProcess.run(["audit", "--config", "hearth.toml", "--limit", "100", "--format", "json"], in: dir.path)
        try #require(r.status == 0, "\(r.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// An audit entry without its time, as `[key: text]` (null: "null").
    static func summary(_ e: [String: Any]) -> [String: String] {
        var out: [String: String] = [:]
        for (k, v) in e where k != "time" { out[k] = v is NSNull ? "null" : "\(v)" }
        return out
    }

    static func entry(_ action: String, job: String?, note: String? = nil, outcome: String, token: String, target: String? = nil) -> [String: String] {
        [
            "action": action, "job": job ?? "null", "note": note ?? "null", "outcome": outcome, "via": "http", "user": "null", "sudoUser": "null",
            "token": token, "peer": "127.0.0.1", "target": target ?? "null",
        ]
    }

    /// `got` has `want`'s keys and values; `*` matches any value, a trailing `…` a prefix.
    static func matches(_ got: [String: String], _ want: [String: String]) -> Bool {
        guard Set(got.keys) == Set(want.keys) else { return false }
        return want.allSatisfy { k, v in
            guard let g = got[k] else { return false }
            if v == "*" { return g != "null" }
            if v.hasSuffix("…") { return g.hasPrefix(String(v.dropLast())) }
            return g == v
        }
    }

    @Test func everyActionRouteAnswersPerRoleAndErrorAndIsAudited() async throws {
        let d = try await Self.startDaemon { dir in try MonitoringEndToEndTests.writeDeadLetter(dir) }
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        let base = d.base
        let jobURL = base + "/jobs/\(Self.job)"

        // Probes answer without a token; reads need one once tokens are configured.
        #expect(try await HTTPProbe.get(base + "/healthz").status == 200)
        #expect(try await HTTPProbe.get(base + "/readyz").status == 200)
        for path in ["/", "/metrics", "/jobs/\(Self.job)", "/runs/x"] {
            #expect(try await HTTPProbe.get(base + path).status == 401, "\(path)")
            #expect(try await HTTPProbe.get(base + path, token: "wrong").status == 401, "\(path)")
        }
        #expect(try await HTTPProbe.get(base + "/", token: Self.read).status == 200)
        #expect(try await HTTPProbe.get(base + "/metrics", token: Self.read).status == 200)

        // 401 without a token, 403 with the read token, on every action.
        for (path, body) in [("/jobs/\(Self.job)/run", "{}"), ("/jobs/\(Self.job)/pause", "{\"note\": \"x\"}"), ("/jobs/\(Self.job)/resume", "{}"), ("/outbox/push-gift-1/retry", "{}")] {
            let none = try await HTTPSend.send("POST", base + path, json: body)
            #expect(none.status == 401, "\(path): \(none.body)")
            #expect(none.json["error"] as? String == "this action needs a token of role operate")
            #expect(none.json["fix"] as? String == "send Authorization: Bearer <token>, or sign in at /login")
            let viewer = try await HTTPSend.send("POST", base + path, token: Self.read, json: body)
            #expect(viewer.status == 403, "\(path): \(viewer.body)")
            #expect(viewer.json["error"] as? String == "token viewer has the role read; this action needs operate")
        }

        // 400: an unknown field, a bad parameter, a bad ?wait; 404: an unknown job.
        let unknownField = try await HTTPSend.send("POST", jobURL + "/pause", token: Self.operate, json: "{\"reason\": \"x\"}")
        #expect(unknownField.status == 400)
        #expect(unknownField.json["field"] as? String == "reason")
        #expect(unknownField.json["fix"] as? String == "accepted here: note, csrf")
        let badParam = try await HTTPSend.send("POST", jobURL + "/run", token: Self.operate, json: "{\"params\": {\"top\": 0}}")
        #expect(badParam.status == 400, "\(badParam.body)")
        #expect(badParam.json["field"] as? String == "params.top")
        #expect((badParam.json["error"] as? String)?.hasPrefix("parameter \"top\": invalid value \"0\"") == true, "\(badParam.body)")
        #expect(!badParam.body.contains("Swift") && !badParam.body.contains(".swift"))
        let badWait = try await HTTPSend.send("POST", jobURL + "/run?wait=2", token: Self.operate, json: "{}")
        #expect(badWait.status == 400)
        #expect(badWait.json["field"] as? String == "wait")
        let notJSON = try await HTTPSend.send("POST", jobURL + "/pause", token: Self.operate, json: "{not json")
        #expect(notJSON.status == 400)
        let unknownJob = try await HTTPSend.send("POST", base + "/jobs/no-such-job/pause", token: Self.operate, json: "{}")
        #expect(unknownJob.status == 404)
        #expect(unknownJob.json["error"] as? String == "unknown job \"no-such-job\"")
        #expect(try await HTTPSend.send("POST", base + "/jobs/no-such-job/run", token: Self.operate, json: "{}").status == 404)

        // Pause with a note; run refused while paused (409) unless forced.
        let pause = try await HTTPSend.send("POST", jobURL + "/pause", token: Self.operate, json: "{\"note\": \"rates change\"}")
        #expect(pause.status == 200, "\(pause.body)")
        #expect(pause.json["paused"] as? Bool == true)
        #expect(pause.json["changed"] as? Bool == true)
        let list = try await HearthProcess.run(["list", "--config", "hearth.toml"], in: d.dir.path)
        #expect(list.stdout.contains("paused: rates change"))
        let refused = try await HTTPSend.send("POST", jobURL + "/run", token: Self.operate, json: "{}")
        #expect(refused.status == 409)
        #expect(refused.json["error"] as? String == "\(Self.job) is paused (rates change)")
        #expect(refused.json["field"] as? String == "force")
        let forced = try await HTTPSend.send("POST", jobURL + "/run?wait=1", token: Self.operate, json: "{\"force\": true}")
        #expect(forced.status == 200, "\(forced.body)")
        #expect(forced.json["job"] as? String == Self.job)
        #expect(forced.json["dryRun"] as? Bool == false)

        // Resume; a run now answers 202 with its id and Location, and lands in the history.
        let resume = try await HTTPSend.send("POST", jobURL + "/resume", token: Self.operate)
        #expect(resume.status == 200, "\(resume.body)")
        #expect(resume.json["changed"] as? Bool == true)
        let accepted = try await HTTPSend.send("POST", jobURL + "/run", token: Self.operate, json: "{\"params\": {\"top\": 5}}")
        #expect(accepted.status == 202, "\(accepted.body)")
        let id = try #require(accepted.json["runId"] as? String)
        #expect(accepted.location == "/runs/\(id)")
        try await eventually("run \(id) recorded", timeout: .seconds(15), pollEvery: .milliseconds(200)) {
            try await MonitoringEndToEndTests.history(d.dir).contains { $0["runId"] as? String == id && $0["status"] as? String == "succeeded" }
        }
        let runPage = try await HTTPProbe.get(base + "/runs/\(id)", token: Self.read)
        #expect(runPage.status == 200)
        #expect(runPage.body.contains("run-now"))

        // A dry run over HTTP: its plan, and it is not the job's last result.
        let dry = try await HTTPSend.send("POST", jobURL + "/run?wait=1", token: Self.operate, json: "{\"dryRun\": true}")
        #expect(dry.status == 200, "\(dry.body)")
        #expect(dry.json["dryRun"] as? Bool == true)
        let listed = try await HearthProcess.run(["list", "--config", "hearth.toml", "--format", "json"], in: d.dir.path)
        let entry = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?.first { $0["job"] as? String == Self.job }
        let last = try #require(entry?["lastRun"] as? [String: Any])
        #expect(last["runId"] as? String == id)
        #expect(last["dryRun"] as? Bool == false)

        // A dead letter back to pending; again: it is pending (409); an unknown id: 404.
        let retry = try await HTTPSend.send("POST", base + "/outbox/push-gift-1/retry", token: Self.operate)
        #expect(retry.status == 200, "\(retry.body)")
        #expect(retry.json["state"] as? String == "pending")
        let unknownMessage = try await HTTPSend.send("POST", base + "/outbox/nothing-1/retry", token: Self.operate)
        #expect(unknownMessage.status == 404)

        // The job page: state, schedule, the chart, the runs with their trigger.
        let page = try await HTTPProbe.get(jobURL, token: Self.read)
        #expect(page.status == 200)
        #expect(page.body.contains("<svg"))
        #expect(page.body.contains("every 6 hours"))
        #expect(page.body.contains("Failure streak"))
        #expect(page.body.contains("<td>Triggers</td><td class=\"wrap\">its schedule</td>"))
        #expect(page.body.contains(">run-now<"))
        #expect(page.body.contains("Signed in as viewer (read only)"))
        #expect(!page.body.contains("<form"))

        // Exactly these entries, newest first ("*": a run id; "…": the text goes on).
        let entries = try await Self.audit(d.dir).map(Self.summary)
        let paused = "refused: \(Self.job) is paused (rates change)"
        let expected: [[String: String]] = [
            Self.entry("outbox-retry", job: nil, outcome: "refused: no dead letter has the id \"nothing-1\"", token: "ops", target: "nothing-1"),
            Self.entry("outbox-retry", job: nil, outcome: "ok", token: "ops", target: "push-gift-1"),
            Self.entry("run", job: Self.job, note: "dry run", outcome: "ok", token: "ops", target: "*"),
            Self.entry("run", job: Self.job, outcome: "ok", token: "ops", target: id),
            Self.entry("resume", job: Self.job, outcome: "ok", token: "ops"),
            Self.entry("run", job: Self.job, note: "forced while paused", outcome: "ok", token: "ops", target: "*"),
            Self.entry("run", job: Self.job, outcome: paused, token: "ops"),
            Self.entry("pause", job: Self.job, note: "rates change", outcome: "ok", token: "ops"),
            Self.entry("run", job: "no-such-job", outcome: "refused: unknown job \"no-such-job\"", token: "ops"),
            Self.entry("pause", job: "no-such-job", outcome: "refused: unknown job \"no-such-job\"", token: "ops"),
            Self.entry("pause", job: Self.job, outcome: "refused: the body is not a JSON object", token: "ops"),
            Self.entry("run", job: Self.job, outcome: "refused: wait=2 is not accepted", token: "ops"),
            Self.entry("run", job: Self.job, outcome: "refused: parameter \"top\": invalid value \"0\"…", token: "ops"),
            Self.entry("pause", job: Self.job, outcome: "refused: unknown field \"reason\"", token: "ops"),
            Self.entry("outbox-retry", job: nil, outcome: "refused: token viewer has the role read; this action needs operate", token: "viewer", target: "push-gift-1"),
            Self.entry("resume", job: Self.job, outcome: "refused: token viewer has the role read; this action needs operate", token: "viewer"),
            Self.entry("pause", job: Self.job, outcome: "refused: token viewer has the role read; this action needs operate", token: "viewer"),
            Self.entry("run", job: Self.job, outcome: "refused: token viewer has the role read; this action needs operate", token: "viewer"),
        ]
        #expect(entries.count == expected.count, "\(entries)")
        for (got, want) in zip(entries, expected) {
            #expect(Self.matches(got, want), "\(got) is not \(want)")
        }

        let metrics = try await MonitoringEndToEndTests.parse(try await HTTPProbe.get(base + "/metrics", token: Self.read).body)
        for (action, n) in [("pause", 1.0), ("resume", 1), ("run", 3), ("outbox-retry", 1), ("backfill", 0), ("data-import", 0)] {
            #expect(MonitoringEndToEndTests.value(metrics, "hearth_actions", "hearth_actions_total", ["action": action]) == n, "\(action)")
        }

        // The CLI's actions land in the same log, under the Unix user.
        let cliPause = try await HearthProcess.run(["pause", Self.job, "--config", "hearth.toml", "--note", "from the shell"], in: d.dir.path, environment: ["SUDO_USER": "alice"])
        #expect(cliPause.status == 0, "\(cliPause.stderr)")
        let newest = try #require(try await Self.audit(d.dir).first.map(Self.summary))
        #expect(newest["action"] == "pause" && newest["via"] == "cli" && newest["note"] == "from the shell" && newest["sudoUser"] == "alice" && newest["outcome"] == "ok")
        #expect(newest["user"] == (getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? ""))
        let text = try await HearthProcess.run(["audit", "--config", "hearth.toml", "--job", Self.job, "--limit", "1"], in: d.dir.path)
        #expect(text.stdout.contains("cli: \(newest["user"] ?? "") (sudo from alice)"))
        let mode = try FileManager.default.attributesOfItem(atPath: d.dir.path + "/data/.hearth/audit.jsonl")[.posixPermissions] as? Int
        #expect(mode == 0o640)
        try await d.stop()
    }

    /// Runs the steps in headless Chromium (Tests/Servers/cdp_browser.py); one result per step.
    static func browse(_ steps: [[String: Any]], in dir: TempDirectory) async throws -> [Any] {
        guard let browser = ExternalTool.find(["chromium", "chromium-browser"]) else { throw ExternalTool.Missing(what: "chromium (Debian's chromium package)") }
        guard let python = ExternalTool.find(["python3"]) else { throw ExternalTool.Missing(what: "python3") }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Servers/cdp_browser.py").path
        let input = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        let r = try await ExternalTool.run(python, [script, browser, dir.path + "/chromium-profile"], stdin: input)
        try #require(r.status == 0, "the browser script failed: \(r.stderr.suffix(3000))")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [Any])
    }

    static func text(_ result: Any) -> String { (result as? [String: Any])?["text"] as? String ?? "" }
    static func url(_ result: Any) -> String { (result as? [String: Any])?["url"] as? String ?? "" }

    @Test func aBrowserSignsInPausesWithANoteSeesItPausedRunsNowAndSeesTheRun() async throws {
        let d = try await Self.startDaemon()
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        let jobURL = d.base + "/jobs/\(Self.job)"
        let results = try await Self.browse([
            ["go": d.base + "/"],
            ["go": d.base + "/login"],
            ["fill": "input[name=token]", "value": Self.operate],
            ["click": "form[action='/login'] button"],
            ["eval": "document.cookie"],
            ["go": jobURL],
            ["fill": "form[action$='/pause'] input[name=note]", "value": "waiting for the new rates"],
            ["click": "form[action$='/pause'] button"],
            ["click": "form[action$='/run'] button"],
            ["waitText": "run-now", "go": jobURL, "timeout": 30],
            ["eval": "(() => { document.querySelector(\"form[action$='/resume'] input[name=csrf]\").remove(); return true })()"],
            ["click": "form[action$='/resume'] button"],
        ], in: d.dir)
        try #require(results.count == 12)
        // Not signed in: 401 with a link to sign in.
        #expect(Self.text(results[0]).contains("This endpoint needs a token. Sign in."))
        // Signed in: the status page, with the forms; the session cookie is HttpOnly.
        #expect(Self.url(results[3]) == d.base + "/")
        #expect(Self.text(results[3]).contains("signed in as ops"))
        #expect(results[4] as? String == "")
        // Paused with the note, seen on the job page.
        #expect(Self.url(results[7]) == jobURL)
        #expect(Self.text(results[7]).contains("paused since"))
        #expect(Self.text(results[7]).contains("waiting for the new rates"))
        #expect(Self.text(results[7]).contains("Run now (although paused)"))
        // Run now: its run page, then the job page lists the run.
        #expect(Self.url(results[8]).hasPrefix(d.base + "/runs/"))
        let runID = String(Self.url(results[8]).dropFirst((d.base + "/runs/").count))
        #expect(Self.text(results[9]).contains("run-now"))
        let jobHTML = (results[9] as? [String: Any])?["html"] as? String ?? ""
        #expect(jobHTML.contains("/runs/\(runID)"))
        let history = try await MonitoringEndToEndTests.history(d.dir)
        #expect(history.contains { $0["runId"] as? String == runID && $0["trigger"] as? String == "run-now" && $0["status"] as? String == "succeeded" })
        // The resume form without its CSRF token: refused, still paused.
        #expect(Self.text(results[11]).contains("the form's CSRF token is missing or wrong"))
        let pauses = try await HearthProcess.run(["list", "--config", "hearth.toml"], in: d.dir.path)
        #expect(pauses.stdout.contains("paused: waiting for the new rates"))

        let audit = try await Self.audit(d.dir).map(Self.summary)
        #expect(audit.map { $0["action"] ?? "" } == ["resume", "run", "pause"])
        #expect(audit.map { $0["outcome"] ?? "" } == ["refused: the form's CSRF token is missing or wrong", "ok", "ok"])
        #expect(audit[1]["target"] == runID && audit[1]["note"] == "forced while paused")
        try await d.stop()
    }

    @Test func aFormPostWithoutTheCSRFTokenIsRefusedAndTheSessionCookieIsStrict() async throws {
        let d = try await Self.startDaemon()
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        let wrong = try await HTTPSend.send("POST", d.base + "/login", form: "token=nope")
        #expect(wrong.status == 401)
        #expect(wrong.setCookie.isEmpty)
        let login = try await HTTPSend.send("POST", d.base + "/login", form: "token=" + Self.operate)
        #expect(login.status == 303)
        #expect(login.location == "/")
        #expect(login.setCookie.hasPrefix("hearth_session="))
        #expect(login.setCookie.contains("; HttpOnly") && login.setCookie.contains("; SameSite=Strict") && login.setCookie.contains("; Path=/"))
        let cookie = String(login.setCookie.prefix { $0 != ";" })
        // The page carries the session's CSRF token in every form.
        let page = try await HTTPSend.send("GET", d.base + "/jobs/\(Self.job)", cookie: cookie)
        let marker = "name=\"csrf\" value=\""
        let at = try #require(page.body.range(of: marker), "no CSRF field in: \(page.body)")
        let csrf = String(page.body[at.upperBound...].prefix { $0 != "\"" })
        #expect(csrf.count == 64)
        for form in ["note=x", "note=x&csrf=", "note=x&csrf=" + String(repeating: "0", count: 64)] {
            let r = try await HTTPSend.send("POST", d.base + "/jobs/\(Self.job)/pause", form: form, cookie: cookie)
            #expect(r.status == 403, "\(form)")
            #expect(r.body.contains("the form&#39;s CSRF token is missing or wrong"))
        }
        let ok = try await HTTPSend.send("POST", d.base + "/jobs/\(Self.job)/pause", form: "note=x&csrf=" + csrf, cookie: cookie)
        #expect(ok.status == 303)
        #expect(ok.location == "/jobs/\(Self.job)")
        // A JSON action with the cookie needs the token in X-CSRF-Token too.
        let json = try await HTTPSend.send("POST", d.base + "/jobs/\(Self.job)/resume", json: "{}", cookie: cookie)
        #expect(json.status == 403)
        let header = try await HTTPSend.send("POST", d.base + "/jobs/\(Self.job)/resume", json: "{}", cookie: cookie, headers: ["X-CSRF-Token": csrf])
        #expect(header.status == 200)
        // Signed out: the cookie is worth nothing.
        let logout = try await HTTPSend.send("POST", d.base + "/logout", form: "csrf=" + csrf, cookie: cookie)
        #expect(logout.status == 303)
        #expect(try await HTTPSend.send("GET", d.base + "/", cookie: cookie).status == 401)
        try await d.stop()
        // The whole log, read to its end once the daemon is gone: no token, CSRF token or cookie in it.
        let log = try await d.stderr.untilEnd()
        #expect(!log.contains(Self.operate) && !log.contains(csrf) && !log.contains(cookie))
    }

    @Test func healthNeedsTokenClosesTheProbesAndWithoutTokensActionsAreRefused() async throws {
        let d = try await Self.startDaemon(extraServer: "healthNeedsToken = true")
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        #expect(try await HTTPProbe.get(d.base + "/healthz").status == 401)
        #expect(try await HTTPProbe.get(d.base + "/readyz").status == 401)
        #expect(try await HTTPProbe.get(d.base + "/healthz", token: Self.read).status == 200)
        try await d.stop()

        // No token configured: reads are open, actions are refused (loopback included).
        let open = try await MonitoringEndToEndTests.startDaemon()
        defer { if open.running.process.isRunning { kill(open.running.process.processIdentifier, SIGKILL) }; open.dir.remove() }
        #expect(try await HTTPProbe.get(open.base + "/").status == 200)
        let refused = try await HTTPSend.send("POST", open.base + "/jobs/\(Self.job)/pause", json: "{}")
        #expect(refused.status == 401)
        #expect(refused.json["error"] as? String == "actions need a token of role operate, and none is configured")
        try await open.stop()
    }

    @Test(arguments: [
        ("role = \"admin\"", "hearth.toml:7: [[server.tokens]] ops: role = \"admin\"; accepted: \"read\" or \"operate\""),
        ("", "hearth.toml:4: server.tokens.role is required: \"read\" (pages, metrics) or \"operate\" (also run, pause, resume, retry)"),
        ("role = \"read\"\nfile = \"t\"", "hearth.toml:4: [[server.tokens]] ops: set exactly one of file (a file holding the token) or env (an environment variable holding it)"),
    ])
    func badTokenEntriesAreConfigErrorsNamingTheLineAndTheFix(_ entry: String, _ message: String) async throws {
        let dir = try TempDirectory("hearth-operations")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        try dir.write("hearth.toml", "dataDir = \"data\"\n[server]\nlisten = \"127.0.0.1:0\"\n[[server.tokens]]\nname = \"ops\"\nenv = \"X\"\n\(entry)\n")
        let r = try await HearthProcess.run(["daemon", "--config", "hearth.toml"], in: dir.path)
        #expect(r.status == 78)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    @Test func aFailedCommandJobRunNowAnswersItsRecordAndItsRunPageShowsTheStderrTail() async throws {
        let script = "import sys; sys.stdin.read(); print('first line', file=sys.stderr); print('database of gigs is on fire', file=sys.stderr); sys.exit(3)"
        let d = try await Self.startDaemon(extraJobs: """
            [jobs.crashes]
            command = ["python3", "-c", \(tomlString(script))]
            reads = ["users"]
            writes = ["users"]
            schedule = "0 0 1 1 *"
            retries = 1
            backoff = { min = "1s", max = "1s" }

            """)
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        let r = try await HTTPSend.send("POST", d.base + "/jobs/crashes/run?wait=1", token: Self.operate, json: "{}")
        // Once its retry failed too: what `hearth run --format json` prints for a failed run,
        // the record (of the last attempt).
        #expect(r.status == 200, "\(r.body)")
        #expect(r.json["status"] as? String == "failed")
        #expect(r.json["trigger"] as? String == "retry")
        #expect(r.json["attempt"] as? Int == 2)
        #expect(r.json["error"] as? String == "function crashes exited with status 3; nothing was committed; its last stderr lines:\nfirst line\ndatabase of gigs is on fire")
        let id = try #require(r.json["runId"] as? String)
        let page = try await HTTPProbe.get(d.base + "/runs/\(id)", token: Self.read)
        #expect(page.body.contains("<h2>stderr (last lines)</h2><pre class=\"stderr\">first line\ndatabase of gigs is on fire</pre>"), "\(page.body)")
        let job = try await HTTPProbe.get(d.base + "/jobs/crashes", token: Self.read)
        #expect(job.body.contains("2 failed runs in a row"), "\(job.body)")
        let history = try await HearthProcess.run(["history", "crashes", "--config", "hearth.toml", "--format", "json"], in: d.dir.path)
        let records = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]]) ?? []
        #expect(records.map { "\($0["trigger"] ?? "") \($0["attempt"] ?? "")" } == ["retry 2", "run-now 1"])
        try await d.stop()
    }

    @Test func onPostgreSQLRunNowPauseAndResumeWorkAndTheAuditLogIsATable() async throws {
        let temp = try TempDirectory("hearth-operations-pg")
        defer { temp.remove() }
        let url = try await PostgresServer.shared().database()
        let disabled = PostgresDaemonsTests.others.map { "[jobs.\($0)]\nenabled = false\n" }.joined()
        try temp.write("pg.toml", """
            dataDir = "data"
            [store]
            kind = "postgres"
            urlEnv = "HEARTH_TEST_PG"
            [jobs.xp-award]
            schedule = "0 0 1 1 *"
            \(disabled)
            [server]
            listen = "127.0.0.1:0"
            [[server.tokens]]
            name = "ops"
            env = "HEARTH_OPS_TOKEN"
            role = "operate"

            """)
        let config = ["--config", temp.path + "/pg.toml"]
        let environment = ["HEARTH_TEST_PG": url, "HEARTH_OPS_TOKEN": Self.operate]
        #expect(try await HearthProcess.run(["seed", "--out", temp.path + "/data", "--users", "10", "--seed", "3"]).status == 0)
        #expect(try await HearthProcess.run(["migrate"] + config, environment: environment).status == 0)
        let imported = try await HearthProcess.run(["data", "import", temp.path + "/data"] + config, environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let running = try HearthProcess.start(["daemon"] + config, environment: environment)
        let stderr = StderrCollector(running.stderrPipe)
        defer { if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) } }
        try await stderr.waitFor("HTTP endpoint listening")
        let port = try #require(stderr.text.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5).prefix { $0.isNumber }) })
        let job = "http://127.0.0.1:\(port)/jobs/xp-award"

        #expect(try await HTTPSend.send("POST", job + "/pause", token: Self.operate, json: "{\"note\": \"on pg\"}").status == 200)
        #expect(try await HTTPSend.send("POST", job + "/run", token: Self.operate, json: "{}").status == 409)
        let run = try await HTTPSend.send("POST", job + "/run?wait=1", token: Self.operate, json: "{\"force\": true}")
        #expect(run.status == 200, "\(run.body)")
        #expect(run.json["job"] as? String == "xp-award")
        #expect(try await HTTPSend.send("POST", job + "/resume", token: Self.operate).status == 200)
        // The job page lists the triggers xp-award declares.
        let page = try await HTTPSend.send("GET", job, token: Self.operate)
        #expect(page.body.contains("its schedule; writes to <code>trades</code>, <code>userChallenges</code>, <code>collaborations</code>"), "\(page.body)")

        let history = try await HearthProcess.run(["history", "xp-award", "--format", "json"] + config, environment: environment)
        let records = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]]) ?? []
        // The run asked for, and the run at start every job with triggers has (docs/triggers.md).
        #expect(records.map { "\($0["trigger"] ?? "") \($0["status"] ?? "")" }.sorted() == ["run-now succeeded", "write succeeded"])
        let audit = try await HearthProcess.run(["audit", "--format", "json"] + config, environment: environment)
        let entries = ((try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]]) ?? []).map(Self.summary)
        #expect(entries.map { "\($0["action"] ?? "") \($0["via"] ?? "") \($0["token"] ?? "") \($0["outcome"] ?? "")" } == [
            "resume http ops ok", "run http ops ok", "run http ops refused: xp-award is paused (on pg)", "pause http ops ok", "data-import cli null ok",
        ])
        #expect(entries.last?["target"] == temp.path + "/data")
        #expect(entries.last?["note"]?.hasSuffix(" documents") == true)
        kill(running.process.processIdentifier, SIGTERM)
        #expect(try await DaemonEndToEndTests.waitForExit(running.process, timeout: 15))
    }
}

/// `text` as a TOML basic string.
func tomlString(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}
