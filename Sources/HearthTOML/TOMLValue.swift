/// A parsed TOML value.
///
/// Date-times are not interpreted: offset date-times, local date-times, local dates and local
/// times are all validated and then kept as the exact text written in the document, e.g.
/// `"1979-05-27 07:32:00Z"` (note the space is kept if the document used one).
package indirect enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    /// Includes `inf`, `-inf` and `nan`; remember that `nan != nan` when comparing values.
    case float(Double)
    case boolean(Bool)
    case datetime(String)
    /// A static array (`[1, 2]`) or an array of tables (`[[name]]`); elements carry their own lines.
    case array([TOMLNode])
    /// A `[table]`, an inline table, or a table created by dotted keys.
    case table(TOMLTable)

    /// The TOML type name, for error messages such as `expected a string, found an integer`.
    package var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .datetime: "datetime"
        case .array: "array"
        case .table: "table"
        }
    }
}
