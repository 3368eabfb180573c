package import Foundation
package import HearthStore
import HearthKit
import Logging

extension OutboxDeliverer {
    /// One delivery pass over the storage backend's outbox (``OutboxStore/outbox``).
    /// Never throws: failures are in the report and the log.
    package func deliverDue(now: Date = Date()) async -> OutboxDeliveryReport {
        await deliverDue(from: store.outbox, now: now)
    }

    /// The earliest time a pending message is due (now or in the past when one is due
    /// already); nil when nothing is pending. For the daemon's sleep.
    package func nextDueDate() -> Date? {
        try? store.outbox.nextDueDate()
    }

    /// One delivery pass over `queue` (docs/outbox-and-webhooks.md#delivery-retries-dead-letters):
    /// first the messages nobody is configured to receive are dropped in one step where the
    /// queue can (``OutboxClaimingQueue/dropUndeliverable(_:now:finishedAt:)``); then due
    /// messages are claimed a batch at a time, each attempted once (``advance(_:now:pass:)``),
    /// and the claim's outcomes recorded, until a claim comes back empty. Never throws:
    /// failures are in the report and the log.
    ///
    /// - Parameter batchSize: how many messages a claim takes; nil: the queue's ``OutboxClaimingQueue/claimSize``.
    package func deliverDue(from queue: any OutboxClaimingQueue, now: Date = Date(), batchSize: Int? = nil) async -> OutboxDeliveryReport {
        let batchSize = max(1, batchSize ?? queue.claimSize)
        var report = OutboxDeliveryReport()
        let pass = Pass(disabled: DisabledEndpoints(store: store).disabledNames(among: webhooks))
        await dropUndeliverable(from: queue, now: now, into: &report)
        // Ids attempted this pass: a message whose outcome could not be recorded is claimed
        // again; it is not attempted twice in one pass.
        var attempted = Set<String>()
        while !Task.isCancelled {
            let batch: any OutboxQueueBatch
            do {
                batch = try await queue.claimDue(limit: batchSize, now: now)
            } catch {
                logger.error("cannot claim outbox messages: \(error)")
                report.errors.append("\(error)")
                break
            }
            let skipped = batch.skipped
            if !skipped.isEmpty {
                report.add(skipped, recheck: clock().addingTimeInterval(OutboxClaimSkips.busyRecheck))
            }
            let fresh = batch.messages.map { attempted.insert($0.id).inserted }
            if !fresh.contains(true) {
                try? await batch.finish(batch.messages.map { .untouched(id: $0.id) })
                break
            }
            await prefetchTokens(for: batch.messages, pass: pass)
            let results = await attemptAll(batch.messages, fresh: fresh, now: now, pass: pass)
            do {
                try await batch.finish(results.map(\.0))
                for (_, result) in results { report.add(result) }
            } catch let failure as OutboxFinishFailure {
                // Some outcomes not recorded: those messages stay pending as they were.
                logger.error("cannot record the delivery of \(failure.failed.count) outbox messages (they will be attempted again): \(failure)")
                for (outcome, result) in results where failure.failed[outcome.id] == nil { report.add(result) }
                report.errors += failure.failed.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            } catch {
                // Nothing recorded: the messages are pending as before and are sent again later.
                logger.error("cannot record the delivery of \(results.count) outbox messages (they will be attempted again): \(error)")
                report.errors.append("\(error)")
                break
            }
        }
        if let next = try? await BlockingIO.run({ () throws(any Error) in try queue.nextDueDate() }) { report.noteDue(next) }
        if report.attemptedAny || !report.errors.isEmpty {
            logger.log(
                level: report.retrying + report.deadLettered > 0 || !report.errors.isEmpty ? .notice : .info,
                "\(report.summaryLine)")
        }
        return report
    }

