import Foundation
import HearthKit
import HearthStore
import HearthHTTP
import HearthHost
import Synchronization
import Testing
import HearthTestSupport

/// `CurlHTTPClient` against real local servers: `Tests/Servers/http_test_server.py` (HTTP/1.1),
/// `Tests/Servers/h2_test_server.py` (HTTP/2 over TLS, with a CA made per test) and, for the
/// throughput figure, Debian's `nghttpd`.
@Suite("CurlHTTPClient against local servers")
struct HTTPClientTests {
    // MARK: HTTP/1.1 basics

    @Test func echoRoundTripsMethodPathHeadersAndBodyOverHTTP1() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let response = try await client.send(HTTPRequest(
            method: "POST", url: "\(server.baseURL)/echo?x=1",
            headers: [(name: "X-Test", value: "abc"), (name: "Content-Type", value: "text/plain")],
            body: Array("hello".utf8)))

        #expect(response.status == 200)
        #expect(response.httpVersion == "1.1")
        #expect(response.header("Content-Type") == "application/json")
        let echo = try Echo(response)
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo?x=1")
        #expect(echo.authority == "127.0.0.1:\(server.port)")
        #expect(echo.body == "hello")
        #expect(echo.headers == [
            "accept": "*/*",
            "content-length": "5",
            "content-type": "text/plain",
            "host": "127.0.0.1:\(server.port)",
            "user-agent": "Hearth",
            "x-test": "abc",
        ])
    }

    @Test func methodsWithAndWithoutBodiesAreSentAsGiven() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let put = try Echo(try await client.send(HTTPRequest(method: "PUT", url: "\(server.baseURL)/echo", body: Array("v=1".utf8))))
        #expect(put.method == "PUT")
        #expect(put.body == "v=1")
        #expect(put.headers["content-length"] == "3")

        let delete = try Echo(try await client.send(HTTPRequest(method: "DELETE", url: "\(server.baseURL)/echo")))
        #expect(delete.method == "DELETE")
        #expect(delete.bodyLength == 0)
        #expect(delete.headers["content-length"] == nil)

        let emptyPost = try Echo(try await client.send(HTTPRequest(method: "POST", url: "\(server.baseURL)/echo")))
        #expect(emptyPost.method == "POST")
        #expect(emptyPost.headers["content-length"] == "0")

        let head = try await client.send(HTTPRequest(method: "HEAD", url: "\(server.baseURL)/echo"))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("content-type") == "application/json")
    }

    @Test func largeHTTP1BodyIsSentWithoutWaitingForExpectContinue() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 200_000)
        let echo = try Echo(try await client.send(HTTPRequest(method: "POST", url: "\(server.baseURL)/echo", body: body)))
        #expect(echo.bodyLength == 200_000)
        #expect(echo.headers["expect"] == nil)
    }

    @Test(arguments: [201, 404, 410, 500, 503])
    func statusCodesAreResponsesNotErrors(code: Int) async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let response = try await client.send(HTTPRequest(url: "\(server.baseURL)/status/\(code)"))
        #expect(response.status == code)
        #expect(String(decoding: response.body, as: UTF8.self) == "status \(code)")
    }

    @Test func redirectIsReturnedNotFollowed() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let response = try await client.send(HTTPRequest(url: "\(server.baseURL)/redirect"))
        #expect(response.status == 302)
        #expect(response.header("Location") == "/status/200")
        #expect(String(decoding: response.body, as: UTF8.self) == "moved")
    }

    @Test func retryAfterHeaderIsReadableAndHeadersKeepTheirOrder() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let response = try await client.send(HTTPRequest(method: "POST", url: "\(server.baseURL)/retry-after", body: Array("{}".utf8)))
        #expect(response.status == 429)
        #expect(response.header("Retry-After") == "7")
        #expect(response.headers.map(\.name) == ["server", "date", "content-type", "retry-after", "content-length"])
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        for _ in 0..<5 {
            #expect(try await client.send(HTTPRequest(url: "\(server.baseURL)/status/204")).status == 204)
        }
        let stats = try Stats(try await client.send(HTTPRequest(url: "\(server.baseURL)/stats")))
        #expect(stats == Stats(connections: 1, requests: 5))
    }

    @Test func twoHundredConcurrentRequestsEachGetTheirOwnResponse() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(maxConnectionsPerHost: 16))
        defer { client.shutdown() }

        let mismatches = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let request = HTTPRequest(method: "POST", url: "\(server.baseURL)/echo", body: Array("request \(index)".utf8))
                    guard let response = try? await client.send(request), let echo = try? Echo(response) else { return false }
                    return echo.body == "request \(index)"
                }
            }
            var failures = 0
            for await matched in group where !matched { failures += 1 }
            return failures
        }
        #expect(mismatches == 0)
        let stats = try Stats(try await client.send(HTTPRequest(url: "\(server.baseURL)/stats")))
        #expect(stats.requests == 200)
        #expect(stats.connections <= 16)
    }

    // MARK: Failure modes

    @Test func connectionRefusedIsARetryableConnectionFailure() async throws {
        let port = try LocalServers.unusedPort()
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let error = await failure(of: HTTPRequest(url: "http://127.0.0.1:\(port)/echo"), on: client)
        guard case .connectionFailed(let url, _) = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(url == "http://127.0.0.1:\(port)")
        #expect(error?.isRetryable == true)
    }

    @Test func errorDescriptionsLeaveOutCredentialsPathsHeadersAndBodies() async throws {
        let port = try LocalServers.unusedPort()
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let error = await failure(of: HTTPRequest(
            method: "POST", url: "http://user:hunter2@127.0.0.1:\(port)/hooks/SECRET-PATH?token=SECRET-QUERY",
            headers: [(name: "Authorization", value: "Bearer SECRET-HEADER")],
            body: Array("SECRET-BODY".utf8)), on: client)
        let description = try #require(error).description
        #expect(description.hasPrefix("HTTP connection to http://127.0.0.1:\(port) failed: "))
        #expect(!description.contains("SECRET"))
        #expect(!description.contains("hunter2"))

        let badHeader = await failure(of: HTTPRequest(
            url: "http://127.0.0.1:\(port)/", headers: [(name: "Authorization", value: "SECRET\r\nX-Evil: 1")]), on: client)
        #expect(badHeader?.description == "invalid HTTP request: value of header Authorization contains CR, LF or NUL")
    }

    @Test func invalidRequestsAreRejectedBeforeSending() async throws {
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let scheme = await failure(of: HTTPRequest(url: "ftp://files.example/x"), on: client)
        #expect(scheme?.description == "invalid HTTP request: URL ftp://files.example is not an absolute http:// or https:// URL")
        #expect(scheme?.isRetryable == false)
        let method = await failure(of: HTTPRequest(method: "GE T", url: "http://127.0.0.1/"), on: client)
        #expect(method?.description == "invalid HTTP request: method \"GE T\" is not an HTTP token")
        let relative = await failure(of: HTTPRequest(url: "/status/200"), on: client)
        #expect(relative?.description == "invalid HTTP request: URL <not an absolute URL> is not an absolute http:// or https:// URL")
    }

    @Test func slowResponseTimesOutWithinTheLimit() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let clock = ContinuousClock()
        let started = clock.now
        let error = await failure(of: HTTPRequest(url: "\(server.baseURL)/slow?ms=60000", timeout: .milliseconds(300)), on: client)
        let elapsed = clock.now - started
        guard case .timedOut(let url) = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(url == server.baseURL)
        #expect(error?.isRetryable == true)
        #expect(elapsed >= .milliseconds(290))
        // Well before the server's answer at 60 s (a CI machine busy with the end-to-end lane
        // beside this one took 7.5 s once): `.timedOut` above is what proves the limit.
        #expect(elapsed < .seconds(30))
    }

    @Test func clientDefaultTimeoutApplies() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(timeout: .milliseconds(200)))
        defer { client.shutdown() }

        let error = await failure(of: HTTPRequest(url: "\(server.baseURL)/slow?ms=3000"), on: client)
        guard case .timedOut = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
    }

    @Test func resetMidResponseIsARetryableConnectionFailure() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let error = await failure(of: HTTPRequest(url: "\(server.baseURL)/reset"), on: client)
        guard case .connectionFailed(let url, _) = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(url == server.baseURL)
        #expect(error?.isRetryable == true)
        // The client is still usable afterwards.
        #expect(try await client.send(HTTPRequest(url: "\(server.baseURL)/status/200")).status == 200)
    }

    @Test func slowRequestDoesNotHoldUpTwentyFastOnes() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let order = try await completionOrder(slowAndTwentyFastRequestsTo: server.baseURL, on: client).order
        #expect(order.count == 21)
        #expect(order.last == "slow 200")
        #expect(Set(order.dropLast()) == Set((0..<20).map { "fast\($0) 200" }))
    }

    @Test func cancellingTheTaskCancelsTheTransferPromptly() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let task = Task { await failure(of: HTTPRequest(url: "\(server.baseURL)/slow?ms=60000", timeout: .seconds(90)), on: client) }
        try await untilServerHasSeen(1, requestsAt: server.baseURL, on: client)
        let clock = ContinuousClock()
        let cancelled = clock.now
        task.cancel()
        let error = await task.value
        // The server answers about 60 s after the cancel; 30 s leaves a loaded machine room
        // (5 s failed at 7.75 s with the end-to-end lane running beside this one on 2 cores).
        // The `.cancelled` error is what proves the transfer was stopped, not answered.
        #expect(clock.now - cancelled < .seconds(30))
        guard case .cancelled = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        #expect(error?.isRetryable == false)
        #expect(try await client.send(HTTPRequest(url: "\(server.baseURL)/status/200")).status == 200)
    }

    @Test func alreadyCancelledTaskSendsNothing() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await failure(of: HTTPRequest(url: "\(server.baseURL)/status/200"), on: client)
        }
        guard case .cancelled = await task.value else {
            Issue.record("expected cancelled")
            return
        }
        let stats = try Stats(try await client.send(HTTPRequest(url: "\(server.baseURL)/stats")))
        #expect(stats.requests == 0)
    }

    @Test func shutdownFailsRequestsInFlightAndRefusesNewOnes() async throws {
        let server = try await LocalServers.startHTTP1()
        defer { server.stop() }
        let client = try CurlHTTPClient()

        let inFlight = Task { await failure(of: HTTPRequest(url: "\(server.baseURL)/slow?ms=10000"), on: client) }
        try await untilServerHasSeen(1, requestsAt: server.baseURL, on: client)
        client.shutdown()
        guard case .cancelled = await inFlight.value else {
            Issue.record("expected cancelled for the request in flight")
            return
        }
        let after = await failure(of: HTTPRequest(url: "\(server.baseURL)/status/200"), on: client)
        #expect(after?.description == "invalid HTTP request: the HTTP client has been shut down")
        client.shutdown()  // a second call is harmless
    }

    @Test func unusableOptionsAreRejected() {
        #expect(throws: HTTPTransportError.self) {
            _ = try CurlHTTPClient(options: HTTPClientOptions(caFile: "/nonexistent/ca.pem"))
        }
        #expect(throws: HTTPTransportError.self) {
            _ = try CurlHTTPClient(options: HTTPClientOptions(connectTo: ["fcm.googleapis.com:443"]))
        }
    }

    // MARK: HTTP/2 over TLS with a test CA

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func http2OverTLSWithTheTestCA() async throws {
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile))
        defer { client.shutdown() }

        let response = try await client.send(HTTPRequest(
            method: "POST", url: "https://localhost:\(server.port)/echo",
            headers: [(name: "Content-Type", value: "application/json")], body: Array(#"{"a":1}"#.utf8)))
        #expect(response.status == 200)
        #expect(response.httpVersion == "2")
        #expect(response.headers.map(\.name) == ["content-length", "content-type"])
        let echo = try Echo(response)
        #expect(echo.method == "POST")
        #expect(echo.authority == "localhost:\(server.port)")
        #expect(echo.body == #"{"a":1}"#)
        #expect(echo.headers == ["accept": "*/*", "content-length": "7", "content-type": "application/json", "user-agent": "Hearth"])

        let retry = try await client.send(HTTPRequest(url: "https://127.0.0.1:\(server.port)/retry-after"))
        #expect(retry.status == 429)
        #expect(retry.header("retry-after") == "7")
    }

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func manyConcurrentRequestsMultiplexOverOneHTTP2Connection() async throws {
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile))
        defer { client.shutdown() }

        let results = await withTaskGroup(of: String.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let request = HTTPRequest(method: "POST", url: "https://localhost:\(server.port)/echo", body: Array("n\(index)".utf8))
                    guard let response = try? await client.send(request), let echo = try? Echo(response) else { return "failed" }
                    return echo.body == "n\(index)" ? response.httpVersion : "mismatch"
                }
            }
            var versions: [String: Int] = [:]
            for await version in group { versions[version, default: 0] += 1 }
            return versions
        }
        #expect(results == ["2": 100])
        let stats = try Stats(try await client.send(HTTPRequest(url: "https://localhost:\(server.port)/stats")))
        #expect(stats == Stats(connections: 1, requests: 100))
    }

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func slowStreamDoesNotHoldUpTwentyFastOnesOnTheSameHTTP2Connection() async throws {
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile))
        defer { client.shutdown() }

        let (order, statsRequests) = try await completionOrder(slowAndTwentyFastRequestsTo: "https://localhost:\(server.port)", on: client)
        #expect(order.count == 21)
        #expect(order.last == "slow 200")
        #expect(Set(order.dropLast()) == Set((0..<20).map { "fast\($0) 200" }))
        let stats = try Stats(try await client.send(HTTPRequest(url: "https://localhost:\(server.port)/stats")))
        #expect(stats == Stats(connections: 1, requests: 21 + statsRequests))
    }

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func largeBodiesRoundTripOverHTTP2() async throws {
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile))
        defer { client.shutdown() }

        let body = [UInt8]((0..<1_048_576).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        let response = try await client.send(HTTPRequest(method: "POST", url: "https://localhost:\(server.port)/echo", body: body))
        let echo = try Echo(response)
        #expect(echo.bodyLength == 1_048_576)
        #expect(Array(echo.body.utf8) == body)
    }

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func tlsVerificationFailsWithoutTheTestCA() async throws {
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient()
        defer { client.shutdown() }

        let error = await failure(of: HTTPRequest(url: "https://localhost:\(server.port)/echo"), on: client)
        guard case .tls(let url, let detail) = error else {
            Issue.record("expected tls, got \(String(describing: error))")
            return
        }
        #expect(url == "https://localhost:\(server.port)")
        #expect(detail.contains("certificate"))
        #expect(error?.isRetryable == false)
        #expect(try Stats(try await CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile))
            .send(HTTPRequest(url: "https://localhost:\(server.port)/stats"))).requests == 0)
    }

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func hostNameOutsideTheCertificateIsATLSFailure() async throws {
        let ca = try await TestCertificateAuthority.make(names: ["localhost"])
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(
            caFile: ca.caFile, connectTo: ["wrong.example:443:127.0.0.1:\(server.port)"]))
        defer { client.shutdown() }

        let error = await failure(of: HTTPRequest(url: "https://wrong.example/echo"), on: client)
        guard case .tls(let url, let detail) = error else {
            Issue.record("expected tls, got \(String(describing: error))")
            return
        }
        #expect(url == "https://wrong.example")
        #expect(detail.contains("wrong.example"))
    }

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func connectToReachesTheLocalServerUnderTheProductionHostName() async throws {
        let ca = try await TestCertificateAuthority.make(names: ["fcm.googleapis.com", "localhost", "127.0.0.1"])
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(
            caFile: ca.caFile, connectTo: ["fcm.googleapis.com:443:127.0.0.1:\(server.port)"]))
        defer { client.shutdown() }

        let response = try await client.send(HTTPRequest(
            method: "POST", url: "https://fcm.googleapis.com/echo", body: Array("{}".utf8)))
        #expect(response.httpVersion == "2")
        let echo = try Echo(response)
        #expect(echo.authority == "fcm.googleapis.com")
        #expect(echo.path == "/echo")
    }

    @Test(.enabled(if: h2ServerAvailable, h2ServerMissing))
    func http2StreamResetAndStatusesMapLikeHTTP1() async throws {
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let server = try await LocalServers.startHTTP2(ca: ca)
        defer { server.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile))
        defer { client.shutdown() }

        let reset = await failure(of: HTTPRequest(url: "https://localhost:\(server.port)/reset"), on: client)
        guard case .connectionFailed = reset else {
            Issue.record("expected connectionFailed, got \(String(describing: reset))")
            return
        }
        #expect(reset?.isRetryable == true)
        let redirect = try await client.send(HTTPRequest(url: "https://localhost:\(server.port)/redirect"))
        #expect(redirect.status == 302)
        #expect(redirect.header("location") == "/status/200")
        let timedOut = await failure(of: HTTPRequest(url: "https://localhost:\(server.port)/slow?ms=3000", timeout: .milliseconds(300)), on: client)
        guard case .timedOut = timedOut else {
            Issue.record("expected timedOut, got \(String(describing: timedOut))")
            return
        }
        let stats = try Stats(try await client.send(HTTPRequest(url: "https://localhost:\(server.port)/stats")))
        #expect(stats == Stats(connections: 1, requests: 3))
    }

    // MARK: Throughput (nghttpd)

    /// Not a timed test: it checks every response and prints the rate, for the record.
    @Test(.enabled(if: nghttpdAvailable, "needs nghttpd (apt: nghttp2-server) and PyPI cryptography"))
    func smallPostsToNghttpdOverHTTP2() async throws {
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let docroot = ca.directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: docroot, withIntermediateDirectories: true)
        try Data(#"{"name":"projects/p/messages/1"}"#.utf8).write(to: docroot.appendingPathComponent("send"))
        let nghttpd = try await Nghttpd.start(ca: ca, docroot: docroot.path)
        defer { nghttpd.stop() }
        let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile))
        defer { client.shutdown() }

        let total = Int(ProcessInfo.processInfo.environment["HEARTH_HTTP_BENCH_REQUESTS"] ?? "") ?? 10_000
        let inFlight = 100
        let body = Array(#"{"message":{"token":"abc","notification":{"title":"t","body":"b"}}}"#.utf8)
        let request = HTTPRequest(method: "POST", url: "https://localhost:\(nghttpd.port)/send",
                                  headers: [(name: "Content-Type", value: "application/json")], body: body)
        let clock = ContinuousClock()
        let started = clock.now
        let ok = await withTaskGroup(of: Bool.self) { group in
            var sent = 0
            var ok = 0
            func add() {
                group.addTask {
                    guard let response = try? await client.send(request) else { return false }
                    return response.status == 200 && response.httpVersion == "2" && response.body.count == 32
                }
                sent += 1
            }
            while sent < min(inFlight, total) { add() }
            for await success in group {
                if success { ok += 1 }
                if sent < total { add() }
            }
            return ok
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("HTTP/2 TLS throughput: \(total) POSTs, \(inFlight) in flight, in \(String(format: "%.2f", seconds)) s = \(Int(Double(total) / seconds)) requests/s")
        #expect(ok == total)
    }
}

