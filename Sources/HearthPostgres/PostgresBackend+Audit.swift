import HearthKit
package import HearthStore

/// The audit log in the `audit_log` table (docs/operations/monitoring.md#the-audit-log): one
/// row per action, the entry's JSON in `entry`, newest last by `seq`.
extension PostgresBackend {
    package func appendAudit(_ entry: AuditEntry) throws {
        try connection.query(
            "INSERT INTO audit_log (at, action, job, entry) VALUES ($1, $2, $3, $4)",
            [Timestamp.format(entry.time), entry.action.rawValue, entry.job, JSONWriter.compact(.object(entry.json))])
    }

    package func auditEntries(job: String?, limit: Int?) throws -> [AuditEntry] {
        let rows = try connection.query(
            "SELECT entry FROM audit_log WHERE ($1::text IS NULL OR job = $1) ORDER BY seq DESC LIMIT $2",
            [job, limit.map(String.init)])
        return rows.values.compactMap { text in
            guard let text, case .object(let o)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
            return AuditEntry(json: o)
        }
    }
}
