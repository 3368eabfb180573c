import Foundation
import Testing
import HearthTestSupport

/// The daemon's HTTP endpoint (docs/operations/monitoring.md) on the real binary: `/metrics`
/// read by a real Prometheus parser (Python's `prometheus_client`), the status page in a real
/// browser (headless Debian `chromium`), the token, and pause / resume from the CLI.
@Suite("Monitoring end to end")
struct MonitoringEndToEndTests {
    static let job = "leaderboard-rebuild"
    /// A device token that must appear on the page only as `…123456`.
    static let token = "fcm-token-SECRETSECRET123456"

    /// Every family of docs/operations/monitoring.md#metrics, as the parser names it, with its type.
    static let families: [String: String] = [
        "hearth_job_runs": "counter", "hearth_job_duration_seconds": "histogram",
        "hearth_job_last_success_timestamp_seconds": "gauge", "hearth_job_next_run_timestamp_seconds": "gauge",
        "hearth_job_running": "gauge", "hearth_job_paused": "gauge", "hearth_schedule_missed": "counter",
        "hearth_documents_written": "counter", "hearth_outbox_pending": "gauge", "hearth_outbox_dead": "gauge",
        "hearth_outbox_deliveries": "counter", "hearth_outbox_delivery_seconds": "histogram",
    ]

    struct Daemon {
        var dir: TempDirectory
        var running: HearthProcess.Running
        var stderr: StderrCollector
        var port: Int
        var base: String { "http://127.0.0.1:\(port)" }

        func stop() async throws {
            kill(running.process.processIdentifier, SIGTERM)
            let exited = try await DaemonEndToEndTests.waitForExit(running.process, timeout: 15)
            #expect(exited, "no exit within 15 s of SIGTERM; stderr: \(stderr.text)")
            #expect(running.process.terminationStatus == 0, "stderr: \(stderr.text)")
        }
    }

