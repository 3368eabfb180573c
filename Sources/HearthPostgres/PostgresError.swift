/// A failure talking to PostgreSQL. The message never holds the connection URL or its
/// password (``PostgresConnection`` redacts them); it names what Hearth was doing.
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    package var message: String
    /// The SQLSTATE code, when the server sent one (`40001`, `23505`, …).
    package var sqlState: String?

    package init(_ message: String, sqlState: String? = nil) {
        self.message = message
        self.sqlState = sqlState
    }

    package var description: String { message }

    /// A unique violation (`23505`).
    package var isUniqueViolation: Bool { sqlState == "23505" }
}
