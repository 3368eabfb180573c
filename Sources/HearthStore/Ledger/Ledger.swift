package import Foundation
package import HearthKit

/// Hearth's own bookkeeping for jobs that must remember what they did without writing it into
/// the apps' documents — e.g. "a push was queued for notification n1" (docs/jobs/notification-fanout.md#pushes).
///
/// A job records `key → value` entries in a namespace, stamped with a date; they are committed
/// atomically with the run, *before* its documents, so a reader that sees a document the run
/// wrote also sees its entries. On disk every run writes new files and never rewrites one
/// (concurrent jobs cannot lose each other's entries):
///
///     .hearth/ledger/<namespace>/<yyyyMMddTHH>-<job>-<runId>.json
///     {"namespace": …, "job": …, "runId": …, "hour": "2026-11-20T09", "entries": {"n1": "pushed", …}}
///
/// The hour is the UTC hour of the entries' dates, so reading a window and pruning what is
/// older than it only looks at file names. A dry run writes nothing.
package enum Ledger {
    package typealias Record = LedgerRecord

    /// `.hearth/ledger/<namespace>` relative to the data root.
    package static func relativeDirectory(_ namespace: String) -> String { ".hearth/ledger/\(namespace)" }

    /// `yyyyMMddTHH` (UTC) of `date`: file names sort by hour.
    package static func hourStamp(_ date: Date) -> String {
        let iso = Timestamp.format(date)  // 2026-11-20T09:30:00.000Z
        let digits = iso.prefix(13).filter { $0 != "-" }  // 20261120T09
        return String(digits)
    }

    package static func isValidNamespace(_ s: String) -> Bool { LedgerRecord.isValidNamespace(s) }

    /// The file operations for a run's records and prunes: one new file per namespace and hour.
    package static func operations(records: [Record], deletes: [String], job: String, runID: String) -> [FileOperation] {
        var groups: [String: [Record]] = [:]
        var order: [String] = []
        for r in records {
            let g = r.namespace + "/" + hourStamp(r.date)
            if groups[g] == nil { order.append(g) }
            groups[g, default: []].append(r)
        }
        var ops: [FileOperation] = deletes.map { .delete($0) }
        for g in order.sorted() {
            let rs = groups[g]!
            let ns = rs[0].namespace
            let hour = hourStamp(rs[0].date)
            var latest: [String: String] = [:]
            for r in rs { latest[r.key] = r.value }
            let keys = latest.keys.sorted()
            let entries = JSONObject(uniqueKeys: keys, values: keys.map { .string(latest[$0]!) })
            let iso = Timestamp.format(rs[0].date)
            let object = JSONObject([
                ("namespace", .string(ns)), ("job", .string(job)), ("runId", .string(runID)),
                ("hour", .string(String(iso.prefix(13)))), ("entries", .object(entries)),
            ])
            ops.append(.put("\(relativeDirectory(ns))/\(hour)-\(job)-\(runID).json", JSONWriter.document(object)))
        }
        return ops
    }
}
