import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import HearthHTTP
import Jobs
import Logging
import Testing

/// `gig-quality-score` with an external scorer: real HTTP through ``CurlHTTPClient`` to
/// `Tests/Servers/gig_scorer.py`, started on 127.0.0.1 by each test and killed after.
@Suite("gig-quality-score: external scorer")
struct GigScorerTests {
    static let T = "2026-11-18T12:00:00Z"

    /// A full-marks gig by the rubric (100, high), as in `GigQualityScoreTests`.
    static func gig(_ id: String, _ extra: String = "") -> String {
        let words = (0..<90).map { ["join", "our", "friendly", "team"][$0 % 4] }.joined(separator: " ")
        return #"{"title": "Barista, morning shift", "description": "\#(words)", "company": "Badger Brew \#(id)", "location": "Madison, WI", "isRemote": false, "payMin": 15, "postedAt": "2026-11-17T12:00:00Z", "source": "internal", "status": "active"\#(extra)}"#
    }

    static let keys = "keys:id,title,description,company,location,isRemote,payMin,postedAt,source,status"

    /// The stand-in scorer process.
    final class ScorerServer {
        let process: Process
        let port: Int
        var base: String { "http://127.0.0.1:\(port)" }

        /// Starts the server; the blocking wait for its port happens off the cooperative pool.
        static func start() async throws -> ScorerServer {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<ScorerServer, any Error>) in
                Thread.detachNewThread {
                    c.resume(with: Result { try ScorerServer() })
                }
            }
        }

        private init() throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Servers/gig_scorer.py").path
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            // The script prints its port, alone on a line, once it listens.
            var line = Data()
            let handle = out.fileHandleForReading
            while !line.contains(0x0A) {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
                throw ServerFailed()
            }
            process = p
            self.port = port
        }

        /// SIGKILL: the child may have inherited a signal mask that blocks SIGTERM.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        struct ServerFailed: Error {}
    }

    /// Runs the job with a real ``CurlHTTPClient`` in its environment.
    static func run(_ d: TestDataDirectory, params: [String: String], config: String = "") async throws -> RunOutcome {
        let loader = ConfigLoader(jobs: JobCatalog.registry.descriptors, environment: [:])
        let cfg = try loader.parse(config, file: "test.toml", dataOverride: d.root)
        let client = try CurlHTTPClient(options: HTTPClientOptions())
        defer { client.shutdown() }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let runner = Runner(
            config: cfg, data: try DataDirectory(root: d.root), registry: JobCatalog.registry,
            environment: JobEnvironment(notificationTypes: cfg.notificationTypes, http: client), logger: logger)
        let date = try #require(Timestamp.parseISO8601(T))
        return try await runner.run("gig-quality-score", options: RunOptions(trigger: .cli, logicalTime: date, startTime: date, parameters: params))
    }

    static func stats(_ server: ScorerServer) async throws -> JSONObject {
        let client = try CurlHTTPClient(options: HTTPClientOptions())
        defer { client.shutdown() }
        let r = try await client.send(HTTPRequest(url: server.base + "/stats"))
        guard case .object(let o) = try JSONParser.parse(r.body) else { throw ScorerServer.ServerFailed() }
        return o
    }

    @Test func aValidAnswerReplacesTheRubric() async throws {
        let server = try await ScorerServer.start()
        defer { server.stop() }
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gig("a"))
        try d.write("gigs/b", Self.gig("b", #", "quality": "kept", "id": "stale-id""#))
        try d.write("gigs/expired", Self.gig("expired", #", "expiresAt": "2026-11-01T00:00:00Z""#))
        let outcome = try await Self.run(d, params: ["scorerUrl": server.base + "/valid"])
        #expect(outcome.error == nil)
        #expect(outcome.record.warnings == [])
        let a = try #require(try d.object("gigs/a"))
        #expect(a["qualityScore"] == .int(42))
        #expect(a["qualityTier"] == .string("low"))
        // The server echoes the id and the keys it received: "id" (the document id) first,
        // then the document's fields as stored.
        #expect(a["qualityReasons"] == .array(["ai_unclear_role", "id:a", .string(Self.keys)]))
        let b = try #require(try d.object("gigs/b"))
        #expect(b["qualityReasons"] == .array(["ai_unclear_role", "id:b", .string(Self.keys + ",quality")]))
        // Expired gigs are not sent.
        #expect(try d.object("gigs/expired")?["qualityReasons"] == .array(["expired"]))
        #expect(try await Self.stats(server)["requests"] == .int(2))

        // Second run: the stored quality fields are not sent, so the answers and the gigs
        // stay the same.
        let again = try await Self.run(d, params: ["scorerUrl": server.base + "/valid"])
        #expect(again.plan.summaryLine == "No changes.")
        #expect(try await Self.stats(server)["requests"] == .int(4))
    }

    @Test(arguments: [
        ("/slow?s=30", "2 timed out", "HTTP request to http://127.0.0.1:PORT timed out; the server is slow or unreachable (retry later, or raise the timeout)"),
        ("/error", "2 HTTP 500", "answered HTTP 500 (expected 2xx)"),
        ("/malformed", "2 malformed answer", "the body is not JSON"),
        ("/out-of-range", "2 malformed answer", #""score": expected an integer from 0 to 100, found integer 140"#),
        ("/no-such-route", "2 HTTP 404", "answered HTTP 404 (expected 2xx)"),
    ])
    func aFailedAnswerFallsBackToTheRubric(route: String, summary: String, detail: String) async throws {
        let server = try await ScorerServer.start()
        defer { server.stop() }
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gig("a"))
        try d.write("gigs/b", Self.gig("b").replacingOccurrences(of: #""payMin": 15"#, with: #""compensation": "$15/hour""#))
        // The slow route answers after 30 s: "timed out" in the warning shows that the
        // 400 ms limit ended those requests.
        let outcome = try await Self.run(d, params: ["scorerUrl": server.base + route, "scorerTimeout": "400ms"])
        #expect(outcome.error == nil)
        #expect(outcome.record.status == .succeededWithWarnings)
        let warning = try #require(outcome.record.warnings.first)
        let expectedStart = "external scorer http://127.0.0.1:\(server.port) failed for 2 of 2 gig(s) (\(summary)); they were scored by the rubric with scorer_unavailable. First: gigs/a.json: "
        #expect(warning.hasPrefix(expectedStart), "\(warning)")
        #expect(warning.contains(detail.replacingOccurrences(of: "PORT", with: "\(server.port)")), "\(warning)")
        #expect(try d.object("gigs/a")?["qualityScore"] == .int(100))
        #expect(try d.object("gigs/a")?["qualityReasons"] == .array(["scorer_unavailable"]))
        #expect(try d.object("gigs/b")?["qualityScore"] == .int(90))
        #expect(try d.object("gigs/b")?["qualityTier"] == .string("high"))
        #expect(try d.object("gigs/b")?["qualityReasons"] == .array(["vague_pay", "scorer_unavailable"]))
    }

    @Test func aRefusedConnectionFallsBackToTheRubric() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gig("a"))
        // Port 1 on loopback: nothing listens there.
        let outcome = try await Self.run(d, params: ["scorerUrl": "http://127.0.0.1:1/score"])
        #expect(outcome.error == nil)
        let warning = try #require(outcome.record.warnings.first)
        #expect(warning.hasPrefix("external scorer http://127.0.0.1:1 failed for 1 of 1 gig(s) (1 connection failed)"), "\(warning)")
        #expect(try d.object("gigs/a")?["qualityReasons"] == .array(["scorer_unavailable"]))
    }

    @Test func aScorerThatKeepsFailingIsNotAskedAgainThisRun() async throws {
        let server = try await ScorerServer.start()
        defer { server.stop() }
        let d = try TestDataDirectory()
        defer { d.remove() }
        for i in 10..<40 { try d.write("gigs/g\(i)", Self.gig("g\(i)")) }
        let outcome = try await Self.run(d, params: ["scorerUrl": server.base + "/error", "scorerConcurrency": "1"])
        #expect(outcome.error == nil)
        #expect(outcome.record.warnings == [
            "external scorer http://127.0.0.1:\(server.port) failed for 30 of 30 gig(s) (20 HTTP 500, 10 not sent after 20 failures in a row); they were scored by the rubric with scorer_unavailable. First: gigs/g10.json: answered HTTP 500 (expected 2xx)",
        ])
        #expect(try await Self.stats(server)["requests"] == .int(20))
        for i in 10..<40 { #expect(try d.object("gigs/g\(i)")?["qualityReasons"] == .array(["scorer_unavailable"])) }
    }

    @Test func requestsInFlightAreBounded() async throws {
        let server = try await ScorerServer.start()
        defer { server.stop() }
        let d = try TestDataDirectory()
        defer { d.remove() }
        for i in 0..<24 { try d.write("gigs/g\(i)", Self.gig("g\(i)")) }
        let outcome = try await Self.run(d, params: ["scorerUrl": server.base + "/track", "scorerConcurrency": "4"])
        #expect(outcome.error == nil)
        #expect(outcome.record.warnings == [])
        let stats = try await Self.stats(server)
        #expect(stats["requests"] == .int(24))
        let maxInFlight = try #require(stats["maxInFlight"]?.intValue)
        #expect(maxInFlight <= 4)
        #expect(maxInFlight >= 2)
        #expect(try d.object("gigs/g7")?["qualityReasons"] == .array(["ai_unclear_role", "id:g7", .string(Self.keys)]))
    }

    @Test func theRunTimeoutCancelsRequestsInFlightAndCommitsNothing() async throws {
        let server = try await ScorerServer.start()
        defer { server.stop() }
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gig("a"))
        try d.write("gigs/b", Self.gig("b"))
        // The scorer takes 10 minutes per answer and the per-request limit is an hour: only
        // the run's 5 s timeout can end this run (5 s, not 1: on a loaded machine, with the
        // end-to-end tests beside it, the run once timed out before its requests were sent).
        let outcome = try await Self.run(
            d, params: ["scorerUrl": server.base + "/slow?s=600", "scorerTimeout": "1h"],
            config: """
                [jobs.gig-quality-score]
                timeout = "5s"
                """)
        #expect(outcome.record.status == .cancelled)
        // The run returned while the scorer was still working on both answers.
        let stats = try await Self.stats(server)
        #expect(stats["requests"] == .int(2))
        #expect(stats["inFlight"] == .int(2))
        #expect(outcome.error != nil)
        #expect(d.text("gigs/a") == Self.gig("a"))
        #expect(d.text("gigs/b") == Self.gig("b"))
    }
}
