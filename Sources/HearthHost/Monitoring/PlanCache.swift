import Synchronization

/// The plan reports of the daemon's latest runs, by run id, for the status page's run pages
/// (docs/operations/monitoring.md#the-status-page). Kept in memory only, the newest ``limit``: a
/// run made by the CLI or before the daemon started has its record but no plan here.
package final class PlanCache: Sendable {
    private struct Entries {
        var order: [String] = []
        var plans: [String: Plan] = [:]
    }

    package let limit: Int
    private let entries = Mutex(Entries())

    package init(limit: Int = 100) {
        self.limit = max(1, limit)
    }

    package func add(_ plan: Plan, runID: String) {
        entries.withLock { e in
            if e.plans.updateValue(plan, forKey: runID) == nil { e.order.append(runID) }
            while e.order.count > limit { e.plans[e.order.removeFirst()] = nil }
        }
    }

    package func plan(runID: String) -> Plan? {
        entries.withLock { $0.plans[runID] }
    }
}
