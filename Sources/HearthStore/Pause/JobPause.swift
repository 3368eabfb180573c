package import Foundation
package import HearthKit

/// A paused job (docs/operations/monitoring.md#pause-and-resume): the daemon records its slots as
/// `skipped-paused` until it is resumed. Kept by the backend; the data directory writes
/// `.hearth/paused/<job>.json`:
///
/// ```json
/// {"job": "weekly-bonus", "note": "waiting for the new rates", "pausedAt": "2026-11-24T08:00:00.000Z", "pausedBy": "cli"}
/// ```
///
/// `pausedBy` is `cli` (`hearth pause`) or `pauseAfterFailures` (the daemon paused it).
package struct JobPause: Sendable, Equatable {
    package var job: String
    package var note: String?
    package var pausedAt: Date
    package var pausedBy: String

    package init(job: String, note: String? = nil, pausedAt: Date, pausedBy: String) {
        self.job = job
        self.note = note
        self.pausedAt = pausedAt
        self.pausedBy = pausedBy
    }

    package var json: JSONObject {
        var o = JSONObject([("job", .string(job)), ("pausedAt", Timestamp.json(pausedAt)), ("pausedBy", .string(pausedBy))])
        o["note"] = note.map { .string($0) } ?? .null
        return o
    }

    package init?(json o: JSONObject) {
        guard let job = o["job"]?.stringValue, let at = o["pausedAt"].flatMap(Timestamp.date(from:)) else { return nil }
        self.init(job: job, note: o["note"]?.stringValue, pausedAt: at, pausedBy: o["pausedBy"]?.stringValue ?? "cli")
    }
}
