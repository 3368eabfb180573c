import HearthKit
import HearthPostgres
import HearthDataDirectory
import HearthStore
import HearthTestSupport
import HearthTesting
import Testing

/// The storage backends every capability's conformance suite runs over: the data directory,
/// PostgreSQL (a real server, ``PostgresServer``) and HearthTesting's in-memory store
/// (docs/architecture.md#storage). A new backend is added here and must pass every suite of
/// `Conformance/`.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case directory, postgres, memory

    var testDescription: String { rawValue }

    /// A new, empty store of this kind and what removes it.
    func make() async throws -> (store: any StorageBackend, remove: @Sendable () -> Void) {
        switch self {
        case .directory:
            let temp = try TempDirectory("hearth-conformance")
            return (try DataDirectory(root: temp.path), { temp.remove() })
        case .postgres:
            let url = try await PostgresServer.shared().database()
            let store = try await BlockingIO.run { () throws(any Error) -> PostgresBackend in
                _ = try PostgresSchema.migrate(PostgresConnection(url: url))
                return try PostgresBackend(url: url)
            }
            return (store, {})
        case .memory:
            return (try InMemoryStore(), {})
        }
    }
}
