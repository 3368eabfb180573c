import Foundation
import HearthKit
package import HearthStore

/// Paused jobs in the `job_pauses` table (docs/operations/monitoring.md#pause-and-resume).
/// Every daemon on the database reads the table about once a second, so a pause reaches all of
/// them.
extension PostgresBackend {
    package func pauses() throws -> [String: JobPause] {
        let rows = try connection.query("SELECT job, note, extract(epoch FROM paused_at)::float8, paused_by FROM job_pauses")
        var result: [String: JobPause] = [:]
        for r in rows.rows {
            guard let job = r[0], let at = r[2].flatMap(Double.init) else { continue }
            result[job] = JobPause(job: job, note: r[1], pausedAt: Date(timeIntervalSince1970: at), pausedBy: r[3] ?? "cli")
        }
        return result
    }

    package func setPause(_ pause: JobPause) throws {
        try connection.query(
            """
            INSERT INTO job_pauses (job, note, paused_at, paused_by) VALUES ($1, $2, $3, $4)
            ON CONFLICT (job) DO UPDATE SET note = excluded.note, paused_at = excluded.paused_at, paused_by = excluded.paused_by
            """,
            [pause.job, pause.note, Timestamp.format(pause.pausedAt), pause.pausedBy])
    }

    package func clearPause(job: String) throws {
        try connection.query("DELETE FROM job_pauses WHERE job = $1", [job])
    }
}
