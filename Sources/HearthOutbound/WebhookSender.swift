package import Foundation
package import HearthKit

/// Sends one Standard Webhooks message to one endpoint and says what the answer means (docs/outbox-and-webhooks.md#delivery-retries-dead-letters):
/// `POST` with `Content-Type: application/json`, `webhook-id`, `webhook-timestamp` (Unix seconds
/// at sending) and `webhook-signature`. 2xx is delivered; 410 means the endpoint is gone; any
/// other status (3xx included: redirects are never followed) and any transport failure is
/// retried later, honouring `Retry-After`.
///
/// Reasons never contain the URL's path or query (they can carry secrets), the body or a header.
package struct WebhookSender: Sendable {
    /// The meaning of one attempt.
    package enum Outcome: Sendable, Equatable {
        /// A 2xx response.
        case delivered(status: Int)
        /// 410 Gone: the receiver asks not to be called again.
        case gone
        /// Try again later; `after` is the server's `Retry-After`, when it sent one.
        case retry(after: Duration?, reason: String)
        /// The calling task was cancelled before an answer came: not an attempt.
        case cancelled
    }

    package let transport: any HTTPTransport

    package init(transport: any HTTPTransport) {
        self.transport = transport
    }

    /// The body: `{"type": TYPE, "timestamp": ISO-8601, "data": {...}}`, compact JSON.
    package static func body(type: String, timestamp: Date, data: JSONObject) -> [UInt8] {
        JSONWriter.compactBytes(.object(JSONObject([
            ("type", .string(type)), ("timestamp", Timestamp.json(timestamp)), ("data", .object(data)),
        ])))
    }

    /// The signed request for `body`, stamped `timestamp` (Unix seconds).
    package static func request(url: String, id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: url,
            headers: [
                (name: "Content-Type", value: "application/json"),
                (name: "webhook-id", value: id),
                (name: "webhook-timestamp", value: String(timestamp)),
                (name: "webhook-signature", value: WebhookSignature.sign(id: id, timestamp: timestamp, body: body, key: secret.key)),
            ],
            body: body)
    }

    /// Signs and sends `body` to `url` as message `id`, stamped with `now`.
    package func send(url: String, id: String, body: [UInt8], secret: WebhookSecret, now: Date) async -> Outcome {
        let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
        let request = Self.request(url: url, id: id, timestamp: timestamp, body: body, secret: secret)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            if case .cancelled = error { return .cancelled }
            return .retry(after: nil, reason: error.description)
        }
        return Self.classify(response, now: now)
    }

    /// What a response means for a webhook.
    package static func classify(_ response: HTTPResponse, now: Date) -> Outcome {
        switch response.status {
        case 200...299: return .delivered(status: response.status)
        case 410: return .gone
        case 300...399:
            return .retry(after: RetryAfter.delay(response.header("retry-after"), now: now), reason: "HTTP \(response.status) (redirects are not followed; configure the final URL)")
        default:
            return .retry(after: RetryAfter.delay(response.header("retry-after"), now: now), reason: "HTTP \(response.status)")
        }
    }
}