// MARK: - Helpers

private let h2ServerAvailable = LocalServers.pythonHasModules(["h2", "cryptography"])
private let h2ServerMissing: Comment = "needs PyPI h2 and cryptography (pip install h2 cryptography)"
private let nghttpdAvailable = LocalServers.hasExecutable("nghttpd") && LocalServers.pythonHasModules(["cryptography"])

/// The error a request fails with, or nil when it got a response.
private func failure(of request: HTTPRequest, on client: some HTTPTransport) async -> HTTPTransportError? {
    do {
        _ = try await client.send(request)
        return nil
    } catch {
        return error
    }
}

/// Waits until the test server at `baseURL` has seen `count` requests besides the `/stats` ones
/// this sends; returns how many it sent. Polled (every 10 ms, for at most 10 s): the server runs
/// in another process and tells nobody when a request arrives.
@discardableResult
private func untilServerHasSeen(_ count: Int, requestsAt baseURL: String, on client: CurlHTTPClient, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
    var polls = 0
    var seen = 0
    try await eventually("the server to see \(count) requests (it saw \(seen))", timeout: .seconds(10), pollEvery: .milliseconds(10), sourceLocation: sourceLocation) {
        // `/stats` counts the requests before it, the earlier polls included.
        seen = try Stats(try await client.send(HTTPRequest(url: "\(baseURL)/stats"))).requests - polls
        polls += 1
        return seen >= count
    }
    return polls
}

