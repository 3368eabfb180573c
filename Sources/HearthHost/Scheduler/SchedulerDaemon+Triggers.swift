import Foundation
import Logging
import HearthKit
import HearthStore

/// Triggers (docs/triggers.md#what-the-daemon-does-with-writes): the daemon reads the store's
/// change feed for the trigger collections of its enabled jobs, gathers the writes per job, and
/// starts a triggered run `triggerDelay` after the first one.
///
/// - **Gathering.** A batch of writes to a collection joins the next triggered run of every
///   enabled job that has the collection among its triggers, except: the job's own commit
///   (never), a paused job's (the schedule picks those up once it is resumed), and a commit
///   whose chain already has 8 links (logged as a warning).
/// - **Starting.** The run starts `triggerDelay` after the first write it takes; later writes
///   join it until it starts. While the job is busy (running, waiting for a retry, or with a
///   scheduled run queued or delayed) the writes wait, and exactly one run takes them all right
///   after. A triggered run has no jitter, claims no slot, and its logical time is the moment
///   it starts; its retries take the same writes.
/// - **Several daemons.** Batches that carry a ``ChangeBatch/sequence`` are claimed first
///   (``StorageBackend/claimChanges(job:sequences:holder:)``): the run takes only the ones
///   this daemon got, and does not run when it got none. A run that reads everything always runs.
/// - **Reading everything.** At start, once the feed is open, each job with triggers runs once
///   with no list of changes (writes made while no daemon watched); so does every job a
///   ``ChangeFeedEvent/lost(collections:reason:)`` names, and after a reload that changed
///   triggers (see ``triggersReconfigured(previous:)``).
extension SchedulerDaemon {
    /// Chains stop after this many links (docs/triggers.md#chains).
    static let maxChainLinks = 8

    /// One batch of writes gathered for a job's next triggered run.
    struct TriggerBatch: Sendable {
        /// The documents written; nil: the run must read everything.
        var paths: [DocumentPath]?
        var sequence: Int64?
        /// The writing commit's ``RunCommit/chain`` (0: not a job's commit).
        var chain: Int
        /// When the daemon learned of it (nil: the run at start, which no write started).
        var seen: Date?
    }

    /// The writes a job's next triggered run takes.
    struct TriggerChanges: Sendable {
        var batches: [TriggerBatch] = []
        /// When the run may start: `triggerDelay` after the first write.
        var due: Date
        /// Whether ``StorageBackend/claimChanges(job:sequences:holder:)`` was asked (a retry
        /// does not ask again).
        var claimed = false

        /// Whether the run must read everything (a batch could not name its documents, writes
        /// were lost, the daemon just started).
        var readsEverything: Bool { batches.contains { $0.paths == nil } }
        var sequences: [Int64] { batches.compactMap(\.sequence) }
        var firstSeen: Date? { batches.compactMap(\.seen).min() }
        /// The run's ``RunCommit/chain``: one more link than the longest chain that wrote.
        var chain: Int { (batches.map(\.chain).max() ?? 0) + 1 }

        /// The documents written, each once, in the order they were seen.
        var paths: [DocumentPath] {
            var seen = Set<DocumentPath>()
            var out: [DocumentPath] = []
            for b in batches {
                for p in b.paths ?? [] where seen.insert(p).inserted { out.append(p) }
            }
            return out
        }

        func runOptions(trigger: RunRecord.Trigger, logicalTime: Date, attempt: Int) -> RunOptions {
            var options = RunOptions(trigger: trigger, logicalTime: logicalTime, attempt: attempt)
            options.chain = chain
            if !readsEverything {
                let paths = self.paths
                options.changes = ChangedDocuments(paths)
                options.triggerPaths = paths.prefix(RunRecord.maxTriggerPaths).map(\.description)
                options.triggerPathCount = paths.count
            }
            return options
        }
    }

    // MARK: - The feed