    /// Drops, in one step where the queue can, the never-attempted messages nobody is
    /// configured to receive: every push without a provider, every event no endpoint
    /// subscribes to. Each gets the reason it would get one by one.
    func dropUndeliverable(from queue: any OutboxClaimingQueue, now: Date, into report: inout OutboxDeliveryReport) async {
        let rule = OutboxDropRule(
            pushReason: pushProvider == nil ? Self.noProviderReason : nil,
            subscribedEventTypes: webhooks.contains { $0.events.isEmpty } ? nil : Set(webhooks.flatMap(\.events)))
        guard rule.dropsAnything else { return }
        let counts: [OutboxMessage.Kind: Int]?
        do {
            counts = try await queue.dropUndeliverable(rule, now: now, finishedAt: clock())
        } catch {
            // The claims drop them one by one instead.
            logger.error("cannot drop the outbox messages nobody is configured to receive: \(error)")
            report.errors.append("\(error)")
            return
        }
        guard let counts, !counts.isEmpty else { return }
        for (kind, n) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            report.dropped += n
            if let observer {
                for _ in 0..<n { observer(OutboxAttemptObservation(kind: kind.rawValue, result: .dropped, duration: .zero)) }
            }
        }
        logger.info("outbox messages dropped: nobody is configured to receive them", metadata: [
            "pushes": "\(counts[.push] ?? 0)", "events": "\(counts[.event] ?? 0)",
            "reason": "\(rule.pushReason ?? OutboxDropRule.noSubscriberReason("…"))",
        ])
    }

    /// Attempts `messages` (those `fresh` this pass), at most `options.concurrency` at once;
    /// the outcomes in their order.
    func attemptAll(_ messages: [OutboxEnvelope], fresh: [Bool], now: Date, pass: Pass) async -> [(OutboxOutcome, Result)] {
        await withTaskGroup(of: (Int, OutboxOutcome, Result).self) { group in
            var out: [(OutboxOutcome, Result)?] = Array(repeating: nil, count: messages.count)
            var todo = messages.indices.filter { fresh[$0] }.makeIterator()
            for index in messages.indices where !fresh[index] {
                out[index] = (.untouched(id: messages[index].id), .vanished)
            }
            var inFlight = 0
            while inFlight < options.concurrency, let index = todo.next() {
                group.addTask { let (o, r) = await self.attemptQueued(messages[index], now: now, pass: pass); return (index, o, r) }
                inFlight += 1
            }
            while let (index, outcome, result) = await group.next() {
                out[index] = (outcome, result)
                if let index = todo.next() {
                    group.addTask { let (o, r) = await self.attemptQueued(messages[index], now: now, pass: pass); return (index, o, r) }
                }
            }
            return out.compactMap { $0 }
        }
    }

    /// One claimed message: attempted once; its outcome for the queue to record.
    func attemptQueued(_ message: OutboxEnvelope, now: Date, pass: Pass) async -> (OutboxOutcome, Result) {
        var envelope = message
        guard envelope.kind != nil else {
            logger.error("outbox message is not a valid message; moved to dead letters", metadata: ["id": "\(envelope.id)"])
            envelope.reason = "not a valid outbox message"
            envelope.finishedAt = clock()
            return (.finished(envelope, .dead), .dead(tokensRemoved: 0, endpointsDisabled: 0))
        }
        switch await advance(&envelope, now: now, pass: pass) {
        case .notDue(let date):
            return (.untouched(id: envelope.id), .notDue(date))
        case .finished(let folder, let tokensRemoved, let endpointsDisabled):
            guard let folder, folder != .pending else {
                logger.debug("outbox message delivered", metadata: ["id": "\(envelope.id)"])
                return (.delivered(id: envelope.id), .delivered(tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled))
            }
            if folder == .dropped {
                envelope.markDropped(reason: envelope.reason ?? "", at: clock())
                return (.finished(envelope, .dropped), .dropped)
            }
            envelope.finishedAt = clock()
            logger.warning(
                "outbox message moved to dead letters (see `hearth outbox dead`, `hearth outbox retry ID`)",
                metadata: ["id": "\(envelope.id)", "reason": "\(envelope.reason ?? "")"])
            return (.finished(envelope, folder), .dead(tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled))
        case .retrying(let tokensRemoved, let endpointsDisabled):
            return (.retry(envelope), .retrying(next: envelope.dueAt, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled))
        }
    }
}

extension OutboxDeliveryReport {
    /// Counts what a claim passed over; a message another deliverer holds is looked at again at `recheck`.
    mutating func add(_ skipped: OutboxClaimSkips, recheck: Date) {
        notDue += skipped.notDue
        if let d = skipped.earliestNotDue { noteDue(d) }
        busy += skipped.busy
        if skipped.busy > 0 { noteDue(recheck) }
        errors += skipped.errors
    }
}
