import Testing
import HearthPostgres

/// `COPY … (FORMAT binary)` as the server sends it, byte by byte: rows are read whole, and
/// anything else is an error that says what was wrong, never a guess.
@Suite("PostgreSQL binary COPY data")
struct PostgresCopyReaderTests {
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    static func row(_ id: String, _ raw: String, _ version: Int64, fields: Int16 = 3) -> [UInt8] {
        func int32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
        var out = withUnsafeBytes(of: fields.bigEndian) { Array($0) }
        for field in [Array(id.utf8), Array(raw.utf8)] { out += int32(Int32(field.count)) + field }
        return out + int32(8) + withUnsafeBytes(of: version.bigEndian) { Array($0) }
    }

    static let end: [UInt8] = [0xFF, 0xFF]

    /// The rows of `messages`, read in order, or the error's text.
    static func read(_ messages: [[UInt8]]) -> (rows: [PostgresCopyReader.Row], ended: Bool, error: String?) {
        var reader = PostgresCopyReader()
        var rows: [PostgresCopyReader.Row] = []
        do {
            for m in messages { try m.withUnsafeBytes { try reader.read($0) { rows.append($0) } } }
        } catch {
            return (rows, reader.ended, "\(error)")
        }
        return (rows, reader.ended, nil)
    }

    @Test func theHeaderComesWithTheFirstRowAndEachRowIsReadWhole() {
        let got = Self.read([Self.header + Self.row("u1", #"{"n": 1}"#, 7), Self.row("u2", "{}\t\n\\é", 1 << 40), Self.end])
        #expect(got.error == nil)
        #expect(got.ended)
        #expect(got.rows == [
            PostgresCopyReader.Row(id: "u1", raw: Array(#"{"n": 1}"#.utf8), version: 7),
            PostgresCopyReader.Row(id: "u2", raw: Array("{}\t\n\\é".utf8), version: 1 << 40),
        ])
    }

    @Test func anEmptyCollectionIsTheHeaderAndTheEnd() {
        let got = Self.read([Self.header + Self.end])
        #expect(got.error == nil && got.ended && got.rows.isEmpty)
    }

    @Test func aHeaderExtensionIsSkipped() {
        var header = Self.header
        header[header.count - 1] = 3   // a 3-byte extension follows
        let got = Self.read([header + [1, 2, 3] + Self.row("a", "{}", 1) + Self.end])
        #expect(got.error == nil && got.rows.map(\.id) == ["a"])
    }

    /// Messages the server never sends, each with the error it gives.
    static let malformed: [(messages: [[UInt8]], error: String)] = [
        ([Array("PGCOPY\n".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0]], "PostgreSQL: the COPY data does not start with the binary signature"),
        ([header + Array(row("a", "{}", 1).dropLast(3))], "PostgreSQL: a COPY message ends inside a row (41 bytes)"),
        ([header + row("a", "{}", 1, fields: 2)], "PostgreSQL: a COPY row has 2 fields, not 3"),
        ([header + end, row("a", "{}", 1)], "PostgreSQL: COPY data after its end"),
        ([header + [0, 3, 0xFF, 0xFF, 0xFF, 0xFF]], "PostgreSQL: a COPY row has a NULL where none can be"),
    ]

    @Test(arguments: malformed)
    func malformedDataIsAnErrorThatSaysWhat(_ bad: (messages: [[UInt8]], error: String)) {
        #expect(Self.read(bad.messages).error == bad.error)
    }
}
