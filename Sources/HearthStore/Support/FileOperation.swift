/// One file written or removed, by its path relative to the data root: what a data directory's
/// journal replays, and how every backend lays out the ledger's files (``Ledger``).
package enum FileOperation: Sendable, Equatable {
    /// Relative path (from the data root) and the file's bytes.
    case put(String, [UInt8])
    case delete(String)
}
