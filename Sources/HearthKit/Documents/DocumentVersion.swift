/// What a run saw of a file, for the optimistic check at commit (docs/reliability.md#commits-locking-crashes):
/// size, modification time and a content hash. `nil` in a read set means "absent".
public struct DocumentVersion: Sendable, Hashable {
    public var size: Int
    public var mtimeSeconds: Int
    public var mtimeNanoseconds: Int
    public var hash: UInt64

    public init(size: Int, mtimeSeconds: Int, mtimeNanoseconds: Int, hash: UInt64) {
        self.size = size
        self.mtimeSeconds = mtimeSeconds
        self.mtimeNanoseconds = mtimeNanoseconds
        self.hash = hash
    }

    /// A version made of the bytes alone (size and hash), as the data directory takes it: its
    /// fast read path does not `fstat` a document, so it has no mtime. A file rewritten with
    /// the same bytes keeps its version, which is harmless: what the run computed from those
    /// bytes is still right (docs/reliability.md#commits-locking-crashes).
    public init(size: Int, hash: UInt64) {
        self.init(size: size, mtimeSeconds: 0, mtimeNanoseconds: 0, hash: hash)
    }

    /// A 64-bit hash of a file's bytes, eight bytes per step. Not cryptographic: together with
    /// the size it only has to notice that another process rewrote the file. Every read
    /// of a document hashes all its bytes, so the loop is on the hot path of every job: it
    /// multiplies once per 8-byte word (FNV-1a, which it replaced, multiplied once per byte, a
    /// serial chain about as slow as parsing the bytes; docs/performance.md#profiles-leaderboard-rebuild-steady-run-20000-users). The value
    /// never leaves the process except as the opaque `version` of a command job's document
    /// (docs/functions.md), which only has to change when the document does.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let n = bytes.count
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
        var i = 0
        while i + 8 <= n {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 29
            i += 8
        }
        while i < n {
            h = (h ^ UInt64(bytes[i])) &* 0x100_0000_01b3
            i += 1
        }
        h ^= h >> 32
        h = h &* 0xD6E8_FEB8_6659_FD93
        return h ^ (h >> 32)
    }

    public static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { hash($0) }
    }
}
