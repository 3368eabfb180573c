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

    /// 64-bit FNV-1a. Not cryptographic: together with size and mtime it only has to notice
    /// that another process rewrote the file.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return h
    }

    public static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { hash($0) }
    }
}