    /// The trigger collections of each enabled job that has some.
    func activeTriggers() -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        for (name, j) in jobs where j.enabled && !j.config.triggers.isEmpty { out[name] = Set(j.config.triggers) }
        return out
    }

    /// At start: opens the feed; once it is open each job with triggers reads everything once.
    func startChangeFeed() async {
        let triggers = activeTriggers()
        metrics?.prepareTriggers(jobs: triggers.keys.sorted())
        awaitingChangeFeed = Set(triggers.keys)
        await openChangeFeed(Set(triggers.values.joined()))
    }

    /// After a reload: drops the writes gathered for jobs that lost their triggers, and opens a
    /// feed for the new set of collections when it changed; once it is open the old one is
    /// closed (writes it held and had not handed over are lost with it), so every job with
    /// triggers reads everything once. When the set did not change, a job that gained triggers
    /// (enabled, or `triggers` added) reads everything once.
    func triggersReconfigured(previous: [String: Set<String>]) {
        guard !stopping else { return }
        let current = activeTriggers()
        for name in triggerChanges.keys where current[name] == nil { triggerChanges[name] = nil }
        let gained = current.filter { !$0.value.isSubset(of: previous[$0.key] ?? []) }.keys.sorted()
        metrics?.prepareTriggers(jobs: gained)
        let wanted = Set(current.values.joined())
        if wanted == watchedCollections {
            // Supersedes a feed still being opened for an earlier configuration.
            changeFeedGeneration += 1
            awaitingChangeFeed.removeAll()
            guard changeFeedTask != nil else { return }
            let now = clock.now()
            for name in gained { gatherEverything(name, seen: nil, due: now) }
            return
        }
        awaitingChangeFeed = Set(current.keys)
        Task { await self.openChangeFeed(wanted) }
    }

    /// Opens the store's change feed for `collections` (none: only closes the current one) and
    /// reads it in a task that hands each event to the daemon; then the jobs in
    /// ``awaitingChangeFeed`` read everything once. When opening fails, the current feed stays.
    func openChangeFeed(_ collections: Set<String>) async {
        changeFeedGeneration += 1
        let generation = changeFeedGeneration
        var stream: AsyncStream<ChangeFeedEvent>?
        var failed = false
        if !collections.isEmpty {
            do { stream = try await Self.openFeed(data, collections) } catch {
                logger.error("cannot watch for writes; only the schedule starts runs: \(error)", metadata: ["collections": "\(collections.sorted().joined(separator: ", "))"])
                failed = true
            }
        }
        guard generation == changeFeedGeneration, !stopping else {
            // Superseded by a later reload, or the daemon is stopping: this feed is not used.
            if let stream { Self.close(stream) }
            return
        }
        if failed {
            // The current feed, if any, stays: a reload tries again.
            awaitingChangeFeed.removeAll()
            return
        }
        changeFeedTask?.cancel()
        changeFeedTask = nil
        watchedCollections = []
        guard let stream else {
            awaitingChangeFeed.removeAll()
            if !collections.isEmpty, !noChangeFeedLogged {
                noChangeFeedLogged = true
                logger.notice("the store has no change feed: writes do not start runs, only the schedule does", metadata: ["store": "\(data.location)"])
            }
            return
        }
        watchedCollections = collections
        // On the daemon's actor: events are handled one at a time, in order.
        changeFeedTask = Task {
            for await event in stream { self.changeFeedEvent(event) }
            if !Task.isCancelled { self.changeFeedEnded(generation: generation) }
        }
        logger.info("watching for writes", metadata: ["collections": "\(collections.sorted().joined(separator: ", "))"])
        let now = clock.now()
        let active = activeTriggers()
        for name in awaitingChangeFeed.sorted() where active[name] != nil { gatherEverything(name, seen: nil, due: now) }
        awaitingChangeFeed.removeAll()
        nudge()
    }

    /// Opens the feed on a thread of its own: setting up a watch may take a while (a data
    /// directory's folders), and must neither hold the daemon's actor nor wait behind the
    /// blocking I/O of runs and deliveries.
    nonisolated static func openFeed(_ data: any StorageBackend, _ collections: Set<String>) async throws -> AsyncStream<ChangeFeedEvent>? {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try data.changeFeed(collections: collections) }) }.start()
        }
    }

    /// Stops reading a feed nobody will read (its watch ends).
    nonisolated static func close(_ stream: AsyncStream<ChangeFeedEvent>) {
        Task { for await _ in stream {} }.cancel()
    }

    /// The feed ended by itself (a backend gives up only on a fault it cannot recover from).
    func changeFeedEnded(generation: Int) {
        guard generation == changeFeedGeneration, !stopping else { return }
        changeFeedTask = nil
        watchedCollections = []
        logger.warning("the change feed ended: writes no longer start runs until the daemon is restarted or reloaded (SIGHUP); the schedule still runs every job")
    }

    /// Stops the feed and drops the writes gathered (the next start reads everything).
    func stopChangeFeed() async {
        changeFeedGeneration += 1
        triggerChanges.removeAll()
        awaitingChangeFeed.removeAll()
        watchedCollections = []
        guard let task = changeFeedTask else { return }
        changeFeedTask = nil
        task.cancel()
        await task.value
    }

    // MARK: - Gathering writes

    /// One event of the change feed.
    func changeFeedEvent(_ event: ChangeFeedEvent) {
        guard !stopping else { return }
        let now = clock.now()
        switch event {
        case .changed(let batch):
            for name in jobs.keys.sorted() {
                guard let j = jobs[name], j.enabled, j.config.triggers.contains(batch.collection) else { continue }
                if batch.writer == name {
                    emit(.changesIgnored(job: name, reason: .ownCommit))
                    continue
                }
                if pauses[name] != nil {
                    emit(.changesIgnored(job: name, reason: .paused))
                    continue
                }
                if batch.chain + 1 > Self.maxChainLinks {
                    logger.warning("writes do not start this job: they come from a chain of \(batch.chain) runs, each started by the one before, and chains stop after \(Self.maxChainLinks) links", metadata: [
                        "job": "\(name)", "collection": "\(batch.collection)", "writer": "\(batch.writer ?? "")", "chain": "\(batch.chain)",
                    ])
                    emit(.changesIgnored(job: name, reason: .chainLimit))
                    continue
                }
                gather(name, TriggerBatch(paths: batch.paths, sequence: batch.sequence, chain: batch.chain, seen: now), due: now + j.config.triggerDelay)
                metrics?.writesSeen(job: name, count: batch.paths?.count ?? 1)
                emit(.changesSeen(job: name, count: batch.paths?.count, chain: batch.chain))
            }
        case .lost(let collections, let reason):
            logger.warning("writes may have been missed; the jobs they trigger read everything once: \(reason)", metadata: ["collections": "\(collections.sorted().joined(separator: ", "))"])
            emit(.changesLost(collections: collections.sorted(), reason: reason))
            for name in jobs.keys.sorted() {
                guard let j = jobs[name], j.enabled, !collections.isDisjoint(with: j.config.triggers) else { continue }
                if pauses[name] != nil {
                    emit(.changesIgnored(job: name, reason: .paused))
                    continue
                }
                gatherEverything(name, seen: now, due: now + j.config.triggerDelay)
                emit(.changesSeen(job: name, count: nil, chain: 0))
            }
        }
        nudge()
    }

    func gather(_ name: String, _ batch: TriggerBatch, due: Date) {
        // In place: a burst of writes appends without copying what was gathered.
        triggerChanges[name, default: TriggerChanges(due: due)].batches.append(batch)
    }

    /// A run that reads everything: at start or when a reload added triggers (`seen` nil: no
    /// write started it), after a loss (`seen`: when it was reported).
    func gatherEverything(_ name: String, seen: Date?, due: Date) {
        guard pauses[name] == nil else { return }
        gather(name, TriggerBatch(paths: nil, sequence: nil, chain: 0, seen: seen), due: due)
    }

    /// The earliest start of a triggered run that can start (a busy job's waits for it).
    func nextTriggeredRun() -> Date? {
        triggerChanges.compactMap { name, changes -> Date? in
            guard let j = jobs[name], j.enabled, !j.isBusy, pauses[name] == nil else { return nil }
            return changes.due
        }.min()
    }

    // MARK: - Triggered runs

    /// Starts the job's triggered run when its writes are due and the job is idle: it takes
    /// (and clears) the writes gathered so far.
    func startTriggeredRun(_ name: String, now: Date) {
        guard !stopping, pauses[name] == nil, var j = jobs[name], j.enabled, j.active == nil, j.queue.isEmpty,
            let changes = triggerChanges[name], changes.due <= now
        else { return }
        triggerChanges[name] = nil
        let paths = changes.readsEverything ? nil : changes.paths
        let shown = paths.map { Array($0.prefix(RunRecord.maxTriggerPaths)).map(\.description) }
        logger.info("writes start a run", metadata: [
            "job": "\(name)", "documents": "\(paths.map { "\($0.count)" } ?? "all")", "paths": "\(shown?.joined(separator: ", ") ?? "")",
            "chain": "\(changes.chain)",
        ])
        emit(.triggered(job: name, paths: shown, count: paths?.count ?? 0))
        let active = Active(run: Pending(slot: now, trigger: .write, attempt: 1, changes: changes), phase: .waiting(until: now), id: nextActiveID)
        nextActiveID += 1
        j.active = active
        jobs[name] = j
        launch(name, active)
    }

    /// One attempt of a triggered run, off the actor: claims its writes (several daemons), then
    /// runs. Returns its record (nil: every write was another daemon's, nothing ran) and the
    /// writes it took, for its retries.
    nonisolated static func triggeredAttempt(
        _ name: String, _ pending: Pending, config: HearthConfig, runner: any SchedulerJobRunner, clock: any SchedulerClock, data: any StorageBackend,
        holder: String, logger: Logger
    ) async -> (RunRecord?, TriggerChanges) {
        var changes = pending.changes ?? TriggerChanges(due: pending.slot)
        if !changes.claimed {
            let sequences = changes.sequences
            if !sequences.isEmpty {
                let taken: Set<Int64>
                do { taken = try await data.claimChanges(job: name, sequences: sequences, holder: holder) } catch {
                    // Not run: another daemon may have taken them. A failure, retried per the job's policy.
                    let record = await failedRecord(name, pending, status: .failed, error: "cannot claim the writes that started the run: \(error)", clock: clock, data: data, logger: logger)
                    return (record, changes)
                }
                // A run that reads everything runs whoever took its batches.
                if !changes.readsEverything { changes.batches.removeAll { $0.sequence.map { !taken.contains($0) } ?? false } }
            }
            changes.claimed = true
            if changes.batches.isEmpty {
                logger.debug("writes taken by another daemon", metadata: ["job": "\(name)", "batches": "\(sequences.count)"])
                return (nil, changes)
            }
        }
        let options = changes.runOptions(trigger: pending.trigger, logicalTime: pending.slot, attempt: pending.attempt)
        logger.info("run starting", metadata: [
            "job": "\(name)", "trigger": "\(pending.trigger.rawValue)", "attempt": "\(pending.attempt)",
            "documents": "\(options.changes.map { "\($0.count)" } ?? "all")", "chain": "\(options.chain)",
        ])
        do { return (try await runner.run(job: name, options: options, config: config), changes) } catch {
            let record = await failedRecord(
                name, pending, status: error is CancellationError ? .cancelled : .failed, error: String(describing: error), clock: clock, data: data, logger: logger)
            return (record, changes)
        }
    }

    /// The record of an attempt that could not run or was cancelled (saved to the run history):
    /// `runID` nil makes one from now.
    nonisolated static func failedRecord(
        _ name: String, _ pending: Pending, status: RunRecord.Status, error: String, clock: any SchedulerClock, data: any StorageBackend, logger: Logger,
        runID: String? = nil, dryRun: Bool = false
    ) async -> RunRecord {
        let now = clock.now()
        var record = RunRecord(
            runID: runID ?? Runner.makeRunID(job: name, start: now), job: name, trigger: pending.trigger, logicalTime: pending.slot,
            start: now, end: now, attempt: pending.attempt, status: status, dryRun: dryRun)
        record.error = error
        do { try await data.saveRecord(record) } catch {
            logger.error("cannot write the run record: \(error)", metadata: ["job": "\(name)"])
        }
        return record
    }

    /// Keeps the writes the attempt took (for a retry), then finishes it as any attempt.
    func triggeredAttemptFinished(_ name: String, id: Int, record: RunRecord?, changes: TriggerChanges) {
        if jobs[name]?.active?.id == id { jobs[name]?.active?.run.changes = changes }
        attemptFinished(name, id: id, record: record)
    }

    /// A triggered run (or its retry) ended: a committed one observes the lag from the first
    /// write it took to its end.
    func triggeredRunFinished(_ name: String, record: RunRecord, changes: TriggerChanges) {
        guard !record.status.isFailure, let seen = changes.firstSeen else { return }
        metrics?.triggerLag(job: name, seconds: max(0, record.end.timeIntervalSince(seen)))
    }
}
