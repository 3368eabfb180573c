import Foundation
import HearthKit
import HearthStore

/// What the status page, the gauges and systemd's `STATUS=` read (see ``StatusBoard``).
extension SchedulerDaemon {
    /// Every configured job with its next `fireCount` slots, its pause and its latest results.
    package func status(fireCount: Int = 3) -> DaemonStatus {
        let out = config.jobs.keys.sorted().compactMap { name -> DaemonStatus.Job? in
            guard let jc = config.jobs[name] else { return nil }
            return board.job(name, jc, state: jobs[name], pause: pauses[name], fireCount: fireCount)
        }
        return DaemonStatus(jobs: out, alive: life.alive, stopping: life.stopping, startedAt: life.startedAt, configFile: config.file)
    }

    /// The job's newest record, newest success and failures in a row, from the run history.
    func loadHistory(_ name: String) {
        guard let records = try? data.runRecords(job: name, status: nil, limit: nil) else { return }
        board.load(name, history: records)
    }

    /// systemd's `STATUS=`: the running jobs and the next slot.
    func statusLine() -> String? {
        let next = jobs.compactMap { name, j in j.enabled ? j.nextSlot.map { (name, $0) } : nil }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        let running = runningJobs()
        var parts: [String] = []
        if !running.isEmpty { parts.append("running: \(running.joined(separator: ", "))") }
        if let next { parts.append("next: \(next.0) at \(Timestamp.format(next.1))") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
