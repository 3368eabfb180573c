#if canImport(Glibc)
import Glibc
#endif
import HearthStore

/// Which job's commit wrote a document file, kept on the file itself so that any process's
/// change feed can tell a job's own commit from an app's write
/// (docs/triggers.md#own-commits-the-writer-mark).
///
/// A commit marks each document it writes with the extended attribute `user.hearth`: the job,
/// the commit's ``RunCommit/chain``, and the file's size, modification time (ns) and path as
/// `fstat` saw them once its bytes were written, before the rename that puts it in place. The
/// feed believes the mark only while the file still has that size, time and path: an app that
/// later rewrites the file in place keeps the attribute but changes the time, and a copy or a
/// rename to another name changes the path. A file system that refuses user attributes leaves
/// every write unattributed (an app's).
package struct WriterMark: Sendable, Equatable {
    package var job: String
    package var chain: Int

    package init(job: String, chain: Int) {
        self.job = job
        self.chain = chain
    }

    /// The attribute's name.
    static let attribute = "user.hearth"
    /// The longest value read; a longer one is not Hearth's.
    static let maxValue = 256

    /// Marks the file open as `fd`, whose bytes are written, that will be renamed to
    /// `relativePath` (from the data root). Best effort: nothing happens when the file system
    /// refuses it.
    package func apply(to fd: Int32, relativePath: String) {
        #if canImport(Glibc)
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        let value = Self.value(job: job, chain: chain, size: Int64(st.st_size), mtime: Self.nanoseconds(st.st_mtim), path: relativePath)
        _ = value.withUnsafeBufferPointer { buf in linuxFsetxattr(fd, Self.attribute, buf.baseAddress, buf.count, 0) }
        #endif
    }

    /// The mark of the regular file at `path` (`relativePath` from the data root) whose
    /// `lstat` is `st`, when it still describes the file; nil when there is none (an app's
    /// write) or the file changed since the commit.
    static func read(path: String, relativePath: String, stat st: FileIO.Stat) -> WriterMark? {
        #if canImport(Glibc)
        var buffer = [UInt8](repeating: 0, count: maxValue)
        let n = buffer.withUnsafeMutableBufferPointer { buf in linuxLgetxattr(path, attribute, buf.baseAddress, buf.count) }
        guard n > 0 else { return nil }
        let mtime = Int64(st.mtimeSeconds) * 1_000_000_000 + Int64(st.mtimeNanoseconds)
        return parse(buffer[0..<n], size: Int64(st.size), mtime: mtime, path: relativePath)
        #else
        return nil
        #endif
    }

    /// `1 <chain> <size> <mtime ns> <path hash, hex> <job>`: short, so that ext4 keeps it inside
    /// the inode instead of a block of its own.
    package static func value(job: String, chain: Int, size: Int64, mtime: Int64, path: String) -> [UInt8] {
        Array("1 \(chain) \(size) \(mtime) \(String(pathHash(path), radix: 16)) \(job)".utf8)
    }

    /// The mark in `value`, when it is for a file of this size, time and path.
    package static func parse(_ value: some Collection<UInt8>, size: Int64, mtime: Int64, path: String) -> WriterMark? {
        let fields = value.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 6, fields[0] == "1", let chain = Int(fields[1]), chain >= 0,
              Int64(fields[2]) == size, Int64(fields[3]) == mtime, UInt64(fields[4], radix: 16) == pathHash(path), !fields[5].isEmpty
        else { return nil }
        return WriterMark(job: fields[5], chain: chain)
    }

    /// FNV-1a of the path's bytes.
    static func pathHash(_ path: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in path.utf8 {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }

    #if canImport(Glibc)
    private static func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
    #endif
}

#if canImport(Glibc)
// <sys/xattr.h> is not in the Glibc module; these bind the C symbols directly.
@_silgen_name("fsetxattr")
private func linuxFsetxattr(_ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32

@_silgen_name("lgetxattr")
private func linuxLgetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int
#endif
