import Foundation
import Logging
import HearthKit
import HearthStore

/// Slots (docs/scheduler.md#running-the-daemon): the ``SlotPlanner``'s decisions logged,
/// recorded and queued, and the queue's runs started.
extension SchedulerDaemon {
    /// Deals with the job's due slots, if any: records the skipped ones, queues the others,
    /// moves on to the next slot.
    func handleDueSlots(_ name: String, now: Date) {
        guard var j = jobs[name], j.enabled, let next = j.nextSlot, next <= now else { return }
        let policy = j.config.policy
        let decision = slots.dueSlots(
            SlotPlanner.Job(
                schedule: j.schedule, timeZone: j.config.timeZone, policy: policy, nextSlot: next, paused: pauses[name] != nil, busy: j.isBusy,
                slotQueued: j.queue.contains { $0.trigger == .schedule }),
            now: now)
        if let ignored = decision.beforeWindow {
            metrics?.slotsSkipped(job: name, reason: .outsideWindow, count: ignored.count)
            logger.notice("slots missed before the catch-up window are not caught up", metadata: [
                "job": "\(name)", "from": "\(Timestamp.format(ignored.from))", "windowStart": "\(Timestamp.format(ignored.windowStart))",
                "catchUpWindow": "\(DurationFormat.format(policy.catchUpWindow))",
            ])
        }
        recordSkips(name, decision.paused, status: .skippedPaused, now: now)
        if let first = decision.missed.first, let last = decision.missed.last {
            logger.notice("missed \(decision.missed.count) slot(s) (the daemon was stopped, the system slept or the clock jumped)", metadata: [
                "job": "\(name)", "from": "\(Timestamp.format(first))", "to": "\(Timestamp.format(last))", "catchUp": "\(policy.catchUp.rawValue)",
            ])
        }
        recordSkips(name, decision.skippedCatchUp, status: .skippedCatchUp, now: now)
        for slot in decision.caughtUp { enqueue(name, PendingRun(logicalTime: slot, origin: .catchUp)) }
        switch decision.onTime {
        case .run(let slot)?:
            enqueue(name, PendingRun(logicalTime: slot, origin: .schedule))
        case .queueBehind(let slot)?:
            logger.info("slot queued behind the running one (overlap = queue)", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(slot))"])
            enqueue(name, PendingRun(logicalTime: slot, origin: .schedule))
        case .skip(let slot, let queueFull)?:
            if queueFull {
                logger.notice("slot skipped: a run is already waiting (overlap = queue holds one)", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(slot))"])
            } else {
                logger.notice("slot skipped: the previous run is still going (overlap = skip)", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(slot))"])
            }
            recordSkips(name, [slot], status: .skippedOverlap, now: now)
        case nil:
            break
        }
        j = jobs[name] ?? j
        j.lastSlot = decision.lastSlot
        j.nextSlot = decision.nextSlot
        jobs[name] = j
        persist(name)
    }

    func enqueue(_ name: String, _ run: PendingRun) {
        jobs[name]?.queue.append(run)
        emit(.queued(job: name, logicalTime: run.logicalTime, trigger: run.trigger))
    }

    /// Writes a `skipped-…` record per slot (at most `historyLimit`, the newest; more would be
    /// pruned at once).
    func recordSkips(_ name: String, _ skipped: [Date], status: RunRecord.Status, now: Date) {
        guard !skipped.isEmpty else { return }
        let data = self.data
        let kept = skipped.suffix(config.historyLimit)
        if kept.count < skipped.count {
            logger.notice("only the newest \(kept.count) of \(skipped.count) skipped slots are recorded (historyLimit)", metadata: ["job": "\(name)"])
        }
        if data.features.contains(.sharedByDaemons) {
            // Several daemons share the store: a slot one of them skips another may run (or
            // skip too). The slot's claim decides: only its holder records the skip (and counts
            // it, and shows it), and the record ends the claim
            // (docs/storage/postgres.md#several-daemons).
            let (holder, lease, logger, keep) = (attempts.holder, config.storage.leaseTimeout, self.logger, config.historyLimit)
            Task {
                var claimed = 0
                for slot in kept {
                    let record = Self.skipRecord(name, slot, status: status, now: now)
                    do {
                        guard try await data.claimSlot(job: name, logicalTime: slot, holder: holder, lease: lease) else { continue }
                        try await data.saveRecord(record)
                        try data.pruneRunRecords(job: name, keep: keep)
                        claimed += 1
                        self.noteSkip(record)
                    } catch {
                        logger.error("cannot write the run record: \(error)", metadata: ["job": "\(name)"])
                    }
                }
                if claimed > 0 { self.board.countSkips(name, status: status, count: claimed) }
            }
            return
        }
        board.countSkips(name, status: status, count: skipped.count)
        for slot in kept {
            let record = Self.skipRecord(name, slot, status: status, now: now)
            do { try data.writeRecord(record) } catch {
                logger.error("cannot write the run record: \(error)", metadata: ["job": "\(name)"])
            }
            noteSkip(record)
        }
        try? data.pruneRunRecords(job: name, keep: config.historyLimit)
    }

    static func skipRecord(_ name: String, _ slot: Date, status: RunRecord.Status, now: Date) -> RunRecord {
        RunRecord(
            runID: Runner.makeRunID(job: name, start: slot), job: name, trigger: status == .skippedCatchUp ? .catchUp : .schedule,
            logicalTime: slot, start: now, end: now, attempt: 1, status: status, dryRun: false)
    }

    func noteSkip(_ record: RunRecord) {
        board.skipped(record)
        emit(.skipped(job: record.job, logicalTime: record.logicalTime, status: record.status))
    }

    /// Starts the job's next queued run (after its jitter), or its delayed one when its time
    /// has come.
    func startNext(_ name: String, now: Date) {
        guard !life.stopping, var j = jobs[name] else { return }
        // A paused job starts only runs asked for with `force`.
        if pauses[name] != nil, !((j.active?.run ?? j.queue.first)?.force ?? false) { return }
        if j.active == nil, !j.queue.isEmpty {
            let run = j.queue.removeFirst()
            let delay = run.origin.hasJitter ? slots.jitter(j.config.policy) : .zero
            j.active = JobState.Active(run: run, phase: .waiting(until: now + delay), id: nextActiveID)
            nextActiveID += 1
            jobs[name] = j
            if delay > .zero {
                emit(.delayed(job: name, logicalTime: run.logicalTime, until: now + delay))
                logger.info("run delayed by jitter", metadata: ["job": "\(name)", "slot": "\(Timestamp.format(run.logicalTime))", "delay": "\(DurationFormat.format(delay))"])
            }
        }
        guard let active = j.active, case .waiting(let until) = active.phase, until <= now else { return }
        launch(name, active)
    }
}
