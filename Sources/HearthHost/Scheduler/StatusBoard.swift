import Foundation
import HearthStore
import HearthSchedule

/// What the status page and the gauges read of each job's runs
/// (docs/operations/monitoring.md#the-status-page): its newest record, the end of its newest
/// success, its failed attempts in a row; the run metrics go with them.
struct StatusBoard: Sendable {
    /// Where runs, skipped slots and the gauges are recorded; nil: nowhere.
    let metrics: DaemonMetrics?
    private(set) var lastRecords: [String: RunRecord] = [:]
    private(set) var lastSuccess: [String: Date] = [:]
    private(set) var consecutiveFailures: [String: Int] = [:]

    init(metrics: DaemonMetrics?) {
        self.metrics = metrics
    }

    /// Takes a job's run history, newest first. Dry runs change nothing: they are never the
    /// job's last result.
    mutating func load(_ job: String, history records: [RunRecord]) {
        let records = records.filter { !$0.dryRun }
        lastRecords[job] = records.first
        lastSuccess[job] = records.first { $0.status == .succeeded || $0.status == .succeededWithWarnings }?.end
        var failures = 0
        for r in records {
            if r.status.isFailure { failures += 1 } else if r.status == .succeeded || r.status == .succeededWithWarnings { break }
        }
        consecutiveFailures[job] = failures
    }

    /// A real (not dry) attempt ended; returns the job's failed attempts in a row.
    mutating func finished(_ record: RunRecord) -> Int {
        metrics?.runFinished(record)
        lastRecords[record.job] = record
        if record.status.isFailure {
            consecutiveFailures[record.job, default: 0] += 1
        } else {
            consecutiveFailures[record.job] = 0
            lastSuccess[record.job] = record.end
        }
        return consecutiveFailures[record.job, default: 0]
    }

    /// A slot was recorded as skipped.
    mutating func skipped(_ record: RunRecord) {
        lastRecords[record.job] = record
    }

    /// Counts skipped slots in the metrics.
    func countSkips(_ job: String, status: RunRecord.Status, count: Int) {
        switch status {
        case .skippedOverlap: metrics?.slotsSkipped(job: job, reason: .overlap, count: count)
        case .skippedCatchUp: metrics?.slotsSkipped(job: job, reason: .catchUp, count: count)
        case .skippedPaused: metrics?.slotsSkipped(job: job, reason: .paused, count: count)
        default: break
        }
    }

    /// A job's entry of the status page: its next `fireCount` slots (from its next one), its
    /// pause and its latest results.
    func job(_ name: String, _ config: JobConfig, state: JobState?, pause: JobPause?, fireCount: Int) -> DaemonStatus.Job {
        var fires: [Date] = []
        if let state, state.enabled, var next = state.nextSlot {
            while fires.count < fireCount {
                fires.append(next)
                guard let after = state.schedule.nextFire(after: next, in: config.timeZone) else { break }
                next = after
            }
        }
        return DaemonStatus.Job(
            name: name, schedule: config.schedule, triggers: config.triggers, timeZone: config.timeZone, enabled: state?.enabled ?? false,
            nextFires: fires, running: state?.isRunning ?? false, pause: pause, lastRecord: lastRecords[name], lastSuccess: lastSuccess[name],
            consecutiveFailures: consecutiveFailures[name] ?? 0, callAuth: config.callable ? config.callAuth : nil)
    }
}
