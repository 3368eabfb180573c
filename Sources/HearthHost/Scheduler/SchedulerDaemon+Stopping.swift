import Foundation
import Logging
import HearthKit

/// Stopping (docs/scheduler.md#signals): nothing new starts, waiting runs are dropped, running
/// ones may finish within `shutdownGrace`, then they are cancelled.
extension SchedulerDaemon {
    func drain() async {
        pauses.watcher?.cancel()
        pauses.watcher = nil
        await stopChangeFeed()
        for name in jobs.keys.sorted() { dropWaitingRuns(name, why: "stopping") }
        let deadline = clock.now() + config.shutdownGrace
        let running = runningJobs()
        if !running.isEmpty || housekeeping.outboxTask != nil {
            logger.notice("stopping: waiting up to \(DurationFormat.format(config.shutdownGrace)) (shutdownGrace) for running jobs", metadata: ["jobs": "\(running.joined(separator: ", "))"])
            emit(.stopping(deadline: deadline, running: running))
            while !runningJobs().isEmpty || housekeeping.outboxTask != nil, !life.forceCancel, clock.now() < deadline {
                await sleep(until: deadline)
            }
            if let outboxTask = housekeeping.outboxTask {
                outboxTask.cancel()
                await outboxTask.value
            }
            let left = runningJobs()
            if !left.isEmpty {
                logger.warning("cancelling running jobs; they commit nothing", metadata: ["jobs": "\(left.joined(separator: ", "))"])
                emit(.cancelling(jobs: left))
                let tasks = jobs.values.compactMap { j -> Task<Void, Never>? in
                    if case .running(let t)? = j.active?.phase { return t }
                    return nil
                }
                let calls = tickets.callRuns
                for t in tasks { t.cancel() }
                for t in calls { t.cancel() }
                for t in tasks { await t.value }
                for t in calls { _ = await t.value }
            }
        } else {
            emit(.stopping(deadline: deadline, running: []))
        }
        logger.notice("scheduler stopped")
        emit(.stopped)
        eventLog.finish()
    }
}
