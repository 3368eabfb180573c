/// What a store remembers of the documents a job's scan of a collection turned down, so that
/// the next scan does not read them again while their files are unchanged
/// (docs/storage/reject-memos.md).
///
/// A job opts in with ``JobContext/decode(_:memo:_:)``, promising that its transform turns a
/// document down (returns nil) for what the document holds alone: not for the time, its
/// parameters or any other document. `gift-settle` scanning a million transactions for the
/// pending gifts among them is the case it is for: once settled, a transaction is never pending
/// again unless a writer changes its file.
public protocol RejectMemo: Sendable {
    /// Each path of one collection, in order: skipped when its file is one the memo holds,
    /// else read (with the file's fingerprint, when the file is old enough to be remembered).
    func read(_ paths: ArraySlice<DocumentPath>) -> [MemoRead]
    /// Replaces the memo with `rejected`. Best effort: a memo that cannot be written only
    /// costs the next scan a full read.
    func save(_ rejected: consuming [FileFingerprint])
}

/// A file's identity and state: inode number, size and change time (`ctime`, which every
/// write, rename onto, `chmod` or `touch` moves, and which no process can set back).
public struct FileFingerprint: Sendable, Hashable, Comparable {
    public var inode: UInt64
    public var size: Int64
    public var changeTimeNanoseconds: Int64

    public init(inode: UInt64, size: Int64, changeTimeNanoseconds: Int64) {
        self.inode = inode
        self.size = size
        self.changeTimeNanoseconds = changeTimeNanoseconds
    }

    public static func < (a: FileFingerprint, b: FileFingerprint) -> Bool {
        (a.inode, a.changeTimeNanoseconds, a.size) < (b.inode, b.changeTimeNanoseconds, b.size)
    }
}

/// One path of a memo scan.
public enum MemoRead: Sendable {
    /// The file is one the memo holds as turned down: not read.
    case unchanged(FileFingerprint)
    /// Read as ``DocumentStore/read(_:)-(DocumentPath)`` would; with the file's fingerprint when
    /// the memo may remember it (nil for a file changed too recently to be told apart from a
    /// change in the same clock tick, or not a regular file).
    case read(DocumentRead, FileFingerprint?)
}
