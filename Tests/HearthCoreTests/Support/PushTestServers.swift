import Foundation
import HearthKit
import HearthHTTP
import HearthOutbound
import HearthHost
import Synchronization

/// Throwaway push credentials made by `Tests/Servers/make_push_credentials.py`: a Google
/// service account key (RSA) and an APNs `.p8` key (P-256), with their public keys for the
/// fake servers. Made once per test process.
struct PushCredentials: Sendable {
    let directory: URL
    var serviceAccountFile: String { directory.appendingPathComponent("service-account.json").path }
    var serviceAccountPublicKey: String { directory.appendingPathComponent("service-account-public.pem").path }
    var apnsKeyFile: String { directory.appendingPathComponent("AuthKey_TESTKEY123.p8").path }
    var apnsPublicKey: String { directory.appendingPathComponent("apns-public.pem").path }
    static let apnsKeyID = "TESTKEY123"
    static let apnsTeamID = "TEAM123456"
    static let apnsTopic = "com.example.campus"

    /// Credentials and a CA whose server certificate covers the production host names.
    static let shared = Task<(PushCredentials, TestCertificateAuthority), any Error> {
        let ca = try await TestCertificateAuthority.make(names: ["fcm.googleapis.com", "oauth2.googleapis.com", "api.push.apple.com", "localhost", "127.0.0.1"])
        let directory = try LocalServers.temporaryDirectory("hearth-push-credentials")
        try await runScript("make_push_credentials.py", [directory.path])
        return (PushCredentials(directory: directory), ca)
    }

    static func runScript(_ script: String, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", LocalServers.serversDirectory.appendingPathComponent(script).path] + arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        process.terminationHandler = nil
        guard status == 0 else {
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw LocalServerError.commandFailed(script, log: log)
        }
    }

    func serviceAccount() throws -> ServiceAccount {
        try ServiceAccount.parse(Array(try Data(contentsOf: URL(fileURLWithPath: serviceAccountFile))), source: serviceAccountFile)
    }
}

/// A fake push service (`fake_fcm.py` or `fake_apns.py`) on 127.0.0.1 and a real
/// ``CurlHTTPClient`` that reaches it under the production host names through
/// `CURLOPT_CONNECT_TO`, over HTTP/2 + TLS with the test CA.
struct FakePushService: Sendable {
    let server: LocalServer
    let client: CurlHTTPClient
    let credentials: PushCredentials

    static let pythonReady = LocalServers.pythonHasModules(["h2", "cryptography"])

    static func fcm(extraArguments: [String] = [], timeout: Duration = .seconds(15)) async throws -> FakePushService {
        let (credentials, ca) = try await PushCredentials.shared.value
        let server = try await LocalServer.start(
            script: "fake_fcm.py",
            arguments: ["--cert", ca.serverCertificateFile, "--key", ca.serverKeyFile, "--public-key", credentials.serviceAccountPublicKey] + extraArguments,
            scheme: "https")
        let client = try CurlHTTPClient(options: HTTPClientOptions(
            timeout: timeout, caFile: ca.caFile,
            connectTo: ["fcm.googleapis.com:443:127.0.0.1:\(server.port)", "oauth2.googleapis.com:443:127.0.0.1:\(server.port)"]))
        return FakePushService(server: server, client: client, credentials: credentials)
    }

    static func apns(extraArguments: [String] = []) async throws -> FakePushService {
        let (credentials, ca) = try await PushCredentials.shared.value
        let server = try await LocalServer.start(
            script: "fake_apns.py",
            arguments: [
                "--cert", ca.serverCertificateFile, "--key", ca.serverKeyFile, "--public-key", credentials.apnsPublicKey,
                "--key-id", PushCredentials.apnsKeyID, "--team-id", PushCredentials.apnsTeamID, "--topic", PushCredentials.apnsTopic,
            ] + extraArguments,
            scheme: "https")
        let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: ca.caFile, connectTo: ["api.push.apple.com:443:127.0.0.1:\(server.port)"]))
        return FakePushService(server: server, client: client, credentials: credentials)
    }

    /// The fake's `/_stats` (what it accepted and rejected).
    func stats(host: String) async throws -> JSONObject {
        let response = try await client.send(HTTPRequest(url: "https://\(host)/_stats"))
        guard response.status == 200, case .object(let o) = try JSONParser.parse(response.body) else {
            throw LocalServerError.commandFailed("GET /_stats", log: String(decoding: response.body, as: UTF8.self))
        }
        return o
    }

    func stop() {
        client.shutdown()
        server.stop()
    }
}

/// A clock the tests move by hand (JWT `iat`, token expiry).
final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    private let start = Date()
    init() {}
    func now() -> Date { start.addingTimeInterval(offset.withLock { $0 }) }
    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}
