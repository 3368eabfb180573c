package import HearthKit

/// Where Hearth keeps the apps' documents and its own state: the seam between the host and a
/// backend (the data directory, PostgreSQL, and HearthTesting's in-memory store;
/// docs/architecture.md#storage). Nothing outside a backend's own target looks at which one it
/// is: what differs is in ``features`` and in the optional ``transfer``.
///
/// A backend is the sum of named capabilities, each of which a caller that needs only it may
/// take on its own: it reads documents (``DocumentStore``), commits runs and finishes commits a
/// crash interrupted (``CommitStore``), serialises runs of the same job across processes and
/// claims slots (``RunClaims``), keeps the run history (``RunHistoryStore``), the scheduler's
/// state (``SchedulerStateStore``), paused jobs (``PauseStore``), the audit log (``AuditLog``)
/// and the outbox queue (``OutboxStore``), and tells of writes (``ChangeFeed``). Every method
/// that may block runs its blocking part through ``BlockingIO``.
package protocol StorageBackend: DocumentStore, CommitStore, RunClaims, RunHistoryStore, SchedulerStateStore, PauseStore, AuditLog, OutboxStore,
    ChangeFeed
{
    /// Names the backend in messages (the data directory's path).
    var location: String { get }

    /// What this backend does beyond what every backend does (``StorageFeatures``).
    var features: StorageFeatures { get }

    /// Copying documents between this backend and a data directory (`hearth data import` and
    /// `export`); nil when the backend cannot (the data directory itself).
    var transfer: (any DocumentTransfer)? { get }

    /// Why the backend cannot serve a daemon now (`GET /readyz`), as the reason shown there;
    /// nil when it can (blocking).
    func healthProblem() -> String?

    /// What `hearth check` reports of the store itself beyond invalid documents: the
    /// `collections` that hold documents, how many, and (where documents are files) files Hearth
    /// ignores and documents in the `written` collections whose owner it could not keep (blocking).
    func inspect(collections: Set<String>, written: Set<String>) throws -> StoreInspection
}

extension StorageBackend {
    package var transfer: (any DocumentTransfer)? { nil }

    /// Whether a run-history query succeeds.
    package func healthProblem() -> String? {
        do { _ = try runRecords(job: nil, status: nil, limit: 1) } catch {
            return "the data backend is unreachable (a query failed)"
        }
        return nil
    }

    /// The documents counted: a store without files has no stray files and no file owners.
    package func inspect(collections: Set<String>, written: Set<String>) throws -> StoreInspection {
        var inspection = StoreInspection()
        for c in collections.sorted() {
            let ids = try documentIDs(in: c)
            guard !ids.isEmpty else { continue }
            inspection.collections.append(c)
            inspection.documents += ids.count
        }
        return inspection
    }
}
