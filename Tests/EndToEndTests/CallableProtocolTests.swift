import Foundation
import Glibc
import Testing
import HearthKit
import HearthTestSupport

/// The callable protocol (docs/callables.md#the-protocol) on the real daemon, with Firebase's own
/// server code as the reference: `Fixtures/callable/callable_reference.py` serves a function
/// written with firebase-functions' `https_fn.on_call` (0.6.0), `Fixtures/callable/echo_function.py`
/// is the same function as a Hearth callable command job, and every case is sent to both. Each
/// answer is its HTTP status and its body as a JSON value; where firebase-functions answers
/// otherwise than the protocol says, Hearth answers as the protocol says, and the case names
/// the reference's own answer beside it, so a change of either fails the test.
@Suite("Callable protocol")
struct CallableProtocolTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let fixtures = repo + "/Tests/EndToEndTests/Fixtures/callable"
    static let origin = "https://app.example.com"
    static let routes = ["/p/r/echo", "/call/echo"]

    /// An answer: the HTTP status and the body as canonical JSON (keys sorted, no spaces).
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var json: String?
        var description: String { "\(status) \(json ?? "(not JSON)")" }

        init(_ status: Int, _ json: String) {
            self.status = status
            self.json = json
        }

        init(_ answered: HTTPSend.Answered) {
            status = answered.status
            json = answered.json
        }

        static func result(_ value: String) -> Answer { Answer(200, "{\"result\":\(value)}") }

        static func error(_ status: Int, _ code: String, _ message: String, details: String? = nil) -> Answer {
            Answer(status, "{\"error\":{" + (details.map { "\"details\":\($0)," } ?? "") + "\"message\":\"\(message)\",\"status\":\"\(code)\"}}")
        }
    }

    /// A malformed request, as firebase-functions words it.
    static let badRequest = Answer.error(400, "INVALID_ARGUMENT", "Bad Request")
    /// firebase-functions' answer to an exception in its own request handling.
    static let internalError = Answer.error(500, "INTERNAL", "INTERNAL")

    /// One request, sent on each route to both servers.
    struct Case: CustomStringConvertible {
        var name: String
        var method = "POST"
        var contentType: String? = "application/json"
        var headers: [String: String] = [:]
        var body: String?
        /// Hearth's answer: the protocol's.
        var want: Answer
        /// firebase-functions' answer where it is not the protocol's; nil: the same as `want`.
        var reference: Answer?
        var description: String { name }

        /// A call with this `data` (JSON text).
        static func call(_ name: String, data: String, want: Answer) -> Case {
            Case(name: name, body: "{\"data\": \(data)}", want: want)
        }

        func exchange(_ base: String, _ route: String) -> HTTPSend.Exchange {
            var headers = headers
            if let contentType { headers["Content-Type"] = contentType }
            return HTTPSend.Exchange(method: method, url: base + route, headers: headers, body: body)
        }
    }

    /// The data is echoed: `{"result": data}`.
    static let data: [Case] = [
        .call("data null", data: "null", want: .result("null")),
        .call("data a number", data: "42", want: .result("42")),
        .call("data a string", data: "\"héllo ✓ 🎁\"", want: .result("\"héllo ✓ 🎁\"")),
        .call("data a boolean", data: "false", want: .result("false")),
        .call("data an array", data: "[1, \"two\", null, true, [3]]", want: .result("[1,\"two\",null,true,[3]]")),
        .call("data a nested object", data: #"{"gift": {"to": "u2", "items": [{"id": 1, "note": null}]}, "empty": {}}"#,
              want: .result(#"{"empty":{},"gift":{"items":[{"id":1,"note":null}],"to":"u2"}}"#)),
    ]

    /// `{"result": V}` is answered with V, of each JSON type.
    static let results: [Case] = [
        ("null", "null"), ("true", "true"), ("false", "false"), ("0", "0"), ("-7", "-7"), ("1.5", "1.5"),
        ("9007199254740993", "9007199254740993"), ("\"\"", "\"\""), ("\"text\"", "\"text\""), ("[]", "[]"), ("[1, [2, [3]]]", "[1,[2,[3]]]"),
        ("{}", "{}"), (#"{"k": {"n": 1, "s": "x"}}"#, #"{"k":{"n":1,"s":"x"}}"#),
    ].map { value, json in .call("result \(value)", data: "{\"result\": \(value)}", want: .result(json)) }

    /// The codes and HTTP statuses of the protocol.
    static let codes: [(String, Int)] = [
        ("INVALID_ARGUMENT", 400), ("FAILED_PRECONDITION", 400), ("OUT_OF_RANGE", 400), ("UNAUTHENTICATED", 401), ("PERMISSION_DENIED", 403),
        ("NOT_FOUND", 404), ("ABORTED", 409), ("ALREADY_EXISTS", 409), ("RESOURCE_EXHAUSTED", 429), ("CANCELLED", 499), ("INTERNAL", 500),
        ("UNKNOWN", 500), ("DATA_LOSS", 500), ("UNIMPLEMENTED", 501), ("UNAVAILABLE", 503), ("DEADLINE_EXCEEDED", 504),
    ]

    /// Each code, without details and with them (an object, and for a few codes another JSON type).
    static let errors: [Case] = codes.flatMap { code, status -> [Case] in
        let reason = "r-" + code.lowercased()
        return [
            .call("\(code) without details", data: #"{"error": {"code": "\#(code)", "message": "m \#(code)"}}"#,
                  want: .error(status, code, "m \(code)")),
            .call("\(code) with details", data: #"{"error": {"code": "\#(code)", "message": "m \#(code)", "details": {"reason": "\#(reason)", "n": [1]}}}"#,
                  want: .error(status, code, "m \(code)", details: #"{"n":[1],"reason":"\#(reason)"}"#)),
        ]
    } + [
        .call("details a string", data: #"{"error": {"code": "FAILED_PRECONDITION", "message": "no", "details": "insufficient_points"}}"#,
              want: .error(400, "FAILED_PRECONDITION", "no", details: "\"insufficient_points\"")),
        .call("details an array", data: #"{"error": {"code": "ALREADY_EXISTS", "message": "dup", "details": ["a", 2]}}"#,
              want: .error(409, "ALREADY_EXISTS", "dup", details: "[\"a\",2]")),
        .call("details a number", data: #"{"error": {"code": "RESOURCE_EXHAUSTED", "message": "slow down", "details": 30}}"#,
              want: .error(429, "RESOURCE_EXHAUSTED", "slow down", details: "30")),
        .call("a message with quotes and accents", data: #"{"error": {"code": "PERMISSION_DENIED", "message": "«non» \"x\""}}"#,
              want: .error(403, "PERMISSION_DENIED", "«non» \\\"x\\\"")),
    ]

    /// Requests that are not calls, and the ones that only look different.
    static let requests: [Case] = [
        Case(name: "GET", method: "GET", contentType: nil, want: badRequest),
        Case(name: "GET with a call's body", method: "GET", body: "{\"data\": 1}", want: badRequest),
        Case(name: "PUT", method: "PUT", body: "{\"data\": 1}", want: badRequest),
        Case(name: "DELETE", method: "DELETE", contentType: nil, want: badRequest),
        Case(name: "Content-Type text/plain", contentType: "text/plain", body: "{\"data\": 1}", want: badRequest),
        Case(name: "Content-Type form", contentType: "application/x-www-form-urlencoded", body: "{\"data\": 1}", want: badRequest),
        Case(name: "no Content-Type", contentType: nil, body: "{\"data\": 1}", want: badRequest),
        Case(name: "Content-Type application/jsonx", contentType: "application/jsonx", body: "{\"data\": 1}", want: badRequest),
        Case(name: "Content-Type with charset", contentType: "application/json; charset=utf-8", body: "{\"data\": 1}", want: .result("1")),
        Case(name: "Content-Type with charset, no space", contentType: "application/json;charset=UTF-8", body: "{\"data\": 1}", want: .result("1")),
        Case(name: "Content-Type Application/JSON", contentType: "Application/JSON", body: "{\"data\": 1}", want: .result("1")),
        // firebase-functions reads the body with Flask's request.json, which raises on a body that is not JSON: 500 INTERNAL.
        Case(name: "body not JSON", body: "{not json", want: badRequest, reference: internalError),
        // The same for an empty body: Flask's request.json raises, firebase-functions answers 500 INTERNAL.
        Case(name: "empty body", body: "", want: badRequest, reference: internalError),
        // firebase-functions tests `"data" in body` before it knows the body is an object: the string "data" passes, .keys() raises, 500.
        Case(name: "body the string \"data\"", body: "\"data\"", want: badRequest, reference: internalError),
        Case(name: "body a string", body: "\"x\"", want: badRequest),
        Case(name: "body []", body: "[]", want: badRequest),
        Case(name: "body null", body: "null", want: badRequest),
        // Its `"data" in body` on a number raises (TypeError): 500 INTERNAL.
        Case(name: "body 1", body: "1", want: badRequest, reference: internalError),
        Case(name: "body {} (no data)", body: "{}", want: badRequest),
        Case(name: "another field beside data", body: "{\"data\": 1, \"x\": 2}", want: badRequest),
        Case(name: "Data, not data", body: "{\"Data\": 1}", want: badRequest),
        Case(name: "data twice: the last one counts", body: "{\"data\": 1, \"data\": 2}", want: .result("2")),
        Case(name: "whitespace around the body", body: " \n{\"data\": 2}\n ", want: .result("2")),
        // Without [auth] (Hearth) or an initialized firebase-admin app (the reference), no token is accepted.
        Case(name: "Authorization Bearer", headers: ["Authorization": "Bearer x"], body: "{\"data\": 1}", want: .error(401, "UNAUTHENTICATED", "Unauthenticated")),
        Case(name: "Authorization not Bearer", headers: ["Authorization": "Basic dTpw"], body: "{\"data\": 1}", want: .error(401, "UNAUTHENTICATED", "Unauthenticated")),
        Case(name: "a bad request with a token", method: "PUT", headers: ["Authorization": "Bearer x"], body: "{\"data\": 1}", want: badRequest),
    ]

    static let cases = data + results + errors + requests

    // MARK: - The two servers

    /// `callable_reference.py` on a free port: started, its port read from its first line.
    final class Reference: @unchecked Sendable {
        // @unchecked: `process` is only touched by `start` and `stop`, from one task.
        let port: Int
        private let process: Process
        let stderr: StderrCollector
        var base: String { "http://127.0.0.1:\(port)" }

        private init(port: Int, process: Process, stderr: StderrCollector) {
            self.port = port
            self.process = process
            self.stderr = stderr
        }

        /// Fails with `scripts/install-deps` in the message when firebase-functions is missing.
        static func start() async throws -> Reference {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", CallableProtocolTests.fixtures + "/callable_reference.py"]
            let stdout = Pipe(), stderrPipe = Pipe()
            p.standardOutput = stdout
            p.standardError = stderrPipe
            p.standardInput = FileHandle.nullDevice
            try p.run()
            let stderr = StderrCollector(stderrPipe)
            // The first line is the port; EOF first: it exited.
            let line = await BlockingIO.run { () -> String in
                var bytes: [UInt8] = []
                while let b = stdout.fileHandleForReading.readData(ofLength: 1).first, b != UInt8(ascii: "\n") { bytes.append(b) }
                return String(decoding: bytes, as: UTF8.self)
            }
            guard let port = Int(line) else {
                if p.isRunning { kill(p.processIdentifier, SIGKILL) }
                await HearthProcess.waitForExit(p)
                let said = try await stderr.untilEnd()
                if p.terminationStatus == 3 { throw ExternalTool.Missing(what: "Python's firebase-functions 0.6.0") }
                throw HTTPProbe.ProbeFailed(message: "callable_reference.py did not start (exit \(p.terminationStatus)): \(said)")
            }
            return Reference(port: port, process: p, stderr: stderr)
        }

        /// SIGKILL: the child inherits the test process's blocked signals, SIGTERM among them.
        func stop() async {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            await HearthProcess.waitForExit(process)
        }

        /// A test that threw before `stop()` leaves no server behind.
        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    /// A daemon on a free port whose only jobs are `echo` (callable, auth optional), `scheduled`
    /// (the same script, a scheduled job that is not callable) and `switched-off` (callable,
    /// disabled); `[callable] origins` allows `https://app.example.com`.
    static func startDaemon(server: String = "") async throws -> MonitoringEndToEndTests.Daemon {
        let dir = try TempDirectory("hearth-callable")
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        let command = "command = [\"python3\", \(tomlString(fixtures + "/echo_function.py"))]"
        var config = """
            dataDir = "data"
            shutdownGrace = "5s"
            [jobs.echo]
            \(command)
            callable = true
            auth = "optional"
            [jobs.scheduled]
            \(command)
            schedule = "0 0 1 1 *"
            [jobs.switched-off]
            \(command)
            callable = true
            auth = "optional"
            enabled = false

            """
        try dir.write("hearth.toml", config)
        let list = try await HearthProcess.run(["list", "--config", "hearth.toml", "--format", "json"], in: dir.path)
        try #require(list.status == 0, "\(list.stderr)")
        let jobs = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["job"] as? String } ?? []
        for job in jobs where !["echo", "scheduled", "switched-off"].contains(job) { config += "[jobs.\(job)]\nenabled = false\n" }
        config += """
            [callable]
            origins = ["\(origin)"]
            [server]
            listen = "127.0.0.1:0"
            \(server)

            """
        try dir.write("hearth.toml", config)
        let running = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path, environment: ["HEARTH_OPS_TOKEN": operatorToken])
        let stderr = StderrCollector(running.stderrPipe)
        try await stderr.waitFor("HTTP endpoint listening", timeout: .seconds(60))
        let port = stderr.text.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5).prefix { $0.isNumber }) }
        return MonitoringEndToEndTests.Daemon(dir: dir, running: running, stderr: stderr, port: try #require(port, "no port in: \(stderr.text)"))
    }

    /// Runs `body` with a daemon of ``startDaemon(server:)`` and stops it after; if `body`
    /// throws, the daemon is killed. Its directory is removed either way.
    static func withDaemon(server: String = "", _ body: (MonitoringEndToEndTests.Daemon) async throws -> Void) async throws {
        let d = try await startDaemon(server: server)
        defer { if d.running.process.isRunning { kill(d.running.process.processIdentifier, SIGKILL) }; d.dir.remove() }
        try await body(d)
        try await d.stop()
    }

    /// ``withDaemon(server:_:)`` with the reference server beside it, started meanwhile.
    static func withBoth(_ body: (MonitoringEndToEndTests.Daemon, Reference) async throws -> Void) async throws {
        let starting = Task { try await Reference.start() }
        try await withDaemon { d in
            let reference = try await starting.value
            try await body(d, reference)
            await reference.stop()
        }
    }

    static let operatorToken = "ops-token-0123456789abcdef0123"

    /// `hearth history echo` as JSON records.
    static func history(_ d: MonitoringEndToEndTests.Daemon, _ job: String = "echo") async throws -> [[String: Any]] {
        let r = try await HearthProcess.run(["history", job, "--config", "hearth.toml", "--limit", "1000", "--format", "json"], in: d.dir.path)
        try #require(r.status == 0, "\(r.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    static func post(_ url: String, _ body: String, headers: [String: String] = [:]) -> HTTPSend.Exchange {
        HTTPSend.Exchange(method: "POST", url: url, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a }, body: body)
    }

    // MARK: - Tests

    @Test func everyCaseIsAnsweredAsFirebasesOwnServerAnswersItOrAsTheProtocolSays() async throws {
        try await Self.withBoth { d, reference in
            let sent = Self.routes.flatMap { route in Self.cases.map { ($0, route) } }
            async let hearthAnswers = HTTPSend.exchange(sent.map { $0.exchange(d.base, $1) })
            let referenceAnswers = try await HTTPSend.exchange(sent.map { $0.exchange(reference.base, $1) })
            let hearth = try await hearthAnswers
            for (i, (c, route)) in sent.enumerated() {
                #expect(Answer(hearth[i]) == c.want, "\(c.name), \(route): Hearth")
                #expect(Answer(referenceAnswers[i]) == c.reference ?? c.want, "\(c.name), \(route): firebase-functions")
                #expect(hearth[i].headers["content-type"] == "application/json; charset=utf-8", "\(c.name), \(route)")
                #expect(referenceAnswers[i].headers["content-type"] == "application/json", "\(c.name), \(route)")
            }
        }
    }

    @Test func anUnknownUncallableOrDisabledFunctionIsNotFoundOnBothRoutesAndAddsNoMetricSeries() async throws {
        try await Self.withDaemon { d in
            var sent: [HTTPSend.Exchange] = []
            for name in ["nope", "scheduled", "switched-off"] {
                for route in ["/p/r/", "/call/"] {
                    sent.append(Self.post(d.base + route + name, "{\"data\": 1}"))
                    sent.append(HTTPSend.Exchange(method: "GET", url: d.base + route + name, headers: [:]))
                }
            }
            let answers = try await HTTPSend.exchange(sent)
            for (i, answer) in answers.enumerated() {
                let name = ["nope", "scheduled", "switched-off"][i / 4]
                #expect(Answer(answer) == .error(404, "NOT_FOUND", "no callable function named \(name)"), "\(sent[i].method) \(sent[i].url)")
            }
            // None of them ran, and none has a call series: a caller cannot add series by naming functions.
            #expect(try await Self.history(d, "scheduled").isEmpty)
            let metrics = try await HTTPProbe.get(d.base + "/metrics").body.split(separator: "\n").filter { $0.hasPrefix("hearth_call") }
            #expect(metrics.contains { $0.contains("job=\"echo\"") }, "\(metrics)")
            #expect(metrics.allSatisfy { $0.contains("job=\"echo\"") }, "\(metrics)")
        }
    }

    @Test func aPreflightIsAnsweredForTheConfiguredOriginOnlyAndACallFromItCarriesTheOrigin() async throws {
        try await Self.withBoth { d, reference in
            func preflight(_ base: String, _ route: String, origin: String) -> HTTPSend.Exchange {
                HTTPSend.Exchange(method: "OPTIONS", url: base + route, headers: [
                    "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type",
                ])
            }
            for base in [d.base, reference.base] {
                for route in Self.routes {
                    let (allowed, other, call) = try await {
                        let a = try await HTTPSend.exchange([
                            preflight(base, route, origin: Self.origin), preflight(base, route, origin: "https://evil.example.com"),
                            Self.post(base + route, "{\"data\": 1}", headers: ["Origin": Self.origin]),
                        ])
                        return (a[0], a[1], a[2])
                    }()
                    let at = "\(base)\(route)"
                    if base == d.base {
                        #expect(allowed.status == 204, "\(at)")
                        #expect(allowed.headers["access-control-allow-headers"] == "Authorization, Content-Type", "\(at)")
                        #expect(allowed.headers["access-control-max-age"] == "3600", "\(at)")
                        #expect(other.status == 403, "\(at)")
                        #expect(other.body == "origin not allowed: add it to [callable] origins\n", "\(at)")
                    } else {
                        // firebase-functions (flask-cors) answers a preflight 200 whatever the origin, and echoes the headers asked for.
                        #expect(allowed.status == 200, "\(at)")
                        #expect(allowed.headers["access-control-allow-headers"] == "authorization, content-type", "\(at)")
                        #expect(other.status == 200, "\(at)")
                    }
                    #expect(allowed.headers["access-control-allow-origin"] == Self.origin, "\(at)")
                    #expect(allowed.headers["access-control-allow-methods"] == "POST", "\(at)")
                    #expect(other.headers["access-control-allow-origin"] == nil, "\(at)")
                    #expect(other.headers["access-control-allow-methods"] == nil, "\(at)")
                    #expect(Answer(call) == .result("1"), "\(at)")
                    #expect(call.headers["access-control-allow-origin"] == Self.origin, "\(at)")
                }
            }
            // A call from another origin is answered (a browser hides the answer from that page), without the header.
            let elsewhere = try await HTTPSend.exchange([Self.post(d.base + "/call/echo", "{\"data\": 2}", headers: ["Origin": "https://evil.example.com"])])[0]
            #expect(Answer(elsewhere) == .result("2"))
            #expect(elsewhere.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func operatorTokensDoNotGuardTheCallsAndATokenWithoutAuthIsUnauthenticated() async throws {
        try await Self.withDaemon(server: """
            [[server.tokens]]
            name = "ops"
            env = "HEARTH_OPS_TOKEN"
            role = "operate"
            """) { d in
            let unauthenticated = Answer(401, #"{"error":{"message":"Unauthenticated","status":"UNAUTHENTICATED"}}"#)
            let answers = try await HTTPSend.exchange([
                Self.post(d.base + "/call/echo", "{\"data\": \"no token\"}"),
                Self.post(d.base + "/p/r/echo", "{\"data\": \"no token\"}"),
                HTTPSend.Exchange(method: "OPTIONS", url: d.base + "/call/echo", headers: ["Origin": Self.origin, "Access-Control-Request-Method": "POST"]),
                Self.post(d.base + "/call/echo", "{\"data\": 1}", headers: ["Authorization": "Bearer x"]),
                // The operator's token is not an app user's ID token.
                Self.post(d.base + "/call/echo", "{\"data\": 1}", headers: ["Authorization": "Bearer " + Self.operatorToken]),
                HTTPSend.Exchange(method: "GET", url: d.base + "/metrics", headers: [:]),
            ])
            #expect(Answer(answers[0]) == .result("\"no token\""))
            #expect(Answer(answers[1]) == .result("\"no token\""))
            #expect(answers[2].status == 204)
            #expect(Answer(answers[3]) == unauthenticated)
            #expect(answers[3].body == #"{"error":{"status":"UNAUTHENTICATED","message":"Unauthenticated"}}"#)
            #expect(Answer(answers[4]) == unauthenticated)
            // The rest of the endpoint still needs the operator's token.
            #expect(answers[5].status == 401)
        }
    }

    @Test func aCallIsARunRecordedWithTriggerCallAndItsAnswerAndABadRequestIsNot() async throws {
        try await Self.withDaemon { d in
            let answers = try await HTTPSend.exchange([
                Self.post(d.base + "/call/echo", #"{"data": {"result": "ok"}}"#),
                Self.post(d.base + "/p/r/echo", #"{"data": {"error": {"code": "FAILED_PRECONDITION", "message": "not yet"}}}"#),
                Self.post(d.base + "/call/echo", "{not json"),
                Self.post(d.base + "/call/echo", "{\"data\": 1}", headers: ["Authorization": "Bearer x"]),
            ])
            #expect(answers.map(\.status) == [200, 400, 400, 401])
            let records = try await Self.history(d)
            let summary = records.map { r -> String in
                let call = r["call"] as? [String: Any] ?? [:]
                return "\(r["trigger"] ?? "") \(r["status"] ?? "") uid=\(call["uid"] is NSNull ? "null" : "\(call["uid"] ?? "")") answer=\(call["answer"] ?? "")"
            }.sorted()
            // A refusal is the job's answer: the run succeeded and wrote nothing. A request refused
            // before the job (not JSON, a token not accepted) is no run.
            #expect(summary == [
                "call succeeded uid=null answer=FAILED_PRECONDITION",
                "call succeeded uid=null answer=OK",
            ])
        }
    }

    @Test func theProtocolsOwnClientPrintsTheSameFromHearthAndFromFirebasesServer() async throws {
        try await Self.withBoth { d, reference in
            let python = try #require(ExternalTool.find(["python3"]))
            let script = Self.repo + "/scripts/call.py"
            for base in [d.base + "/call", d.base + "/p/r", reference.base + "/call", reference.base + "/demo/us-central1"] {
                let result = try await ExternalTool.run(python, [script, base, "echo", "--data", #"{"result": {"b": [1, 2.5, null], "a": "é"}}"#])
                #expect(result.status == 0, "\(base): \(result.stderr)")
                #expect(result.stdout == "{\"a\": \"é\", \"b\": [1, 2.5, null]}\n", "\(base)")
                #expect(result.stderr == "", "\(base)")

                let refused = try await ExternalTool.run(python, [script, base, "echo", "--data", #"{"error": {"code": "FAILED_PRECONDITION", "message": "not yet", "details": {"reason": "too_early"}}}"#])
                #expect(refused.status == 1, "\(base)")
                #expect(refused.stdout == "", "\(base)")
                #expect(refused.stderr == "FAILED_PRECONDITION (HTTP 400): not yet\ndetails: {\"reason\": \"too_early\"}\n", "\(base)")

                let token = try await ExternalTool.run(python, [script, base, "echo", "--token", "x"])
                #expect(token.status == 1, "\(base)")
                #expect(token.stderr == "UNAUTHENTICATED (HTTP 401): Unauthenticated\n", "\(base)")

                let null = try await ExternalTool.run(python, [script, base, "echo"])
                #expect(null.stdout == "null\n", "\(base): \(null.stderr)")
            }
            let missing = try await ExternalTool.run(python, [script, d.base + "/call", "nope"])
            #expect(missing.status == 1)
            #expect(missing.stderr == "NOT_FOUND (HTTP 404): no callable function named nope\n")
        }
    }
}
