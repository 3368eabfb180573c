import Foundation
import HearthKit
import HearthHTTP

/// `Tests/Servers/webhook_receiver.py` on 127.0.0.1: a Standard Webhooks receiver that checks
/// each signature with Python's `hmac` (independently of Hearth's code), records every request
/// and answers as its path says (`/ok`, `/gone`, `/ratelimit`, `/error`, `/unavailable`,
/// `/slow`, `/reset`, `/redirect`, `/flaky`; see the script).
struct WebhookReceiver: Sendable {
    let server: LocalServer

    /// One request the receiver got.
    struct Received: Decodable, Sendable {
        var path: String
        var id: String?
        var timestamp: String?
        var signatureValid: Bool
        var timestampFresh: Bool
        var contentType: String?
        var type: String?
        var eventTimestamp: String?
        var body: String
        var receivedAt: Double
        var completedAt: Double?
        var status: String?
    }

    /// Starts a receiver that verifies with `secret` (as configured in Hearth: `whsec_…` or plain).
    static func start(secret: String) async throws -> WebhookReceiver {
        WebhookReceiver(server: try await LocalServer.start(script: "webhook_receiver.py", arguments: ["--secret", secret], scheme: "http"))
    }

    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> String { server.baseURL + path }

    /// Everything received so far, in arrival order.
    func received() async throws -> [Received] {
        let client = try CurlHTTPClient()
        defer { client.shutdown() }
        let response = try await client.send(HTTPRequest(url: url("/_received")))
        return try JSONDecoder().decode([Received].self, from: Data(response.body))
    }

    func stop() { server.stop() }
}
