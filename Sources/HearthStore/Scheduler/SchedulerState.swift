package import Foundation
package import HearthKit

/// The daemon's persisted state of one job (``SchedulerStateStore``).
///
/// `lastSlot` is the latest slot the daemon has dealt with (fired, queued, or recorded as
/// skipped); every slot after it is still to come. On start the daemon computes the next slot
/// from it, so slots missed while it was down are found and handled per `catchUp`. On the very
/// first start it is the start time (nothing is caught up), and when every missed slot was
/// older than `catchUpWindow` it is the start of that window. `schedule` and `timeZone` tell
/// whether the job's schedule changed while the daemon was down; if so, the new schedule
/// starts from now and nothing is caught up.
package struct SchedulerState: Sendable, Equatable {
    package var job: String
    package var schedule: String
    package var timeZone: String
    package var lastSlot: Date
    package var updatedAt: Date

    package init(job: String, schedule: String, timeZone: String, lastSlot: Date, updatedAt: Date) {
        self.job = job
        self.schedule = schedule
        self.timeZone = timeZone
        self.lastSlot = lastSlot
        self.updatedAt = updatedAt
    }

    /// The stored form:
    ///
    /// ```json
    /// {
    ///   "job": "leaderboard-rebuild",
    ///   "schedule": "*/15 * * * *",
    ///   "timeZone": "UTC",
    ///   "lastSlot": "2026-11-18T12:00:00.000Z",
    ///   "updatedAt": "2026-11-18T12:00:00.004Z"
    /// }
    /// ```
    package var json: JSONObject {
        JSONObject([
            ("job", .string(job)), ("schedule", .string(schedule)), ("timeZone", .string(timeZone)),
            ("lastSlot", Timestamp.json(lastSlot)), ("updatedAt", Timestamp.json(updatedAt)),
        ])
    }

    package init?(json o: JSONObject) {
        guard let job = o["job"]?.stringValue, let schedule = o["schedule"]?.stringValue,
            let zone = o["timeZone"]?.stringValue, let last = o["lastSlot"].flatMap(Timestamp.date(from:))
        else { return nil }
        self.init(job: job, schedule: schedule, timeZone: zone, lastSlot: last, updatedAt: o["updatedAt"].flatMap(Timestamp.date(from:)) ?? last)
    }
}