/// Sends one `/slow?ms=2000` request, then, once the server has it, 20 fast ones concurrently;
/// returns `"slow STATUS"` / `"fastN STATUS"` in the order they finished, and how many `/stats`
/// requests the wait for the server sent.
private func completionOrder(slowAndTwentyFastRequestsTo baseURL: String, on client: CurlHTTPClient, sourceLocation: SourceLocation = #_sourceLocation) async throws -> (order: [String], statsRequests: Int) {
    let finished = CompletionLog()
    let polls = try await withThrowingTaskGroup(of: Void.self, returning: Int.self) { group in
        group.addTask {
            // Answered once the server has answered the twenty fast ones (and 200 ms more for
            // their replies to go out), however slowly this process starts them: an event, not
            // a race against a fixed delay.
            let status = try? await client.send(HTTPRequest(url: "\(baseURL)/slow?afterStatus=20&ms=200")).status
            finished.append("slow \(status ?? 0)")
        }
        let polls = try await untilServerHasSeen(1, requestsAt: baseURL, on: client, sourceLocation: sourceLocation)
        for index in 0..<20 {
            group.addTask {
                let status = try? await client.send(HTTPRequest(url: "\(baseURL)/status/200")).status
                finished.append("fast\(index) \(status ?? 0)")
            }
        }
        return polls
    }
    return (finished.entries, polls)
}

