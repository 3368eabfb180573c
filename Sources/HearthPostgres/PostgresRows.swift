/// The rows of a query, as text (libpq's text format), row-major.
package struct PostgresRows: Sendable {
    package let columns: Int
    package let values: [String?]
    /// Rows returned, or rows affected by an INSERT/UPDATE/DELETE.
    package let affected: Int

    package var count: Int { columns == 0 ? 0 : values.count / columns }

    package subscript(row: Int, column: Int) -> String? { values[row * columns + column] }

    /// The rows as arrays of column values.
    package var rows: [[String?]] {
        (0..<count).map { i in Array(values[(i * columns)..<((i + 1) * columns)]) }
    }
}
