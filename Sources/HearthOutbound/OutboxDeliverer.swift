import Dispatch
package import Foundation
package import Logging
import Synchronization
package import HearthKit
package import HearthStore

/// Delivers the outbox (docs/outbox-and-webhooks.md#delivery-retries-dead-letters): the messages
/// jobs committed, after their commit, at least once, each under its stable id, from whatever
/// backend holds them: a pass claims due messages from the backend's queue
/// (``OutboxStore/outbox``, an ``OutboxClaimingQueue``) a batch at a time, attempts each
/// once, and hands the outcomes back to the queue to record (``deliverDue(from:now:batchSize:)``).
///
/// - **Events** go to every `[[webhooks]]` endpoint whose `events` filter names their type (an
///   empty filter takes all), as signed Standard Webhooks (``WebhookSender``). The endpoints are
///   fixed at the first attempt and tracked one by one in the message, so a retry only
///   re-sends to the endpoints not done yet. An endpoint answering 410 is disabled until its
///   configuration changes (``DisabledEndpoints``).
/// - **Pushes** go to the injected ``PushProvider``, once per device token (the payload's
///   `tokens`, or, when the job queued none, the user's tokens for the provider: ``DeviceTokens``),
///   tracked token by token. `.removeToken` removes the token from `users/{userId}` in a
///   follow-up commit (``PushTokenRemover``) and drops the push for it. Without a provider
///   (`provider = "none"`) pushes are dropped with the reason `skipped: no push provider configured`.
/// - **Failures** that may pass (timeouts, connection errors, 429, 5xx, any non-2xx webhook
///   answer but 410) are retried: the next attempt is at the server's `Retry-After` when it sent
///   one, else after an exponential delay with full jitter (``RetryBackoff``, between
///   ``Options/backoffMin`` and ``Options/backoffMax``). After `maxAttempts` attempts, or once
///   the next attempt would fall past `maxAge` (counted from the first attempt, or from the last
///   `hearth outbox retry`), the message becomes a dead letter. A permanent push failure
///   (`.permanentFailure`) makes it a dead letter once its other tokens are done.
///
/// **Claims and crashes** are the queue's: a claimed message is never handed to another
/// deliverer, and a message leaves the queue only once its outcome is recorded, so a crash at
/// worst sends a target again (at-least-once; receivers dedupe on `webhook-id`). See
/// `DirectoryOutbox` (flocks) and `PostgresOutbox` (`FOR UPDATE SKIP LOCKED`).
///
/// **Concurrency.** At most `outbox.concurrency` messages are in flight; the targets of one
/// message are sent in parallel. A slow endpoint occupies only the messages addressed to it.
///
/// Logs and messages' `lastError` never contain a secret, a full device token (only its
/// last 6 characters) or a URL's path and query.
package struct OutboxDeliverer: Sendable {
    /// Limits and delays.
    package struct Options: Sendable {
        package var maxAttempts: Int
        package var maxAge: Duration
        package var concurrency: Int
        /// The shortest delay before a retry (no `Retry-After`).
        package var backoffMin: Duration = .seconds(30)
        /// The longest delay before a retry (no `Retry-After`).
        package var backoffMax: Duration = .seconds(3600)
        /// How long a token-removal commit waits for the writers' lock.
        package var lockTimeout: Duration

        package init(outbox: OutboxConfig = OutboxConfig(), lockTimeout: Duration = .seconds(30)) {
            maxAttempts = max(1, outbox.maxAttempts)
            maxAge = outbox.maxAge
            concurrency = max(1, outbox.concurrency)
            self.lockTimeout = lockTimeout
        }
    }

    /// The storage backend: its outbox queue (``OutboxStore/outbox``), the users whose
    /// device tokens pushes go to (dead ones are removed there), and disabled endpoints.
    package let store: any StorageBackend
    package let webhooks: [WebhookConfig]
    package let options: Options
    let sender: WebhookSender
    let pushProvider: (any PushProvider)?
    let environment: [String: String]
    let logger: Logger
    let clock: @Sendable () -> Date
    let remover: PushTokenRemover
    /// Told about every delivery attempt of a message (for the daemon's metrics); nil: nobody.
    package var observer: (@Sendable (OutboxAttemptObservation) -> Void)?

    /// - Parameters:
    ///   - transport: the HTTP client for webhooks (``CurlHTTPClient`` in production).
    ///   - pushProvider: where pushes go; nil for `provider = "none"`.
    ///   - environment: where `secretEnv` secrets are looked up (the process environment).
    ///   - clock: the wall clock for delivery timestamps and retry times.
    ///   - store: the storage backend whose outbox is delivered.
    package init(
        webhooks: [WebhookConfig], store: any StorageBackend, transport: any HTTPTransport, pushProvider: (any PushProvider)?,
        logger: Logger, options: Options = Options(), environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        var seen = Set<String>()
        var endpoints: [WebhookConfig] = []
        for w in webhooks {
            if seen.insert(w.name).inserted {
                endpoints.append(w)
            } else {
                logger.warning("two [[webhooks]] endpoints are called \(JSONWriter.quoted(w.name)); only the first is used. Give each a unique name.")
            }
        }
        self.webhooks = endpoints
        self.options = options
        self.sender = WebhookSender(transport: transport)
        self.pushProvider = pushProvider
        self.environment = environment
        self.logger = logger
        self.clock = clock
        // Dead tokens go from every token field a built-in provider reads, and the configured
        // provider's own (one registered elsewhere, e.g. by tests).
        let builtIn = PushProviders.builtIn.tokenFields
        let fields = builtIn + (pushProvider?.kind.tokenFields ?? []).filter { !builtIn.contains($0) }
        self.remover = PushTokenRemover(store: self.store, lockTimeout: options.lockTimeout, fields: fields)
    }

    // MARK: One message

    /// What happened to one message in a pass.
    enum Result: Sendable {
        case delivered(tokensRemoved: Int, endpointsDisabled: Int)
        case retrying(next: Date?, tokensRemoved: Int, endpointsDisabled: Int)
        case dead(tokensRemoved: Int, endpointsDisabled: Int)
        case dropped
        /// Claimed by another deliverer; worth a look again at `recheck` (in case it died).
        case busy(recheck: Date)
        case notDue(Date)
        case vanished
        case failed(String)
    }

    /// The answer for one target in one attempt.
    enum Attempt: Sendable {
        case delivered
        case gone(reason: String)
        case removeToken(reason: String)
        case retry(after: Duration?, reason: String)
        case permanent(reason: String)
        case cancelled
    }

    /// State shared by the messages of one pass.
    final class Pass: Sendable {
        let disabled: Mutex<Set<String>>
        let secrets = Mutex<[String: Swift.Result<WebhookSecret, WebhookSecretError>]>([:])
        /// Users' device tokens for the provider, read for a whole claim at once
        /// (``readTokens(for:pass:)``), by user id; a user not here is read on its own.
        let tokens = Mutex<[String: [String]]>([:])

        init(disabled: Set<String>) {
            self.disabled = Mutex(disabled)
        }
    }

    /// Where one attempt left a message.
    enum Step {
        case notDue(Date)
        /// Done: removed (`nil`), or to be moved to `dead/` or `dropped/`.
        case finished(OutboxFolder?, tokensRemoved: Int, endpointsDisabled: Int)
        case retrying(tokensRemoved: Int, endpointsDisabled: Int)
    }

    /// ``attempt(_:now:pass:)``, timed and reported to ``observer``.
    func advance(_ envelope: inout OutboxEnvelope, now: Date, pass: Pass) async -> Step {
        guard let observer else { return await attempt(&envelope, now: now, pass: pass) }
        let started = ContinuousClock.now
        let step = await attempt(&envelope, now: now, pass: pass)
        let result: OutboxAttemptObservation.Result
        switch step {
        case .notDue: return step
        case .finished(nil, _, _): result = .delivered
        case .finished(.dead?, _, _): result = .dead
        case .finished: result = .dropped
        case .retrying: result = .retry
        }
        observer(OutboxAttemptObservation(kind: envelope.kind?.rawValue ?? "unknown", result: result, duration: ContinuousClock.now - started))
        return step
    }

    /// Attempts every pending target of `envelope` once (when due) and updates its state —
    /// except when it is done with every target (`.finished(nil, …)`): then only its id matters.
    func attempt(_ envelope: inout OutboxEnvelope, now: Date, pass: Pass) async -> Step {
        guard let kind = envelope.kind else { return .finished(.dead, tokensRemoved: 0, endpointsDisabled: 0) }
        if envelope.dueAt > now { return .notDue(envelope.dueAt) }

        if envelope.attempts > 0, let base = envelope.ageBase, clock().timeIntervalSince(base) >= DurationFormat.seconds(options.maxAge) {
            envelope.reason = "older than maxAge (\(DurationFormat.format(options.maxAge))) after \(envelope.attempts) attempt\(envelope.attempts == 1 ? "" : "s"); last error: \(envelope.lastError ?? "none")"
            return .finished(.dead, tokensRemoved: 0, endpointsDisabled: 0)
        }

        // The targets: resolved at the first attempt, then kept (written back below).
        let resolution = switch kind {
        case .event: resolveEndpoints(envelope, pass: pass)
        case .push: await resolveTokens(envelope, pass: pass)
        }
        var targets: [OutboxEnvelope.Target]
        switch resolution {
        case .targets(let resolved): targets = resolved
        case .drop(let dropReason):
            envelope.reason = dropReason
            logger.info("outbox message dropped", metadata: ["id": "\(envelope.id)", "reason": "\(dropReason)"])
            return .finished(.dropped, tokensRemoved: 0, endpointsDisabled: 0)
        }

        // One attempt for every pending target, in parallel.
        let attempts = await send(envelope, kind: kind, targets: targets, pass: pass)
        let at = clock()
        var attempted = false
        var retryAfter: Duration?
        var tokensToRemove: [Int: String] = [:]
        var endpointsDisabled = 0
        for (index, outcome) in attempts {
            let label = Self.label(targets[index].name, kind: kind)
            switch outcome {
            case .delivered:
                attempted = true
                targets[index].state = .delivered
                targets[index].at = at
                targets[index].error = nil
            case .gone(let reason):
                attempted = true
                targets[index].state = .disabled
                targets[index].at = at
                targets[index].error = reason
                if let endpoint = webhooks.first(where: { $0.name == targets[index].name }) {
                    let first = pass.disabled.withLock { $0.insert(endpoint.name).inserted }
                    do {
                        let store = self.store
                        try await BlockingIO.run { () throws(any Error) in try DisabledEndpoints(store: store).disable(endpoint, reason: reason, at: at) }
                    } catch {
                        logger.error("cannot record the disabled webhook endpoint \(endpoint.name): \(error)")
                    }
                    if first {
                        endpointsDisabled += 1
                        logger.warning(
                            "webhook endpoint disabled: it answered 410 Gone; it stays disabled until its url, secretFile or secretEnv changes",
                            metadata: ["endpoint": "\(endpoint.name)", "url": "\(HTTPTransportError.displayURL(endpoint.url))"])
                    }
                }
            case .removeToken(let reason):
                attempted = true
                targets[index].error = reason
                tokensToRemove[index] = targets[index].name
            case .retry(let after, let reason):
                attempted = true
                targets[index].error = reason
                if let after { retryAfter = max(retryAfter ?? .zero, after) }
                logger.debug("outbox delivery failed; will retry", metadata: ["id": "\(envelope.id)", "target": "\(label)", "reason": "\(reason)"])
            case .permanent(let reason):
                attempted = true
                targets[index].state = .failed
                targets[index].at = at
                targets[index].error = reason
                logger.warning("push rejected permanently", metadata: ["id": "\(envelope.id)", "token": "\(label)", "reason": "\(reason)"])
            case .cancelled:
                break
            }
        }

        var tokensRemoved = 0
        if !tokensToRemove.isEmpty {
            let userID = envelope.userID
            do {
                try await remover.remove(Array(tokensToRemove.values), fromUser: userID)
                for index in tokensToRemove.keys {
                    targets[index].state = .removed
                    targets[index].at = at
                }
                tokensRemoved = tokensToRemove.count
                logger.notice(
                    "removed dead device token\(tokensRemoved == 1 ? "" : "s") from users/\(userID)",
                    metadata: ["tokens": "\(tokensToRemove.values.map(Redaction.redact).sorted().joined(separator: ","))"])
            } catch {
                for index in tokensToRemove.keys { targets[index].error = "token removal not committed yet: \(error.description)" }
                logger.warning("could not remove dead device tokens; will retry", metadata: ["user": "\(userID)", "reason": "\(error)"])
            }
        }

        let anyPending = targets.contains { $0.state == .pending }
        let anyFailed = targets.contains { $0.state == .failed }
        if !anyPending && !anyFailed {
            // Done with every target: each caller forgets the message now and uses only its id,
            // so its new state is not written back (formatting it cost some 2% of a push's CPU).
            return .finished(nil, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
        }

        envelope.targets = targets
        let errors = targets.filter { $0.state == .pending || $0.state == .failed }.compactMap { t in
            t.error.map { "\(Self.label(t.name, kind: kind)): \($0)" }
        }
        if attempted {
            if envelope.firstAttemptAt == nil { envelope.firstAttemptAt = at }
            envelope.attempts += 1
            envelope.lastError = errors.isEmpty ? nil : errors.prefix(3).joined(separator: "; ") + (errors.count > 3 ? "; and \(errors.count - 3) more" : "")
        }
        if !anyPending {
            envelope.reason = "permanent failure: \(envelope.lastError ?? "rejected")"
            return .finished(.dead, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
        }
        if attempted {
            if envelope.attempts >= options.maxAttempts {
                envelope.reason = "gave up after \(envelope.attempts) attempt\(envelope.attempts == 1 ? "" : "s") (maxAttempts); last error: \(envelope.lastError ?? "none")"
                return .finished(.dead, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
            }
            var random = SystemRandomNumberGenerator()
            let delay = retryAfter ?? RetryBackoff.delay(retry: envelope.attempts, min: options.backoffMin, max: options.backoffMax, using: &random)
            let next = at.addingTimeInterval(DurationFormat.seconds(delay))
            if let base = envelope.ageBase, next.timeIntervalSince(base) >= DurationFormat.seconds(options.maxAge) {
                envelope.reason = "the next attempt would be past maxAge (\(DurationFormat.format(options.maxAge))); last error: \(envelope.lastError ?? "none")"
                return .finished(.dead, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
            }
            envelope.nextAttemptAt = next
        }
        return .retrying(tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
    }

    /// The result for a message just stored in `dead/` or `dropped/`.
    func finished(_ envelope: OutboxEnvelope, in folder: OutboxFolder, tokensRemoved: Int, endpointsDisabled: Int) -> Result {
        if folder == .dropped { return .dropped }
        logger.warning(
            "outbox message moved to dead letters (see `hearth outbox dead`, `hearth outbox retry ID`)",
            metadata: ["id": "\(envelope.id)", "reason": "\(envelope.reason ?? "")"])
        return .dead(tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
    }
}

extension OutboxDeliveryReport {
    mutating func add(_ result: OutboxDeliverer.Result) {
        switch result {
        case .delivered(let removed, let disabled):
            delivered += 1
            tokensRemoved += removed
            endpointsDisabled += disabled
        case .retrying(let next, let removed, let disabled):
            retrying += 1
            tokensRemoved += removed
            endpointsDisabled += disabled
            noteDue(next ?? .distantPast)
        case .dead(let removed, let disabled):
            deadLettered += 1
            tokensRemoved += removed
            endpointsDisabled += disabled
        case .dropped: dropped += 1
        case .busy(let recheck):
            busy += 1
            noteDue(recheck)
        case .notDue(let date):
            notDue += 1
            noteDue(date)
        case .vanished: break
        case .failed(let message): errors.append(message)
        }
    }
}
