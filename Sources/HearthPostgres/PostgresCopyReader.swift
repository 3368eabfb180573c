/// The rows of a `COPY (SELECT id, raw, version …) TO STDOUT (FORMAT binary)`, read from the
/// messages of data libpq hands over (``PostgresConnection/copyOut(_:_:)``).
///
/// The binary format (PostgreSQL's documentation, "COPY", "Binary Format"): an 11-byte
/// signature, a 32-bit flags field and a 32-bit header-extension length (and that many bytes);
/// then per row a 16-bit field count and, per field, a 32-bit length (-1 for NULL) and the
/// value's bytes; then a 16-bit -1. Integers are big-endian; `text` is its UTF-8 bytes and
/// `bigint` 8 bytes. The server sends each row in one message, the header in front of the first,
/// so a message holds whole rows; anything else is reported as an error, never guessed at.
package struct PostgresCopyReader {
    package struct Row: Equatable, Sendable {
        package var id: String
        package var raw: [UInt8]
        package var version: Int64

        package init(id: String, raw: [UInt8], version: Int64) {
            self.id = id
            self.raw = raw
            self.version = version
        }
    }

    private var headerRead = false
    package private(set) var ended = false

    package init() {}

    static let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]

    /// Reads one message: hands each row in it to `row`, in order.
    package mutating func read(_ message: UnsafeRawBufferPointer, _ row: (Row) throws -> Void) throws {
        var at = 0
        func need(_ n: Int) throws(PostgresError) {
            guard n >= 0, message.count - at >= n else { throw PostgresError("PostgreSQL: a COPY message ends inside a row (\(message.count) bytes)") }
        }
        func int16() throws(PostgresError) -> Int16 {
            try need(2)
            defer { at += 2 }
            return Int16(bitPattern: message.loadUnaligned(fromByteOffset: at, as: UInt16.self).bigEndian)
        }
        func int32() throws(PostgresError) -> Int32 {
            try need(4)
            defer { at += 4 }
            return Int32(bitPattern: message.loadUnaligned(fromByteOffset: at, as: UInt32.self).bigEndian)
        }
        func field() throws(PostgresError) -> UnsafeRawBufferPointer {
            let length = Int(try int32())
            guard length >= 0 else { throw PostgresError("PostgreSQL: a COPY row has a NULL where none can be") }
            try need(length)
            defer { at += length }
            return UnsafeRawBufferPointer(rebasing: message[at..<(at + length)])
        }
        if !headerRead {
            try need(PostgresCopyReader.signature.count + 8)
            guard message.prefix(PostgresCopyReader.signature.count).elementsEqual(PostgresCopyReader.signature) else {
                throw PostgresError("PostgreSQL: the COPY data does not start with the binary signature")
            }
            at = PostgresCopyReader.signature.count + 4   // the flags: none is set by a server that writes this layout
            let extensionLength = Int(try int32())
            try need(extensionLength)
            at += extensionLength
            headerRead = true
        }
        while at < message.count {
            guard !ended else { throw PostgresError("PostgreSQL: COPY data after its end") }
            let fields = try int16()
            if fields == -1 {
                ended = true
                continue
            }
            guard fields == 3 else { throw PostgresError("PostgreSQL: a COPY row has \(fields) fields, not 3") }
            let id = String(decoding: try field(), as: UTF8.self)
            let raw = [UInt8](try field())
            let version = try field()
            guard version.count == 8 else { throw PostgresError("PostgreSQL: a COPY row's version has \(version.count) bytes, not 8") }
            try row(Row(id: id, raw: raw, version: Int64(bitPattern: version.loadUnaligned(as: UInt64.self).bigEndian)))
        }
    }
}
