import Foundation
import Logging
import HearthKit
import HearthStore

/// Triggers (docs/triggers.md#what-the-daemon-does-with-writes): the daemon reads the store's
/// change feed for the trigger collections of its enabled jobs, hands each event to
/// ``GatheredWrites``, and starts a job's triggered run once it is due.
///
/// - **Starting.** While the job is busy (running, waiting for a retry, or with a scheduled run
///   queued or delayed) its writes wait, and exactly one run takes them all right after. A
///   triggered run has no jitter, claims no slot, and its logical time is the moment it
///   starts; its retries take the same writes.
/// - **Several daemons.** Batches that carry a ``ChangeBatch/sequence`` are claimed first
///   (``AttemptRunner``): the run takes only the ones this daemon got, and does not run when it
///   got none. A run that reads everything always runs.
/// - **Reading everything.** At start, once the feed is open, each job with triggers runs once
///   with no list of changes (writes made while no daemon watched); so does every job a
///   ``ChangeFeedEvent/lost(collections:reason:)`` names, and after a reload that changed
///   triggers (see ``triggersReconfigured(previous:)``).
extension SchedulerDaemon {
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
        feed.awaiting = Set(triggers.keys)
        await openChangeFeed(Set(triggers.values.joined()))
    }

    /// After a reload: drops the writes gathered for jobs that lost their triggers, and opens a
    /// feed for the new set of collections when it changed; once it is open the old one is
    /// closed (writes it held and had not handed over are lost with it), so every job with
    /// triggers reads everything once. When the set did not change, a job that gained triggers
    /// (enabled, or `triggers` added) reads everything once.
    func triggersReconfigured(previous: [String: Set<String>]) {
        guard !life.stopping else { return }
        let current = activeTriggers()
        feed.gathered.keep(only: Set(current.keys))
        let gained = current.filter { !$0.value.isSubset(of: previous[$0.key] ?? []) }.keys.sorted()
        metrics?.prepareTriggers(jobs: gained)
        let wanted = Set(current.values.joined())
        if wanted == feed.watched {
            // Supersedes a feed still being opened for an earlier configuration.
            feed.generation += 1
            feed.awaiting.removeAll()
            guard feed.task != nil else { return }
            let now = clock.now()
            for name in gained { gatherEverything(name, due: now) }
            return
        }
        feed.awaiting = Set(current.keys)
        Task { await self.openChangeFeed(wanted) }
    }

    /// Opens the store's change feed for `collections` (none: only closes the current one) and
    /// reads it in a task that hands each event to the daemon; then the jobs in
    /// ``TriggerFeed/awaiting`` read everything once. When opening fails, the current feed stays.
    func openChangeFeed(_ collections: Set<String>) async {
        feed.generation += 1
        let generation = feed.generation
        var stream: AsyncStream<ChangeFeedEvent>?
        var failed = false
        if !collections.isEmpty {
            do { stream = try await Self.openFeed(data, collections) } catch {
                logger.error("cannot watch for writes; only the schedule starts runs: \(error)", metadata: ["collections": "\(collections.sorted().joined(separator: ", "))"])
                failed = true
            }
        }
        guard generation == feed.generation, !life.stopping else {
            // Superseded by a later reload, or the daemon is stopping: this feed is not used.
            if let stream { Self.close(stream) }
            return
        }
        if failed {
            // The current feed, if any, stays: a reload tries again.
            feed.awaiting.removeAll()
            return
        }
        feed.task?.cancel()
        feed.task = nil
        feed.watched = []
        guard let stream else {
            feed.awaiting.removeAll()
            if !collections.isEmpty, !feed.noFeedLogged {
                feed.noFeedLogged = true
                logger.notice("the store has no change feed: writes do not start runs, only the schedule does", metadata: ["store": "\(data.location)"])
            }
            return
        }
        feed.watched = collections
        // On the daemon's actor: events are handled one at a time, in order.
        feed.task = Task {
            for await event in stream { self.changeFeedEvent(event) }
            if !Task.isCancelled { self.changeFeedEnded(generation: generation) }
        }
        logger.info("watching for writes", metadata: ["collections": "\(collections.sorted().joined(separator: ", "))"])
        let now = clock.now()
        let active = activeTriggers()
        for name in feed.awaiting.sorted() where active[name] != nil { gatherEverything(name, due: now) }
        feed.awaiting.removeAll()
        nudge()
    }

    /// Opens the feed on a thread of its own: setting up a watch may take a while (a data
    /// directory's folders), and must neither hold the daemon's actor nor wait behind the
    /// blocking I/O of runs and deliveries.
    nonisolated static func openFeed(_ data: any ChangeFeed, _ collections: Set<String>) async throws -> AsyncStream<ChangeFeedEvent>? {
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
        guard generation == feed.generation, !life.stopping else { return }
        feed.task = nil
        feed.watched = []
        logger.warning("the change feed ended: writes no longer start runs until the daemon is restarted or reloaded (SIGHUP); the schedule still runs every job")
    }

    /// Stops the feed and drops the writes gathered (the next start reads everything).
    func stopChangeFeed() async {
        feed.generation += 1
        feed.gathered.dropAll()
        feed.awaiting.removeAll()
        feed.watched = []
        guard let task = feed.task else { return }
        feed.task = nil
        task.cancel()
        await task.value
    }

    // MARK: - Gathering writes

    /// One event of the change feed: gathered per job, then logged, counted and told.
    func changeFeedEvent(_ event: ChangeFeedEvent) {
        guard !life.stopping else { return }
        if case .lost(let collections, let reason) = event {
            logger.warning("writes may have been missed; the jobs they trigger read everything once: \(reason)", metadata: ["collections": "\(collections.sorted().joined(separator: ", "))"])
            emit(.changesLost(collections: collections.sorted(), reason: reason))
        }
        let gatheringJobs = jobs.keys.sorted().compactMap { name -> GatheredWrites.Job? in
            guard let j = jobs[name], j.enabled else { return nil }
            return GatheredWrites.Job(name: name, triggers: j.config.triggers, triggerDelay: j.config.triggerDelay, paused: pauses[name] != nil)
        }
        for outcome in feed.gathered.take(event, jobs: gatheringJobs, now: clock.now()) {
            switch outcome {
            case .ignored(let name, let reason):
                if reason == .chainLimit, case .changed(let batch) = event {
                    logger.warning("writes do not start this job: they come from a chain of \(batch.chain) runs, each started by the one before, and chains stop after \(GatheredWrites.maxChainLinks) links", metadata: [
                        "job": "\(name)", "collection": "\(batch.collection)", "writer": "\(batch.writer ?? "")", "chain": "\(batch.chain)",
                    ])
                }
                emit(.changesIgnored(job: name, reason: reason))
            case .gathered(let name, let count, let chain):
                if case .changed = event { metrics?.writesSeen(job: name, count: count ?? 1) }
                emit(.changesSeen(job: name, count: count, chain: chain))
            }
        }
        nudge()
    }

    /// A run of `name` that reads everything, no write having started it (at start, or when a
    /// reload added triggers); not while the job is paused.
    func gatherEverything(_ name: String, due: Date) {
        guard pauses[name] == nil else { return }
        feed.gathered.gatherEverything(name, seen: nil, due: due)
    }

    /// The earliest start of a triggered run that can start (a busy job's waits for it).
    func nextTriggeredRun() -> Date? {
        feed.gathered.nextDue { name in
            guard let j = jobs[name] else { return false }
            return j.enabled && !j.isBusy && pauses[name] == nil
        }
    }

    // MARK: - Triggered runs

    /// Starts the job's triggered run when its writes are due and the job is idle: it takes
    /// (and clears) the writes gathered so far.
    func startTriggeredRun(_ name: String, now: Date) {
        guard !life.stopping, pauses[name] == nil, var j = jobs[name], j.enabled, j.active == nil, j.queue.isEmpty,
            let changes = feed.gathered.takeDue(name, now: now)
        else { return }
        let paths = changes.readsEverything ? nil : changes.paths
        let shown = paths.map { Array($0.prefix(RunRecord.maxTriggerPaths)).map(\.description) }
        logger.info("writes start a run", metadata: [
            "job": "\(name)", "documents": "\(paths.map { "\($0.count)" } ?? "all")", "paths": "\(shown?.joined(separator: ", ") ?? "")",
            "chain": "\(changes.chain)",
        ])
        emit(.triggered(job: name, paths: shown, count: paths?.count ?? 0))
        let active = JobState.Active(run: PendingRun(logicalTime: now, origin: .write(changes)), phase: .waiting(until: now), id: nextActiveID)
        nextActiveID += 1
        j.active = active
        jobs[name] = j
        launch(name, active)
    }

    /// A triggered run (or its retry) committed: the lag from the first write it took to its end.
    func triggeredRunFinished(_ name: String, record: RunRecord, changes: TriggerChanges) {
        guard !record.status.isFailure, let seen = changes.firstSeen else { return }
        metrics?.triggerLag(job: name, seconds: max(0, record.end.timeIntervalSince(seen)))
    }
}
