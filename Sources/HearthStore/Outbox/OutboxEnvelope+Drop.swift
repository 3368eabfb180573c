package import Foundation
import HearthKit

extension OutboxEnvelope {
    /// Marks the message dropped (nothing to deliver to): its reason and the time. A dropped
    /// message is kept for inspection only, so the device tokens its job queued are redacted
    /// to their last 6 characters.
    package mutating func markDropped(reason: String, at date: Date) {
        self.reason = reason
        finishedAt = date
        redactQueuedTokens()
    }

    /// Replaces the payload's `tokens` by their redacted forms.
    package mutating func redactQueuedTokens() {
        guard let tokens = queuedTokens else { return }
        var payload = self.payload
        payload["tokens"] = .array(tokens.map { .string(Redaction.redact($0)) })
        object["payload"] = .object(payload)
    }
}
