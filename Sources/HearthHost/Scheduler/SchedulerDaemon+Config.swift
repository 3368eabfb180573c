#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Logging
import HearthKit
import HearthStore
import HearthSchedule

/// The configuration: the job states built at start from it and the persisted state, and a
/// reload (docs/scheduler.md#signals).
extension SchedulerDaemon {
    /// Reads the configuration again through `reloadSource` and applies it; an invalid one is
    /// logged and the current one kept.
    package func reload() {
        guard let reloadSource = life.reloadSource else { return }
        life.notify("RELOADING=1\nMONOTONIC_USEC=\(MonotonicTime.microseconds())")
        do {
            let loaded = try reloadSource()
            try apply(loaded)
            logger.notice("configuration reloaded", metadata: ["file": "\(loaded.file ?? "(built-in defaults)")"])
            emit(.reloaded)
        } catch {
            logger.error("configuration reload failed; keeping the previous configuration: \(error)")
            emit(.reloadFailed(reason: "\(error)"))
        }
        life.notify("READY=1")
    }

    /// Applies a new configuration: a job whose schedule or zone changed starts afresh from
    /// now; a disabled job gets no new slots (a running attempt finishes); the change feed
    /// follows the new triggers (``triggersReconfigured(previous:)``). `dataDir` is kept until
    /// a restart.
    package func apply(_ newConfig: HearthConfig) throws(ConfigError) {
        let schedules = try Self.schedules(for: newConfig)
        try housekeeping.outbox?.reload(newConfig)
        var replacement = newConfig
        if replacement.dataDir != config.dataDir {
            logger.warning("dataDir changed in the configuration; the daemon keeps using \(config.dataDir) until it is restarted")
            replacement.dataDir = config.dataDir
        }
        config = replacement
        guard life.started else { return }
        let previousTriggers = activeTriggers()
        let now = clock.now()
        for name in config.jobs.keys.sorted() {
            if let (jc, schedule) = schedules[name] {
                if var j = jobs[name] {
                    let changed = j.schedule != schedule || j.config.timeZone != jc.timeZone || !j.enabled
                    j.config = jc
                    j.schedule = schedule
                    if changed {
                        j.enabled = true
                        j.lastSlot = max(j.lastSlot, now)
                        j.nextSlot = schedule.nextFire(after: j.lastSlot, in: jc.timeZone)
                        logger.notice("schedule changed; starting from now", metadata: ["job": "\(name)", "schedule": "\(jc.schedule)", "next": "\(j.nextSlot.map(Timestamp.format) ?? "none")"])
                    }
                    jobs[name] = j
                    if changed { persist(name) }
                } else {
                    jobs[name] = JobState(config: jc, schedule: schedule, lastSlot: now, nextSlot: schedule.nextFire(after: now, in: jc.timeZone))
                    logger.notice("job enabled", metadata: ["job": "\(name)"])
                    persist(name)
                }
            } else if var j = jobs[name], j.enabled {
                j.enabled = false
                j.nextSlot = nil
                j.queue.removeAll()
                if case .waiting? = j.active?.phase { j.active = nil }
                jobs[name] = j
                logger.notice("job disabled; it gets no new slots", metadata: ["job": "\(name)"])
            }
        }
        triggersReconfigured(previous: previousTriggers)
        nudge()
    }

    /// Builds the job states from the configuration and the persisted state (the last slot
    /// dealt with per job, in ``SchedulerStateStore``).
    func setUp(now: Date) {
        if housekeeping.outbox != nil { housekeeping.outboxDue = now }
        let schedules = (try? Self.schedules(for: config)) ?? [:]
        do { pauses.loaded(try data.pauses()) } catch {
            logger.error("cannot read the paused jobs; none is taken as paused until they can be read: \(error)")
        }
        metrics?.prepare(jobs: config.jobs.keys.sorted())
        metrics?.prepareCalls(jobs: config.jobs.values.filter { $0.callable && $0.enabled }.map(\.name).sorted())
        for name in config.jobs.keys { loadHistory(name) }
        for (name, (jc, schedule)) in schedules {
            var last = now
            if let saved = data.schedulerState(job: name) {
                if saved.schedule == jc.schedule && saved.timeZone == jc.timeZone.identifier {
                    last = saved.lastSlot
                    if last > now.addingTimeInterval(60) {
                        logger.warning("the clock is behind this job's last slot; slots up to it are not run again", metadata: ["job": "\(name)", "lastSlot": "\(Timestamp.format(last))"])
                    }
                } else {
                    logger.notice("schedule changed while the daemon was stopped; starting from now", metadata: ["job": "\(name)", "schedule": "\(jc.schedule)"])
                }
            }
            jobs[name] = JobState(config: jc, schedule: schedule, lastSlot: last, nextSlot: schedule.nextFire(after: last, in: jc.timeZone))
            if last == now { persist(name) }
        }
    }

    /// Saves the job's last slot.
    func persist(_ name: String) {
        guard let j = jobs[name] else { return }
        let entry = SchedulerState(job: name, schedule: j.config.schedule, timeZone: j.config.timeZone.identifier, lastSlot: j.lastSlot, updatedAt: clock.now())
        do { try data.saveSchedulerState(entry) } catch {
            logger.error("cannot save the scheduler state: \(error)", metadata: ["job": "\(name)"])
        }
    }
}
