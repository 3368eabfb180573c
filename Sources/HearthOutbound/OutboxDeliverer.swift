import Dispatch
package import Foundation
package import Logging
import Synchronization
package import HearthKit
package import HearthStore

/// Delivers the outbox (docs/outbox-and-webhooks.md#delivery-retries-dead-letters): the messages jobs committed to `.hearth/outbox/pending/`,
/// after their commit, at least once, each under its stable id.
///
/// - **Events** go to every `[[webhooks]]` endpoint whose `events` filter names their type (an
///   empty filter takes all), as signed Standard Webhooks (``WebhookSender``). The endpoints are
///   fixed at the first attempt and tracked one by one in the message file, so a retry only
///   re-sends to the endpoints not done yet. An endpoint answering 410 is disabled until its
///   configuration changes (``DisabledEndpoints``).
/// - **Pushes** go to the injected ``PushProvider``, once per device token (the payload's
///   `tokens`, or, when the job queued none, the user's `fcmTokens` + `fcmToken` for FCM,
///   `apnsTokens` for APNs, all of them for the webhook provider), tracked token by token.
///   `.removeToken` removes the token from `users/{userId}` in a follow-up commit
///   (``PushTokenRemover``) and drops the push for it. Without a provider (`provider = "none"`)
///   pushes are moved to `dropped/` with the reason `skipped: no push provider configured`.
/// - **Failures** that may pass (timeouts, connection errors, 429, 5xx, any non-2xx webhook
///   answer but 410) are retried: the next attempt is at the server's `Retry-After` when it sent
///   one, else after an exponential delay with full jitter (``RetryBackoff``, between
///   ``Options/backoffMin`` and ``Options/backoffMax``). After `maxAttempts` attempts, or once
///   the next attempt would fall past `maxAge` (counted from the first attempt, or from the last
///   `hearth outbox retry`), the message becomes a dead letter (`dead/`). A permanent push
///   failure (`.permanentFailure`) makes it a dead letter once its other tokens are done.
///
/// **Crash safety.** A message never leaves `pending/` before it is finished: state changes are
/// written as temp file + fsync + rename; a finished message is unlinked; a dead letter is
/// written into `dead/` before its pending file is unlinked. A crash at any instant leaves the
/// old or the new state, and at worst sends a target again (at-least-once; receivers dedupe on
/// `webhook-id`).
///
/// **Concurrent deliverers** (a CLI and the daemon): each message is claimed with an exclusive,
/// non-blocking `flock` on the message file itself (``OutboxClaim``, which explains the choice
/// over rename-into-`inflight/`); a message claimed elsewhere is skipped this pass, so no two
/// deliverers ever send one message at the same time, and a killed deliverer's claims vanish
/// with it.
///
/// **Concurrency.** At most `outbox.concurrency` messages are in flight; the targets of one
/// message are sent in parallel. A slow endpoint occupies only the messages addressed to it.
///
/// Logs and message files' `lastError` never contain a secret, a full device token (only its
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

    /// The data directory whose outbox folders ``deliverDue(now:)`` delivers.
    package let data: DataDirectory
    /// Where users' device tokens are read and dead ones removed, and disabled endpoints are
    /// kept: the configured storage backend (`data` itself on the directory backend).
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
    ///   - store: the storage backend holding users and disabled endpoints; nil: `data`.
    package init(
        webhooks: [WebhookConfig], data: DataDirectory, store: (any StorageBackend)? = nil, transport: any HTTPTransport, pushProvider: (any PushProvider)?,
        logger: Logger, options: Options = Options(), environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.data = data
        self.store = store ?? data
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
        self.remover = PushTokenRemover(store: self.store, lockTimeout: options.lockTimeout)
    }

    var pendingDirectory: String { OutboxStore.directory(.pending, in: data) }

    // MARK: Passes

    /// Delivers every pending message due at `now` (one attempt each) and reports what happened.
    /// Never throws: failures are in the report and the log.
    package func deliverDue(now: Date = Date()) async -> OutboxDeliveryReport {
        var report = OutboxDeliveryReport()
        let listing: OutboxStore.PendingListing
        do {
            listing = try OutboxStore.pendingListing(data)
        } catch {
            logger.error("cannot list the outbox: \(error)")
            report.errors.append(error.description)
            return report
        }
        removeOrphanLogs(listing)
        if listing.files.isEmpty && listing.batches.isEmpty { return report }
        let pass = Pass(disabled: DisabledEndpoints(store: store).disabledNames(among: webhooks))
        var work = WorkList(files: listing.files, batches: listing.batches, deliverer: self)
        await withTaskGroup(of: Result.self) { group in
            var inFlight = 0
            while inFlight < options.concurrency, let item = work.next(&report) {
                group.addTask { await self.process(item, now: now, pass: pass) }
                inFlight += 1
            }
            while let result = await group.next() {
                report.add(result)
                if let item = work.next(&report) {
                    group.addTask { await self.process(item, now: now, pass: pass) }
                }
            }
        }
        for batch in work.claimed {
            if let error = await close(batch) { report.errors.append(error) }
        }
        if report.dropped > 0 {
            let data = self.data
            await Self.offload { OutboxStore.pruneDropped(data) }
        }
        if report.attemptedAny || !report.errors.isEmpty {
            logger.log(
                level: report.retrying + report.deadLettered > 0 || !report.errors.isEmpty ? .notice : .info,
                "\(report.summaryLine)")
        }
        return report
    }

    /// The earliest time a pending message is due (now or in the past when one is due
    /// already); nil when nothing is pending. For the daemon's sleep.
    package func nextDueDate() -> Date? {
        guard let messages = try? OutboxStore.messages(in: .pending, data: data) else { return nil }
        return messages.map(\.dueAt).min()
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

        let droppedStored = Mutex(0)

        init(disabled: Set<String>) {
            self.disabled = Mutex(disabled)
        }

        /// Whether one more dropped message may be written to `dropped/` this pass.
        func mayStoreDropped() -> Bool {
            droppedStored.withLock { n in
                defer { n += 1 }
                return n < OutboxStore.droppedRetention
            }
        }
    }

    func process(_ item: WorkItem, now: Date, pass: Pass) async -> Result {
        switch item {
        case .file(let name): return await process(name, now: now, pass: pass)
        case .batched(let batch, let line): return await process(line: line, of: batch, now: now, pass: pass)
        }
    }

    /// One message of a single file: claimed, attempted, and its file replaced or removed.
    func process(_ name: String, now: Date, pass: Pass) async -> Result {
        let file = pendingDirectory + "/" + name
        let claim: OutboxClaim
        let bytes: [UInt8]
        do {
            switch try OutboxClaim.tryClaim(file) {
            case .claimed(let c): claim = c
            case .busy: return .busy(recheck: clock().addingTimeInterval(Self.busyRecheck))
            case .gone: return .vanished  // finished by another deliverer since the listing
            }
            bytes = try claim.read()
        } catch {
            return .failed(error.description)
        }
        defer { claim.release() }

        guard var envelope = OutboxEnvelope(bytes: bytes), envelope.kind != nil else {
            logger.error("outbox message file is not a valid message; moved to dead letters", metadata: ["file": "\(name)"])
            do {
                try OutboxStore.move(name, from: .pending, to: .dead, data: data)
                return .dead(tokensRemoved: 0, endpointsDisabled: 0)
            } catch {
                return .failed(error.description)
            }
        }
        switch await advance(&envelope, now: now, pass: pass) {
        case .notDue(let date):
            return .notDue(date)
        case .finished(let folder, let tokensRemoved, let endpointsDisabled):
            return await finish(envelope, claim: claim, name: name, as: folder, pass: pass, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
        case .retrying(let tokensRemoved, let endpointsDisabled):
            let updated = envelope
            return await Self.offload { [logger] in
                defer { claim.release() }  // after the rename: the old inode is released here
                do {
                    try FileIO.writeAtomically(file, updated.bytes)
                } catch {
                    logger.error("cannot record the delivery state of an outbox message: \(error)", metadata: ["id": "\(updated.id)"])
                    return .failed("\(error)")
                }
                return .retrying(next: updated.dueAt, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
            }
        }
    }

    /// Where one attempt left a message.
    enum Step {
        case notDue(Date)
        /// Done: removed (`nil`), or to be moved to `dead/` or `dropped/`.
        case finished(OutboxStore.Folder?, tokensRemoved: Int, endpointsDisabled: Int)
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
        case .push: resolveTokens(envelope)
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
            let userID = envelope.payload["userId"]?.stringValue ?? envelope.recipient
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

    /// Runs blocking file work — fsync, and above all the release of a deleted or replaced
    /// message file, which on file systems mounted with `discard` waits for the device — on a
    /// dispatch queue of its own, so it never stalls the Swift concurrency pool (whose few
    /// threads also run the HTTP client's completions).
    static func offload<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            fileQueue.async { continuation.resume(returning: body()) }
        }
    }

    static let fileQueue = DispatchQueue(label: "hearth.outbox.files", attributes: .concurrent)

    /// Seconds after which a message another deliverer held is looked at again.
    static let busyRecheck: TimeInterval = 30

    /// A message is done: removed (`folder` nil), or moved to `dead/` or `dropped/`. Its final
    /// state is written into the new folder (temp file, rename) before the pending file is
    /// unlinked, so a crash in between leaves it in both folders — and the pending copy is
    /// attempted once more — never in neither.
    private func finish(_ finished: OutboxEnvelope, claim: OutboxClaim, name: String, as folder: OutboxStore.Folder?, pass: Pass, tokensRemoved: Int, endpointsDisabled: Int) async -> Result {
        await Self.offload { [self] in
            defer { claim.release() }  // after the unlink: the inode is released here
            var envelope = finished
            return complete(&envelope, name: name, as: folder, pass: pass, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
        }
    }

    private func complete(_ envelope: inout OutboxEnvelope, name: String, as folder: OutboxStore.Folder?, pass: Pass, tokensRemoved: Int, endpointsDisabled: Int) -> Result {
        let file = pendingDirectory + "/" + name
        do {
            guard let folder, folder != .pending else {
                try FileIO.remove(file)
                logger.debug("outbox message delivered", metadata: ["id": "\(envelope.id)"])
                return .delivered(tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
            }
            try store(&envelope, name: name, in: folder, pass: pass)
            try FileIO.remove(file)
            return finished(envelope, in: folder, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
        } catch {
            logger.error("cannot finish an outbox message: \(error)", metadata: ["id": "\(envelope.id)"])
            return .failed(error.description)
        }
    }

    /// Writes a dead or dropped message's final state into its folder (a dead letter durably).
    func store(_ envelope: inout OutboxEnvelope, name: String, in folder: OutboxStore.Folder, pass: Pass) throws(FileIO.Failure) {
        envelope.finishedAt = clock()
        // One pass keeps at most `droppedRetention` dropped messages (pruning keeps no more).
        if folder == .dropped, !pass.mayStoreDropped() { return }
        if folder == .dropped { Self.redactQueuedTokens(&envelope) }
        let dir = OutboxStore.directory(folder, in: data)
        try FileIO.makeDirectories(dir, within: data.root)
        try FileIO.writeAtomically(dir + "/" + name, envelope.bytes, sync: folder == .dead)
        if folder == .dead { try FileIO.fsyncDirectory(dir) }
    }

    /// A dropped message is kept for inspection only: no need to keep its device tokens.
    static func redactQueuedTokens(_ envelope: inout OutboxEnvelope) {
        guard let tokens = envelope.queuedTokens else { return }
        var payload = envelope.payload
        payload["tokens"] = .array(tokens.map { .string(Redaction.redact($0)) })
        envelope.object["payload"] = .object(payload)
    }

    /// The result for a message just stored in `dead/` or `dropped/`.
    func finished(_ envelope: OutboxEnvelope, in folder: OutboxStore.Folder, tokensRemoved: Int, endpointsDisabled: Int) -> Result {
        if folder == .dropped { return .dropped }
        logger.warning(
            "outbox message moved to dead letters (see `hearth outbox dead`, `hearth outbox retry ID`)",
            metadata: ["id": "\(envelope.id)", "reason": "\(envelope.reason ?? "")"])
        return .dead(tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled)
    }

    // MARK: Targets

    /// A message's targets for this attempt, or why it is dropped.
    enum Resolution {
        case targets([OutboxEnvelope.Target])
        case drop(String)
    }

    /// Fixes an event's endpoints at its first attempt; afterwards marks endpoints that were
    /// removed from the configuration or disabled as skipped. Drops the message when there is
    /// nobody to send it to. The caller stores the targets in the envelope.
    func resolveEndpoints(_ envelope: OutboxEnvelope, pass: Pass) -> Resolution {
        let type = envelope.recipient
        let disabled = pass.disabled.withLock { $0 }
        if !envelope.hasTargets {
            let subscribed = webhooks.filter { $0.events.isEmpty || $0.events.contains(type) }
            let live = subscribed.filter { !disabled.contains($0.name) }
            if live.isEmpty {
                return .drop(subscribed.isEmpty
                    ? "no webhook endpoint subscribes to \(type)"
                    : "every endpoint subscribed to \(type) is disabled (410): \(subscribed.map(\.name).joined(separator: ", "))")
            }
            return .targets(live.map { OutboxEnvelope.Target(name: $0.name) })
        }
        return .targets(envelope.targets.map { t in
            guard t.state == .pending else { return t }
            var t = t
            if !webhooks.contains(where: { $0.name == t.name }) {
                t.state = .skipped
                t.error = "the endpoint is no longer configured"
            } else if disabled.contains(t.name) {
                t.state = .skipped
                t.error = "the endpoint is disabled (it answered 410)"
            }
            return t
        })
    }

    /// Fixes a push's device tokens at its first attempt. Drops the message when it cannot be
    /// pushed at all. The caller stores the targets in the envelope.
    func resolveTokens(_ envelope: OutboxEnvelope) -> Resolution {
        guard let provider = pushProvider else { return .drop("skipped: no push provider configured ([push] provider = \"none\")") }
        if envelope.hasTargets { return .targets(envelope.targets) }
        let userID = envelope.payload["userId"]?.stringValue ?? envelope.recipient
        var tokens = envelope.queuedTokens ?? userTokens(userID, provider: provider.name)
        var seen = Set<String>()
        tokens = tokens.filter { !$0.isEmpty && seen.insert($0).inserted }
        if tokens.isEmpty { return .drop("user \(userID) has no device tokens") }
        return .targets(tokens.map { OutboxEnvelope.Target(name: $0) })
    }

    /// The device tokens on `users/{userID}` for `provider`.
    func userTokens(_ userID: String, provider: String) -> [String] {
        guard let path = try? DocumentPath("users", userID), case .document(let user) = store.read(path) else { return [] }
        func strings(_ field: String) -> [String] { user[field]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        let fcm = strings("fcmTokens") + (user["fcmToken"]?.stringValue.map { [$0] } ?? [])
        switch provider {
        case "fcm": return fcm
        case "apns": return strings("apnsTokens")
        default: return fcm + strings("apnsTokens")
        }
    }

    /// Sends to every pending target at once; returns (target index, answer).
    func send(_ envelope: OutboxEnvelope, kind: OutboxMessage.Kind, targets: [OutboxEnvelope.Target], pass: Pass) async -> [(Int, Attempt)] {
        let pending = targets.indices.filter { targets[$0].state == .pending }
        guard !pending.isEmpty else { return [] }
        let body: [UInt8] = kind == .event
            ? WebhookSender.body(type: envelope.recipient, timestamp: envelope.createdAt ?? clock(), data: envelope.payload) : []
        let push: PushNotification? = kind == .push ? envelope.push(tokens: pending.map { targets[$0].name }) : nil
        if pending.count == 1, let index = pending.first {  // the common case: no task group needed
            if let push { return [(index, await self.push(push, to: targets[index].name))] }
            return [(index, await post(body, id: envelope.id, to: targets[index].name, pass: pass))]
        }
        return await withTaskGroup(of: (Int, Attempt).self) { group in
            for index in pending {
                let name = targets[index].name
                group.addTask {
                    if let push {
                        return (index, await self.push(push, to: name))
                    }
                    return (index, await self.post(body, id: envelope.id, to: name, pass: pass))
                }
            }
            var out: [(Int, Attempt)] = []
            for await answer in group { out.append(answer) }
            return out
        }
    }

    func post(_ body: [UInt8], id: String, to endpointName: String, pass: Pass) async -> Attempt {
        guard let endpoint = webhooks.first(where: { $0.name == endpointName }) else {
            return .retry(after: nil, reason: "the endpoint is no longer configured")
        }
        let secret: WebhookSecret
        switch self.secret(for: endpoint, pass: pass) {
        case .success(let s): secret = s
        case .failure(let error): return .retry(after: nil, reason: "cannot sign: \(error.description)")
        }
        switch await sender.send(url: endpoint.url, id: id, body: body, secret: secret, now: clock()) {
        case .delivered: return .delivered
        case .gone: return .gone(reason: "HTTP 410 Gone")
        case .retry(let after, let reason): return .retry(after: after, reason: reason)
        case .cancelled: return .cancelled
        }
    }

    func push(_ push: PushNotification, to token: String) async -> Attempt {
        guard let provider = pushProvider else { return .retry(after: nil, reason: "no push provider configured") }
        if Task.isCancelled { return .cancelled }
        switch await provider.send(push, to: token) {
        case .delivered: return .delivered
        case .removeToken(let reason): return .removeToken(reason: reason)
        case .retry(let after, let reason): return .retry(after: after, reason: reason)
        case .permanentFailure(let reason): return .permanent(reason: reason)
        }
    }

    /// The endpoint's secret, read once per pass (at delivery time, never cached longer).
    func secret(for endpoint: WebhookConfig, pass: Pass) -> Swift.Result<WebhookSecret, WebhookSecretError> {
        if let known = pass.secrets.withLock({ $0[endpoint.name] }) { return known }
        let loaded: Swift.Result<WebhookSecret, WebhookSecretError>
        do {
            loaded = .success(try WebhookSecret.load(file: endpoint.secretFile, env: endpoint.secretEnv, environment: environment))
        } catch {
            loaded = .failure(WebhookSecretError("webhook endpoint \(endpoint.name): \(error.description)"))
        }
        pass.secrets.withLock { $0[endpoint.name] = loaded }
        return loaded
    }

    /// How a target is shown: endpoint names as they are, device tokens by their last 6 characters.
    static func label(_ target: String, kind: OutboxMessage.Kind) -> String {
        kind == .push ? Redaction.redact(target) : target
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
