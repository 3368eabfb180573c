import Synchronization

/// How many statements a backend's connections have sent to the server (each `query`,
/// `execute` and `copyIn` is one), shared by every connection the backend opens. The tests
/// read it to catch a job that sends one statement per document it reads
/// (docs/storage/postgres.md#reads); nothing in the product reads it.
package final class PostgresStatementCount: Sendable {
    private let value = Atomic<Int>(0)

    package init() {}

    func add() { value.add(1, ordering: .relaxed) }

    package var total: Int { value.load(ordering: .relaxed) }
}
