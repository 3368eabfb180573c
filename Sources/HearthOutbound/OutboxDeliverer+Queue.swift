package import Foundation
package import HearthStore
import HearthKit
import Logging

extension OutboxDeliverer {
    /// How many messages one claim takes from a shared queue.
    package static let queueBatchSize = 100

    /// One delivery pass over a shared queue (PostgreSQL: docs/outbox-and-webhooks.md#postgresql):
    /// claims due messages a batch at a time, attempts each once with the same rules as the data
    /// directory's outbox (``advance(_:now:pass:)``), records the outcomes and ends the claim,
    /// until no due message is left unclaimed. Never throws: failures are in the report and the log.
    package func deliverDue(from queue: any OutboxClaimingQueue, now: Date = Date(), batchSize: Int = queueBatchSize) async -> OutboxDeliveryReport {
        var report = OutboxDeliveryReport()
        let pass = Pass(disabled: DisabledEndpoints(store: store).disabledNames(among: webhooks))
        while !Task.isCancelled {
            let batch: any OutboxQueueBatch
            do {
                batch = try await queue.claimDue(limit: batchSize, now: now)
            } catch {
                logger.error("cannot claim outbox messages: \(error)")
                report.errors.append("\(error)")
                break
            }
            let results = await attemptAll(batch.messages, now: now, pass: pass)
            do {
                try await batch.finish(results.map(\.0))
                for (_, result) in results { report.add(result) }
            } catch {
                // Nothing recorded: the messages are pending as before and are sent again later.
                logger.error("cannot record the delivery of \(results.count) outbox messages (they will be attempted again): \(error)")
                report.errors.append("\(error)")
                break
            }
            let attempted = results.contains { if case .untouched = $0.0 { false } else { true } }
            if batch.messages.count < batchSize || !attempted { break }
        }
        if let next = try? await BlockingIO.run({ () throws(any Error) in try queue.nextDueDate() }) { report.noteDue(next) }
        if report.attemptedAny || !report.errors.isEmpty {
            logger.log(
                level: report.retrying + report.deadLettered > 0 || !report.errors.isEmpty ? .notice : .info,
                "\(report.summaryLine)")
        }
        return report
    }

    /// Attempts `messages`, at most `options.concurrency` at once, in their order.
    func attemptAll(_ messages: [OutboxEnvelope], now: Date, pass: Pass) async -> [(OutboxOutcome, Result)] {
        await withTaskGroup(of: (Int, OutboxOutcome, Result).self) { group in
            var next = 0
            var out: [(OutboxOutcome, Result)?] = Array(repeating: nil, count: messages.count)
            while next < min(messages.count, options.concurrency) {
                let index = next
                group.addTask { let (o, r) = await self.attemptQueued(messages[index], now: now, pass: pass); return (index, o, r) }
                next += 1
            }
            while let (index, outcome, result) = await group.next() {
                out[index] = (outcome, result)
                if next < messages.count {
                    let index = next
                    group.addTask { let (o, r) = await self.attemptQueued(messages[index], now: now, pass: pass); return (index, o, r) }
                    next += 1
                }
            }
            return out.compactMap { $0 }
        }
    }

    /// One claimed message of a queue: attempted once; its outcome for the queue to record.
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
            envelope.finishedAt = clock()
            if folder == .dropped { Self.redactQueuedTokens(&envelope) }
            return (.finished(envelope, folder), finished(envelope, in: folder, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled))
        case .retrying(let tokensRemoved, let endpointsDisabled):
            return (.retry(envelope), .retrying(next: envelope.dueAt, tokensRemoved: tokensRemoved, endpointsDisabled: endpointsDisabled))
        }
    }
}
