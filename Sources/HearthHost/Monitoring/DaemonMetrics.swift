import Foundation
import CoreMetrics
package import Prometheus
package import HearthStore
package import HearthOutbound

/// The daemon's Prometheus metrics (docs/operations/monitoring.md#metrics), recorded through
/// swift-metrics into a ``PrometheusCollectorRegistry`` this object owns: nothing is
/// bootstrapped process-wide, so several daemons (in tests) keep their numbers apart.
///
/// Counters and histograms move as things happen (``runFinished(_:)``,
/// ``slotsSkipped(job:reason:count:)``, ``outboxAttempt(_:)``); gauges are set
/// from a ``DaemonStatus`` and the outbox just before each scrape (``update(_:outbox:)``), so
/// after a restart they come back from the run history the daemon reads at start. Labels carry
/// job names, statuses, triggers, reasons, actions and message kinds only: never a user id, a
/// token or a URL.
package final class DaemonMetrics: Sendable {
    package enum Name {
        static let runs = "hearth_job_runs_total"
        static let duration = "hearth_job_duration_seconds"
        static let lastSuccess = "hearth_job_last_success_timestamp_seconds"
        static let nextRun = "hearth_job_next_run_timestamp_seconds"
        static let running = "hearth_job_running"
        static let paused = "hearth_job_paused"
        static let missed = "hearth_schedule_missed_total"
        static let documents = "hearth_documents_written_total"
        static let outboxPending = "hearth_outbox_pending"
        static let outboxDead = "hearth_outbox_dead"
        static let deliveries = "hearth_outbox_deliveries_total"
        static let deliverySeconds = "hearth_outbox_delivery_seconds"
        static let actions = "hearth_actions_total"
        static let triggerLag = "hearth_trigger_lag_seconds"
        static let triggerWrites = "hearth_trigger_writes_total"
        static let conflicts = "hearth_job_conflicts_total"
        static let calls = "hearth_calls_total"
        static let callSeconds = "hearth_call_duration_seconds"
    }

    /// `reason` of `hearth_schedule_missed_total`.
    package enum MissedReason: String, Sendable, CaseIterable {
        case overlap, catchUp = "catch-up", paused, outsideWindow = "outside-window"
    }

    package static let kinds = ["event", "push"]

    package let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    package init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Name.duration] = [
            .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(15), .seconds(30), .seconds(60),
            .seconds(120), .seconds(300), .seconds(600), .seconds(1200), .seconds(1800), .seconds(3600),
        ]
        factory.durationHistogramBuckets[Name.deliverySeconds] = [
            .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
        ]
        factory.durationHistogramBuckets[Name.triggerLag] = [
            .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(300),
        ]
        factory.durationHistogramBuckets[Name.callSeconds] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        for kind in Self.kinds {
            for result in OutboxAttemptObservation.Result.allCases { _ = counter(Name.deliveries, [("kind", kind), ("result", result.rawValue)]) }
            _ = timer(Name.deliverySeconds, [("kind", kind)])
            gauge(Name.outboxPending, [("kind", kind)]).record(0)
            gauge(Name.outboxDead, [("kind", kind)]).record(0)
        }
        for action in AuditEntry.Action.allCases { _ = counter(Name.actions, [("action", action.rawValue)]) }
    }

    /// An operator action the daemon took over HTTP (docs/operations/monitoring.md#the-audit-log),
    /// whatever its outcome.
    package func actionTaken(_ action: AuditEntry.Action) {
        counter(Name.actions, [("action", action.rawValue)]).increment()
    }

    func counter(_ name: String, _ labels: [(String, String)]) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: name, dimensions: labels, factory: factory)
    }

    func gauge(_ name: String, _ labels: [(String, String)]) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: name, dimensions: labels, factory: factory)
    }

    func timer(_ name: String, _ labels: [(String, String)]) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: name, dimensions: labels, factory: factory)
    }

    /// Creates every job's series at zero, so each family is there from the first scrape and a
    /// counter's first increase is seen as one (docs/operations/monitoring.md#metrics).
    package func prepare(jobs: [String]) {
        for job in jobs {
            for status in [RunRecord.Status.succeeded, .failed] {
                _ = counter(Name.runs, [("job", job), ("status", status.rawValue), ("trigger", RunRecord.Trigger.schedule.rawValue)])
            }
            _ = timer(Name.duration, [("job", job)])
            for reason in MissedReason.allCases { _ = counter(Name.missed, [("job", job), ("reason", reason.rawValue)]) }
            for action in ["create", "update", "delete"] { _ = counter(Name.documents, [("job", job), ("action", action)]) }
        }
    }

    /// Creates the trigger series of the jobs that have triggers at zero: their triggered runs,
    /// the lag and the writes seen.
    package func prepareTriggers(jobs: [String]) {
        for job in jobs {
            for status in [RunRecord.Status.succeeded, .failed] {
                _ = counter(Name.runs, [("job", job), ("status", status.rawValue), ("trigger", RunRecord.Trigger.write.rawValue)])
            }
            _ = timer(Name.triggerLag, [("job", job)])
            _ = counter(Name.triggerWrites, [("job", job)])
        }
    }

    /// Documents written to `job`'s trigger collections that joined its next triggered run (a
    /// batch the change feed could not list counts as one).
    package func writesSeen(job: String, count: Int) {
        counter(Name.triggerWrites, [("job", job)]).increment(by: count)
    }

    /// A triggered run committed `seconds` after the daemon saw the first write it took.
    package func triggerLag(job: String, seconds: Double) {
        timer(Name.triggerLag, [("job", job)]).recordSeconds(seconds)
    }

    /// A run the daemon made (any attempt, any status).
    package func runFinished(_ record: RunRecord) {
        counter(Name.runs, [("job", record.job), ("status", record.status.rawValue), ("trigger", record.trigger.rawValue)]).increment()
        timer(Name.duration, [("job", record.job)]).recordSeconds(max(0, record.end.timeIntervalSince(record.start)))
        if record.conflicts > 0 { counter(Name.conflicts, [("job", record.job)]).increment(by: record.conflicts) }
        guard !record.status.isFailure, !record.dryRun else { return }
        for (action, n) in [("create", record.created), ("update", record.updated), ("delete", record.deleted)] where n > 0 {
            counter(Name.documents, [("job", record.job), ("action", action)]).increment(by: n)
        }
    }

    /// Creates the call series of the callable jobs at zero.
    package func prepareCalls(jobs: [String]) {
        for job in jobs {
            _ = counter(Name.calls, [("job", job), ("code", "OK")])
            _ = timer(Name.callSeconds, [("job", job)])
        }
    }

    /// A call answered with `code` (`OK` or the error's code) after `seconds`, from the request
    /// taken to the answer ready (token check and run included; docs/callables.md#metrics).
    package func callAnswered(job: String, code: String, seconds: Double) {
        counter(Name.calls, [("job", job), ("code", code)]).increment()
        timer(Name.callSeconds, [("job", job)]).recordSeconds(max(0, seconds))
    }

    /// Slots not run: recorded as skipped (overlap, catch-up, paused) or older than the
    /// catch-up window.
    package func slotsSkipped(job: String, reason: MissedReason, count: Int) {
        guard count > 0 else { return }
        counter(Name.missed, [("job", job), ("reason", reason.rawValue)]).increment(by: count)
    }

    /// One delivery attempt of an outbox message (``OutboxDeliverer/observer``).
    package func outboxAttempt(_ attempt: OutboxAttemptObservation) {
        counter(Name.deliveries, [("kind", attempt.kind), ("result", attempt.result.rawValue)]).increment()
        let d = attempt.duration.components
        timer(Name.deliverySeconds, [("kind", attempt.kind)]).recordNanoseconds(d.seconds * 1_000_000_000 + d.attoseconds / 1_000_000_000)
    }

    /// What the outbox holds, by kind (`event`, `push`).
    package struct OutboxCounts: Sendable, Equatable {
        package var pending: [String: Int] = [:]
        package var dead: [String: Int] = [:]

        package init(pending: [String: Int] = [:], dead: [String: Int] = [:]) {
            self.pending = pending
            self.dead = dead
        }
    }

    /// Sets the gauges from the daemon's state and the outbox.
    package func update(_ status: DaemonStatus, outbox: OutboxCounts) {
        for job in status.jobs {
            let labels = [("job", job.name)]
            gauge(Name.lastSuccess, labels).record(job.lastSuccess?.timeIntervalSince1970 ?? 0)
            gauge(Name.nextRun, labels).record(job.pause == nil ? job.nextFires.first?.timeIntervalSince1970 ?? 0 : 0)
            gauge(Name.running, labels).record(job.running ? 1 : 0)
            gauge(Name.paused, labels).record(job.pause == nil ? 0 : 1)
        }
        for kind in Set(Self.kinds).union(outbox.pending.keys).union(outbox.dead.keys) {
            gauge(Name.outboxPending, [("kind", kind)]).record(outbox.pending[kind] ?? 0)
            gauge(Name.outboxDead, [("kind", kind)]).record(outbox.dead[kind] ?? 0)
        }
    }

    /// The Prometheus text exposition of every metric.
    package func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
