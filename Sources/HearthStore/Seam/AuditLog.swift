/// The audit log (docs/operations/monitoring.md#the-audit-log): every pause, resume, run now,
/// backfill, dead-letter retry and data import, from the CLI or the HTTP endpoint.
package protocol AuditLog: Sendable {
    /// Appends one entry (blocking).
    func appendAudit(_ entry: AuditEntry) throws

    /// Entries newest first, only `job`'s when given, at most `limit` (blocking).
    func auditEntries(job: String?, limit: Int?) throws -> [AuditEntry]
}
