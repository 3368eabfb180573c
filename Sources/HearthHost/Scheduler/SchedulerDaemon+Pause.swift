import Foundation
import Logging
import HearthKit
import HearthStore
import HearthOutbound

/// Pause and resume (docs/operations/monitoring.md#pause-and-resume): the paused jobs read from
/// the backend at start and every poll interval, and `pauseAfterFailures`
/// (docs/operations/monitoring.md#pauseafterfailures).
extension SchedulerDaemon {
    /// The `job.paused` event type.
    static let pausedEvent = "job.paused"

    /// Reads the paused jobs every ``PauseBook/pollInterval`` on the daemon's clock (the
    /// manual one in tests), off the actor.
    func startPauseWatcher() {
        let (clock, data, interval) = (self.clock, self.data, DurationFormat.seconds(pauses.pollInterval))
        pauses.watcher = Task {
            while !Task.isCancelled {
                do { try await clock.sleep(until: clock.now().addingTimeInterval(interval)) } catch { return }
                let generation = self.pauses.generation
                let read = try? await BlockingIO.run { () throws(any Error) in try data.pauses() }
                if let read { self.pausesRead(read, generation: generation) }
            }
        }
    }

    /// Applies a fresh reading of the paused jobs, unless the daemon paused or resumed a job
    /// itself while it was being read (`generation` is ``PauseBook/generation`` when the read
    /// started): that reading may predate the daemon's own write.
    func pausesRead(_ read: [String: JobPause], generation: Int) {
        guard let before = pauses.read(read, generation: generation) else { return }
        for name in read.keys.sorted() where before[name] == nil {
            dropWaitingRuns(name)
            logger.notice("job paused; its slots are recorded as skipped-paused until `hearth resume \(name)`", metadata: ["job": "\(name)", "note": "\(read[name]?.note ?? "")"])
            emit(.paused(job: name))
        }
        for name in before.keys.sorted() where read[name] == nil {
            logger.notice("job resumed", metadata: ["job": "\(name)", "next": "\(jobs[name]?.nextSlot.map(Timestamp.format) ?? "none")"])
            emit(.resumed(job: name))
        }
        nudge()
    }

    /// Drops the queued runs, delayed starts, pending retries and gathered writes of a job that
    /// was just paused (`why` "paused") or of every job when the daemon stops (`why`
    /// "stopping"); a running attempt finishes.
    func dropWaitingRuns(_ name: String, why: String = "paused") {
        // Writes gathered for a triggered run: the schedule picks them up (docs/triggers.md#what-the-daemon-does-with-writes).
        feed.gathered.drop(name)
        guard var j = jobs[name] else { return }
        var dropped = j.queue.count
        var droppedTickets = j.queue.compactMap(\.ticket)
        j.queue.removeAll()
        if case .waiting? = j.active?.phase {
            if let ticket = j.active?.run.ticket { droppedTickets.append(ticket) }
            j.active = nil
            dropped += 1
        }
        jobs[name] = j
        for ticket in droppedTickets { tickets.end(ticket, nil) }
        if dropped > 0 { logger.notice("\(why): \(dropped) run(s) that had not started are dropped", metadata: ["job": "\(name)"]) }
    }

    /// Pauses a job that failed `failures` times in a row, and queues `job.paused` when a webhook
    /// endpoint subscribes to it.
    func pauseAfterFailures(_ name: String, record: RunRecord, failures: Int) {
        let now = clock.now()
        let error = (record.error ?? record.status.rawValue).split(separator: "\n").first.map(String.init) ?? ""
        let pause = JobPause(
            job: name, note: "paused after \(failures) failed runs in a row; last: \(error)", pausedAt: now, pausedBy: "pauseAfterFailures")
        do { try data.setPause(pause) } catch {
            logger.error("cannot save the pause; the job is paused until the daemon stops: \(error)", metadata: ["job": "\(name)"])
        }
        _ = pauses.set(pause)
        dropWaitingRuns(name)
        logger.warning("job paused after \(failures) failed runs in a row (pauseAfterFailures); `hearth resume \(name)` resumes it", metadata: ["job": "\(name)", "run": "\(record.runID)"])
        emit(.paused(job: name))
        guard config.webhooks.contains(where: { $0.events.isEmpty || $0.events.contains(Self.pausedEvent) }) else { return }
        let event = Self.pausedMessage(pause, record: record, failures: failures)
        let (data, logger) = (self.data, self.logger)
        Task {
            do { try await data.enqueue(event, job: name, runID: record.runID, createdAt: now) } catch {
                logger.error("could not queue the job.paused event: \(error)", metadata: ["job": "\(name)"])
            }
            self.eventQueued()
        }
    }

    /// `job.paused`: `{job, pausedAt, pausedBy, note, consecutiveFailures, runId, status, error}`,
    /// id `job.paused-<job>-<runId>` (the run that made it pause).
    static func pausedMessage(_ pause: JobPause, record: RunRecord, failures: Int) -> OutboxMessage {
        var data = JSONObject([
            ("job", .string(pause.job)), ("pausedAt", Timestamp.json(pause.pausedAt)), ("pausedBy", .string(pause.pausedBy)),
            ("note", .string(pause.note ?? "")), ("consecutiveFailures", .int(Int64(failures))), ("runId", .string(record.runID)),
            ("status", .string(record.status.rawValue)),
        ])
        data["error"] = record.error.map { .string($0) } ?? .null
        return .event(pausedEvent, id: "\(pausedEvent)-\(pause.job)-\(record.runID)", data: data)
    }
}
