/// The run history (docs/runs-and-plans.md#runs): the records of runs that committed nothing
/// (a committed run's record is part of its commit), listed, looked up and pruned.
package protocol RunHistoryStore: Sendable {
    /// Saves the record of a run that committed nothing (failed, cancelled, conflict).
    func saveRecord(_ record: RunRecord) async throws

    /// ``saveRecord(_:)`` from the caller's thread (blocking): the daemon records skipped slots
    /// of a store no other daemon shares this way, in order, before it goes on.
    func writeRecord(_ record: RunRecord) throws

    /// Run records, the one that ended last first.
    func runRecords(job: String?, status: RunRecord.Status?, limit: Int?) throws -> [RunRecord]

    /// The record with this run id, whatever its job (nil: none, or pruned); without reading
    /// the others (`GET /runs/{id}`).
    func runRecord(id: String) throws -> RunRecord?

    /// Deletes a job's oldest records beyond `keep`.
    func pruneRunRecords(job: String, keep: Int) throws
}
