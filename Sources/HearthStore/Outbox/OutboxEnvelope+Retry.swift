package import Foundation

extension OutboxEnvelope {
    /// `hearth outbox retry`: due at `now`, attempts reset, permanently failed targets pending
    /// again, `maxAge` counted from now. Targets already delivered stay done.
    package mutating func resetForRetry(now: Date) {
        attempts = 0
        firstAttemptAt = nil
        nextAttemptAt = now
        retriedAt = now
        lastError = nil
        reason = nil
        finishedAt = nil
        targets = targets.map { t in
            var t = t
            if t.state == .failed { t.state = .pending; t.error = nil }
            return t
        }
    }
}
