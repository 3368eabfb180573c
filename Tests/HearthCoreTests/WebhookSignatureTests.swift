import Foundation
import HearthKit
import HearthOutbound
import HearthHost
import Testing
import HearthTestSupport

/// Standard Webhooks signatures: `v1,` + base64(HMAC-SHA256(key, "id.timestamp.body")).
/// Expected values come from outside Hearth's code: the Standard Webhooks specification's
/// published vector, a vector computed once with Python's `hmac`, and Python run live.
@Suite("webhook signatures")
struct WebhookSignatureTests {
    /// The vector published with the Standard Webhooks reference libraries.
    @Test func matchesTheStandardWebhooksPublishedVector() throws {
        let key = try WebhookSignature.key(fromSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signature = WebhookSignature.sign(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8), key: key)
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    /// Computed with:
    /// `base64(hmac.new(b"hearth-plain-secret", b"<id>.1763467200.<body>", sha256).digest())`.
    @Test func aPlainSecretIsUsedAsItsUTF8Bytes() throws {
        let body = #"{"type":"job.failed","timestamp":"2026-11-18T12:00:00.000Z","data":{"job":"weekly-bonus"}}"#
        let key = try WebhookSignature.key(fromSecret: "hearth-plain-secret")
        #expect(key == Array("hearth-plain-secret".utf8))
        let signature = WebhookSignature.sign(
            id: "job.failed-weekly-bonus-20261118T120000000Z-00ff", timestamp: 1_763_467_200, body: Array(body.utf8), key: key)
        #expect(signature == "v1,EOIf5C20MU7HeDxzOJITxudSH/UrJoRtEAi3HwGwKQk=")
    }

    @Test func aWhsecSecretIsTheBase64OfItsKey() throws {
        let raw = Array("0123456789abcdef0123456789abcdef".utf8)
        let key = try WebhookSignature.key(fromSecret: "whsec_" + Data(raw).base64EncodedString())
        #expect(key == raw)
    }

    @Test func aBadWhsecSecretIsRefusedWithoutEchoingIt() {
        let secret = "whsec_!!!not-base64-SECRETVALUE"
        do {
            _ = try WebhookSignature.key(fromSecret: secret)
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("SECRETVALUE"))
            #expect(error.description.contains("base64"))
        }
    }

    /// Python's `hmac`, run now on random inputs, agrees with Hearth's signer.
    @Test func agreesWithPythonHMACOnRandomInputs() throws {
        let seed = try TestSeed()
        var rng = seed.generator()
        for _ in 0..<5 {
            let keyBytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let secret = "whsec_" + Data(keyBytes).base64EncodedString()
            let id = "msg-\(String(rng.next(), radix: 16))"
            let timestamp = Int64.random(in: 1_600_000_000...1_900_000_000, using: &rng)
            let body = Array(#"{"type":"x","data":{"n":\#(Int.random(in: 0...1_000_000, using: &rng)),"s":"é ✓"}}"#.utf8)
            let ours = WebhookSignature.sign(id: id, timestamp: timestamp, body: body, key: try WebhookSignature.key(fromSecret: secret))
            let script = """
                import base64, hashlib, hmac, sys
                secret, msg_id, ts, body = sys.argv[1], sys.argv[2], sys.argv[3], base64.b64decode(sys.argv[4])
                key = base64.b64decode(secret[len("whsec_"):])
                digest = hmac.new(key, msg_id.encode() + b"." + ts.encode() + b"." + body, hashlib.sha256).digest()
                print("v1," + base64.b64encode(digest).decode())
                """
            let python = try Self.run(["python3", "-c", script, secret, id, String(timestamp), Data(body).base64EncodedString()])
            #expect(python == ours, "replay with \(seed)")
        }
    }

    @Test func theSecretFileLosesItsTrailingNewlineAndEnvWorksToo() throws {
        let dir = try TempDirectory("hearth-secret")
        defer { dir.remove() }
        try dir.write("plain.secret", "file-secret\n")
        try dir.write("crlf.secret", "crlf-secret\r\n")
        #expect(try WebhookSecret.load(file: dir.path + "/plain.secret", env: nil, environment: [:]).key == Array("file-secret".utf8))
        #expect(try WebhookSecret.load(file: dir.path + "/crlf.secret", env: nil, environment: [:]).key == Array("crlf-secret".utf8))
        #expect(try WebhookSecret.load(file: nil, env: "HOOK", environment: ["HOOK": "env-secret"]).key == Array("env-secret".utf8))
        #expect(throws: WebhookSecretError.self) { try WebhookSecret.load(file: dir.path + "/missing", env: nil, environment: [:]) }
        #expect(throws: WebhookSecretError.self) { try WebhookSecret.load(file: nil, env: "UNSET", environment: [:]) }
        #expect("\(try WebhookSecret(secret: "do-not-print"))".contains("do-not-print") == false)
    }

    @Test func theRequestCarriesTheStandardHeadersAndBody() throws {
        let secret = try WebhookSecret(secret: "s3cret-value")
        let body = WebhookSender.body(type: "job.failed", timestamp: Date(timeIntervalSince1970: 1_763_467_200), data: JSONObject([("job", .string("weekly-bonus"))]))
        #expect(String(decoding: body, as: UTF8.self) == #"{"type":"job.failed","timestamp":"2025-11-18T12:00:00.000Z","data":{"job":"weekly-bonus"}}"#)
        let request = WebhookSender.request(url: "https://example.com/hook", id: "m1", timestamp: 1_763_467_200, body: body, secret: secret)
        let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(request.method == "POST")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["webhook-id"] == "m1")
        #expect(headers["webhook-timestamp"] == "1763467200")
        #expect(headers["webhook-signature"] == WebhookSignature.sign(id: "m1", timestamp: 1_763_467_200, body: body, key: secret.key))
    }

    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
