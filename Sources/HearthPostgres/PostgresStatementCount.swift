import Synchronization

/// How many statements a backend's connections have sent to the server (each `query`,
/// `execute` and `copyIn` is one), and how many connections it opened (not counting those
/// reused from its pool), shared by every connection the backend opens. The tests read it to
/// catch a job that sends one statement per document it reads, or a run that connects again
/// for each step (docs/storage/postgres.md#reads); nothing in the product reads it.
package final class PostgresStatementCount: Sendable {
    private let value = Atomic<Int>(0)
    private let opened = Atomic<Int>(0)

    package init() {}

    func add() { value.add(1, ordering: .relaxed) }

    func connected() { opened.add(1, ordering: .relaxed) }

    package var total: Int { value.load(ordering: .relaxed) }

    /// Connections opened to the server.
    package var connections: Int { opened.load(ordering: .relaxed) }
}