/// Records the order in which concurrent requests finish.
private final class CompletionLog: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ entry: String) {
        storage.withLock { $0.append(entry) }
    }

    var entries: [String] { storage.withLock { $0 } }
}

/// What `/echo` answers.
private struct Echo: Decodable {
    let method: String
    let path: String
    let authority: String
    let headers: [String: String]
    let body: String
    let bodyLength: Int

    init(_ response: HTTPResponse) throws {
        self = try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }
}

/// What `/stats` answers: connections accepted and requests served before this one.
private struct Stats: Decodable, Equatable {
    let connections: Int
    let requests: Int

    init(connections: Int, requests: Int) {
        self.connections = connections
        self.requests = requests
    }

    init(_ response: HTTPResponse) throws {
        self = try JSONDecoder().decode(Stats.self, from: Data(response.body))
    }
}

/// Debian's `nghttpd` serving `docroot` over TLS with `ca`'s certificate on a free port.
private struct Nghttpd {
    let server: Process
    let port: Int

    static func start(ca: TestCertificateAuthority, docroot: String) async throws -> Nghttpd {
        let port = try LocalServers.unusedPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(LocalServers.executablePath("nghttpd")))
        process.arguments = ["-a", "127.0.0.1", "-d", docroot, "\(port)", ca.serverKeyFile, ca.serverCertificateFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let probe = try CurlHTTPClient(options: HTTPClientOptions(connectTimeout: .milliseconds(200), caFile: ca.caFile))
        defer { probe.shutdown() }
        do {
            // It tells nobody when it listens: asked until it answers.
            try await eventually("nghttpd to answer on port \(port)", timeout: .seconds(15), pollEvery: .milliseconds(50)) {
                (try? await probe.send(HTTPRequest(url: "https://localhost:\(port)/send"))) != nil
            }
        } catch {
            LocalServers.kill(process)
            throw error
        }
        return Nghttpd(server: process, port: port)
    }

    func stop() {
        LocalServers.kill(server)
    }
}