    /// Seeds a data directory, writes a config with `[server]` on a free port (port 0) and
    /// only `leaderboard-rebuild` enabled (every 2 s), runs `prepare`, starts the daemon.
    static func startDaemon(server: String = "listen = \"127.0.0.1:0\"", environment: [String: String] = [:], prepare: (TempDirectory) async throws -> Void = { _ in }) async throws -> Daemon {
        let dir = try TempDirectory("hearth-monitoring")
        let seed = try await HearthProcess.run(["seed", "--out", "data", "--users", "20"], in: dir.path)
        try #require(seed.status == 0, "\(seed.stderr)")
        let list = try await HearthProcess.run(["list", "--data", "data", "--format", "json"], in: dir.path)
        let jobs = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["job"] as? String } ?? []
        var config = DaemonEndToEndTests.config(schedule: "every 2 seconds", disabling: jobs.filter { $0 != job })
        config += "[server]\n\(server)\n"
        try dir.write("hearth.toml", config)
        try await prepare(dir)
        let running = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path, environment: environment)
        let stderr = StderrCollector(running.stderrPipe)
        try await stderr.waitFor("HTTP endpoint listening")
        let port = stderr.text.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5).prefix { $0.isNumber }) }
        return Daemon(dir: dir, running: running, stderr: stderr, port: try #require(port, "no port in: \(stderr.text)"))
    }

    struct Family: Decodable {
        var type: String
        var samples: [Sample]
    }

    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double

        init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            name = try c.decode(String.self)
            labels = try c.decode([String: String].self)
            value = try c.decode(Double.self)
        }
    }

    /// Parses the exposition with `prometheus_client.parser.text_string_to_metric_families`.
    static func parse(_ text: String) async throws -> [String: Family] {
        let script = """
            import json, sys
            try:
                from prometheus_client.parser import text_string_to_metric_families
            except ImportError:
                print("python3's prometheus_client (pip install prometheus_client)", file=sys.stderr)
                sys.exit(3)
            out = {}
            for f in text_string_to_metric_families(sys.stdin.read()):
                out[f.name] = {"type": f.type, "samples": [[s.name, s.labels, s.value] for s in f.samples]}
            print(json.dumps(out))
            """
        let r = try await ExternalTool.python(script, stdin: text)
        try #require(r.status == 0, "the Prometheus parser rejected /metrics: \(r.stderr)")
        return try JSONDecoder().decode([String: Family].self, from: Data(r.stdout.utf8))
    }

    static func value(_ families: [String: Family], _ family: String, _ sample: String, _ labels: [String: String]) -> Double? {
        families[family]?.samples.first { s in s.name == sample && labels.allSatisfy { k, v in s.labels[k] == v } }?.value
    }

    static func scrape(_ d: Daemon) async throws -> [String: Family] {
        let r = try await HTTPProbe.get(d.base + "/metrics")
        try #require(r.status == 200, "GET /metrics: \(r.status) \(r.body)")
        #expect(r.contentType.hasPrefix("text/plain; version=0.0.4"))
        return try await parse(r.body)
    }

    static func history(_ dir: TempDirectory) async throws -> [[String: Any]] {
        let r = try await HearthProcess.run(["history", job, "--config", "hearth.toml", "--limit", "1000", "--format", "json"], in: dir.path)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    @Test func metricsParseAsPrometheusTextAndCountersMoveByTheRunsMadeWhilePauseAndResumeComeFromTheCLI() async throws {
        let d = try await Self.startDaemon { dir in
            let pause = try await HearthProcess.run(["pause", Self.job, "--config", "hearth.toml", "--note", "before the test"], in: dir.path)
            try #require(pause.status == 0, "\(pause.stderr)")
        }
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        let labels = ["job": Self.job, "status": "succeeded", "trigger": "schedule"]

        // Paused from the start: every family is there, with its type, and nothing ran.
        let before = try await Self.scrape(d)
        for (name, type) in Self.families {
            #expect(before[name]?.type == type, "family \(name): \(before[name]?.type ?? "missing")")
        }
        #expect(Self.value(before, "hearth_job_runs", "hearth_job_runs_total", labels) == 0)
        #expect(Self.value(before, "hearth_job_paused", "hearth_job_paused", ["job": Self.job]) == 1)
        #expect(Self.value(before, "hearth_outbox_pending", "hearth_outbox_pending", ["kind": "push"]) == 0)

        // Resumed: it runs; paused again: it stops (picked up within a second each time).
        let resume = try await HearthProcess.run(["resume", Self.job, "--config", "hearth.toml"], in: d.dir.path)
        #expect(resume.stdout.contains("resumed"))
        try await eventually("a succeeded run", timeout: .seconds(15), pollEvery: .milliseconds(200)) { try await Self.history(d.dir).contains { $0["status"] as? String == "succeeded" } }
        _ = try await HearthProcess.run(["pause", Self.job, "--config", "hearth.toml"], in: d.dir.path)
        var after: [String: Family] = [:]
        try await eventually("the pause to show in /metrics with no run going", timeout: .seconds(15), pollEvery: .milliseconds(200)) {
            after = try await Self.scrape(d)
            return Self.value(after, "hearth_job_paused", "hearth_job_paused", ["job": Self.job]) == 1
                && Self.value(after, "hearth_job_running", "hearth_job_running", ["job": Self.job]) == 0
        }
        try await eventually("a slot skipped while paused", timeout: .seconds(15), pollEvery: .milliseconds(200)) { try await Self.history(d.dir).contains { $0["status"] as? String == "skipped-paused" } }
        let records = try await Self.history(d.dir)
        after = try await Self.scrape(d)
        let skipped = records.filter { $0["status"] as? String == "skipped-paused" }
        let succeeded = records.filter { $0["status"] as? String == "succeeded" }
        func count(_ key: String) -> Double {
            Double(succeeded.compactMap { ($0["counts"] as? [String: Any])?[key] as? Int }.reduce(0, +))
        }
        #expect(!succeeded.isEmpty)
        #expect(Self.value(after, "hearth_job_runs", "hearth_job_runs_total", labels) == Double(succeeded.count))
        #expect(Self.value(after, "hearth_job_duration_seconds", "hearth_job_duration_seconds_count", ["job": Self.job]) == Double(succeeded.count))
        #expect(Self.value(after, "hearth_documents_written", "hearth_documents_written_total", ["job": Self.job, "action": "update"]) == count("updated"))
        #expect(Self.value(after, "hearth_documents_written", "hearth_documents_written_total", ["job": Self.job, "action": "create"]) == count("created"))
        #expect((Self.value(after, "hearth_job_last_success_timestamp_seconds", "hearth_job_last_success_timestamp_seconds", ["job": Self.job]) ?? 0) > 1.7e9)
        #expect((Self.value(after, "hearth_schedule_missed", "hearth_schedule_missed_total", ["job": Self.job, "reason": "paused"]) ?? 0) >= Double(skipped.count))
        #expect(skipped.allSatisfy { $0["trigger"] as? String == "schedule" })
        let buckets = after["hearth_job_duration_seconds"]?.samples.filter { $0.name.hasSuffix("_bucket") }.compactMap { $0.labels["le"] } ?? []
        #expect(buckets.contains("3600.0"))
        // Only jobs, statuses, triggers, reasons, actions, kinds and buckets as labels.
        let labelNames = Set(after.values.flatMap { $0.samples.flatMap { $0.labels.keys } })
        #expect(labelNames.isSubset(of: ["job", "status", "trigger", "reason", "action", "kind", "result", "le"]))

        // `hearth list` shows the pause; `hearth run` by hand still works, with a warning.
        let list = try await HearthProcess.run(["list", "--config", "hearth.toml"], in: d.dir.path)
        #expect(list.stdout.contains("paused"))
        let run = try await HearthProcess.run(["run", Self.job, "--config", "hearth.toml"], in: d.dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: \(Self.job) is paused"))

        let health = try await HTTPProbe.get(d.base + "/healthz")
        #expect(health.status == 200)
        let ready = try await HTTPProbe.get(d.base + "/readyz")
        #expect(ready.status == 200, "\(ready.body)")
        try await d.stop()
    }

    /// A dead letter with a device token, as a failed push leaves it.
    static func writeDeadLetter(_ dir: TempDirectory) throws {
        try dir.write("data/.hearth/outbox/dead/push-gift-1.json", """
            {"id": "push-gift-1", "kind": "push", "recipient": "u00001", "title": "Gift received",
             "payload": {"userId": "u00001", "tokens": ["\(token)"], "title": "Gift received", "body": "<b>5 points</b>", "data": {}},
             "job": "gift-settle", "runId": "20261124T080000000Z-0001", "createdAt": "2026-11-24T08:00:00.000Z", "attempts": 5,
             "lastError": "FCM answered 400 INVALID_ARGUMENT for \(token)", "reason": "gave up after 5 attempts; last error: FCM answered 400 INVALID_ARGUMENT for \(token)",
             "finishedAt": "2026-11-24T08:10:00.000Z"}
            """)
    }

    static func chromium(_ args: [String], in dir: TempDirectory) async throws -> ExternalTool.Result {
        guard let browser = ExternalTool.find(["chromium", "chromium-browser"]) else { throw ExternalTool.Missing(what: "chromium (Debian's chromium package)") }
        let profile = dir.path + "/chromium-profile"
        let r = try await ExternalTool.run(browser, [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
            "--user-data-dir=\(profile)",
        ] + args)
        try #require(r.status == 0, "chromium failed: \(r.stderr.suffix(2000))")
        return r
    }

    @Test func theStatusPageAndARunPageRenderInARealBrowserWithTokensRedacted() async throws {
        let d = try await Self.startDaemon { dir in try Self.writeDeadLetter(dir) }
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        try await eventually("a succeeded run", timeout: .seconds(15), pollEvery: .milliseconds(200)) { try await Self.history(d.dir).contains { $0["status"] as? String == "succeeded" } }

        let index = try await Self.chromium(["--dump-dom", d.base + "/"], in: d.dir).stdout
        #expect(index.contains("<title>Hearth status</title>"))
        #expect(index.contains(Self.job))
        #expect(index.contains("weekly-bonus"))
        #expect(index.contains(">succeeded<"))
        #expect(index.contains("…123456"))
        #expect(!index.contains("SECRETSECRET"))
        #expect(index.contains("name=\"viewport\""))
        #expect(!index.contains("<script"))
        #expect(!index.contains("<b>5 points</b>"))

        let screenshot = d.dir.path + "/status-page.png"
        _ = try await Self.chromium(["--screenshot=\(screenshot)", "--window-size=800,1000", d.base + "/"], in: d.dir)
        let size = (try? FileManager.default.attributesOfItem(atPath: screenshot)[.size] as? Int) ?? 0
        #expect(size > 1000, "no screenshot at \(screenshot)")

        // The first run link leads to its page: the record and the plan report.
        let marker = "href=\"/runs/"
        let start = try #require(index.range(of: marker), "no run link in the page")
        let id = String(index[start.upperBound...].prefix { $0 != "\"" })
        let run = try await Self.chromium(["--dump-dom", d.base + "/runs/" + id], in: d.dir).stdout
        #expect(run.contains(id))
        #expect(run.contains("Plan report"))
        #expect(run.contains("&quot;runId&quot;") || run.contains("\"runId\""))
        let missing = try await HTTPProbe.get(d.base + "/runs/no-such-run")
        #expect(missing.status == 404)
        try await d.stop()
    }

    @Test func aNonLoopbackListenerWithoutATokenRefusesToStartWithExit78() async throws {
        let dir = try TempDirectory("hearth-monitoring")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        try dir.write("hearth.toml", "dataDir = \"data\"\n[server]\nlisten = \"0.0.0.0:9464\"\n")
        let r = try await HearthProcess.run(["daemon", "--config", "hearth.toml"], in: dir.path)
        #expect(r.status == 78)
        #expect(r.stderr.contains("hearth.toml:3: [server] listen = \"0.0.0.0:9464\" is not a loopback address"))
        #expect(r.stderr.contains("tokenFile"))
    }

    @Test func withATokenRequestsWithoutTheRightBearerGet401AndNothingElse() async throws {
        let secret = "test-token-0123456789abcdef"
        let d = try await Self.startDaemon(server: "listen = \"0.0.0.0:0\"\ntokenEnv = \"HEARTH_TEST_TOKEN\"", environment: ["HEARTH_TEST_TOKEN": secret])
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        // Probes answer without a token (docs/operations/monitoring.md#tokens-and-roles).
        #expect(try await HTTPProbe.get(d.base + "/healthz").status == 200)
        for path in ["/", "/metrics", "/jobs/x", "/runs/x", "/nothing-here"] {
            for token in [nil, "wrong", secret + "x", String(secret.dropLast())] {
                let r = try await HTTPProbe.get(d.base + path, token: token)
                #expect(r.status == 401, "\(path) with \(token ?? "no token")")
                #expect(r.body == "unauthorized\n")
            }
        }
        let ok = try await HTTPProbe.get(d.base + "/metrics", token: secret)
        #expect(ok.status == 200)
        #expect(ok.body.contains("hearth_job_runs_total"))
        let page = try await HTTPProbe.get(d.base + "/", token: secret)
        #expect(page.status == 200)

        // The data directory gone: not ready, saying why (503), and the job's next slot (every
        // 2 s) fails without recreating it; back: ready again.
        try FileManager.default.moveItem(atPath: d.dir.path + "/data", toPath: d.dir.path + "/data-away")
        try await d.stderr.waitFor("Hearth does not recreate it")
        #expect(!FileManager.default.fileExists(atPath: d.dir.path + "/data"))
        let notReady = try await HTTPProbe.get(d.base + "/readyz", token: secret)
        #expect(notReady.status == 503)
        #expect(notReady.body.contains("\"not ready\""))
        #expect(notReady.body.contains("the data backend is unreachable"))
        try FileManager.default.moveItem(atPath: d.dir.path + "/data-away", toPath: d.dir.path + "/data")
        let ready = try await HTTPProbe.get(d.base + "/readyz", token: secret)
        #expect(ready.status == 200, "\(ready.body)")
        try await d.stop()
    }
}
