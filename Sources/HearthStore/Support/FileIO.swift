#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
package import HearthKit
#endif

/// Thin POSIX file helpers: the store needs `fsync`, `O_EXCL`, `flock` and `lstat`, which
/// Foundation's `FileManager` does not expose.
package enum FileIO {
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var path: String
        package var operation: String
        package var errno: Int32

        package init(path: String, operation: String, errno: Int32) {
            self.path = path
            self.operation = operation
            self.errno = errno
        }

        package var description: String {
            let text = "\(operation) \(path): \(String(cString: strerror(errno)))"
            guard errno == ENOSPC || errno == EDQUOT else { return text }
            return text + " (free space on that file system and run the command again; a commit cut short is finished or rolled back by `hearth recover`, which every run does first)"
        }
    }

    package struct Stat: Sendable {
        package var size: Int
        package var mtimeSeconds: Int
        package var mtimeNanoseconds: Int
        package var isDirectory: Bool
        package var isRegular: Bool
        package var isSymlink: Bool
        package var mode: UInt32
        package var device: UInt64
        package var inode: UInt64
        package var uid: UInt32
        package var gid: UInt32
        /// `ctime` in nanoseconds since 1970.
        package var changeTimeNanoseconds: Int64
    }

    static func makeStat(_ st: stat) -> Stat {
        let fmt = st.st_mode & S_IFMT
        return Stat(
            size: Int(st.st_size), mtimeSeconds: Int(st.st_mtim.tv_sec), mtimeNanoseconds: Int(st.st_mtim.tv_nsec),
            isDirectory: fmt == S_IFDIR, isRegular: fmt == S_IFREG, isSymlink: fmt == S_IFLNK, mode: UInt32(st.st_mode),
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), uid: UInt32(st.st_uid), gid: UInt32(st.st_gid),
            changeTimeNanoseconds: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }

    /// `fstatat` of `name` in the directory open as `directory`, not following a final
    /// symbolic link; nil when it cannot be stat'ed (missing, or anything else: the caller reads
    /// the file, which says why).
    package static func statAt(in directory: Int32, _ name: String) -> Stat? {
        var st = stat()
        return fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? makeStat(st) : nil
    }

    /// `lstat`: does not follow a final symlink. nil when the path does not exist.
    package static func lstatPath(_ path: String) throws(Failure) -> Stat? {
        var st = stat()
        if lstat(path, &st) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw Failure(path: path, operation: "lstat", errno: errno)
        }
        return makeStat(st)
    }

    package static func statPath(_ path: String) throws(Failure) -> Stat? {
        var st = stat()
        if stat(path, &st) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw Failure(path: path, operation: "stat", errno: errno)
        }
        return makeStat(st)
    }

    package static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// Reads a whole file, refusing more than `limit` bytes. Returns the bytes and the stat taken
    /// on the open descriptor, so both describe the same file.
    ///
    /// With `followSymlink: false`, a final symbolic link is not followed and reads as nil (like
    /// a missing file), so the caller can look at it.
    package static func readFile(_ path: String, limit: Int, followSymlink: Bool = true) throws(Failure) -> (bytes: [UInt8], stat: Stat, tooLarge: Bool)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (followSymlink ? 0 : O_NOFOLLOW))
        if fd < 0 {
            if errno == ENOENT || (!followSymlink && errno == ELOOP) { return nil }
            throw Failure(path: path, operation: "open", errno: errno)
        }
        defer { close(fd) }
        return try readOpened(fd, path: path, limit: limit)
    }

    /// What ``readFile(_:limit:followSymlink:)`` with `followSymlink: false` gives for the file
    /// `name` in the directory open as `directory`, without walking the directory's path again
    /// (the kernel's path lookup was a visible part of reading a collection; docs/performance.md#profiles-leaderboard-rebuild-steady-run-20000-users).
    /// `path` is only for error messages. Nil when the file is missing or a symbolic link.
    /// With `followSymlink` a symbolic link is read through, as ``readFile(_:limit:followSymlink:)`` does by default.
    package static func readFile(in directory: Int32, _ name: String, path: @autoclosure () -> String, limit: Int, followSymlink: Bool = false) throws(Failure) -> (bytes: [UInt8], stat: Stat, tooLarge: Bool)? {
        let fd = openat(directory, name, O_RDONLY | O_CLOEXEC | (followSymlink ? 0 : O_NOFOLLOW) | O_NONBLOCK)  // O_NONBLOCK: a FIFO named like a document must not hang the read (regular files ignore it)
        if fd < 0 {
            if errno == ENOENT || (!followSymlink && errno == ELOOP) { return nil }
            throw Failure(path: path(), operation: "open", errno: errno)
        }
        defer { close(fd) }
        return try readOpened(fd, path: path(), limit: limit)
    }

    /// What ``readWhole(in:_:into:)`` found.
    package enum WholeRead: Equatable {
        /// The file's bytes, this many at the start of the buffer.
        case bytes(Int)
        /// No file of that name (`openat` said `ENOENT`): the document is absent.
        case missing
        /// Anything else: the caller reads the file through ``readFile(in:_:path:limit:)``.
        case other
    }

    /// The whole of the file `name` in the directory open as `directory`, read into `buffer`
    /// with three system calls (`openat`, one `read`, `close`): no `fstat`. The number of bytes
    /// when the file fits in `buffer` with room to spare (a `read` shorter than asked is the end
    /// of a regular file); `.missing` when no such name exists (one failed `openat`, so asking
    /// for absent documents costs one system call each); `.other` when it does not fit, is a
    /// symbolic link, cannot be read (a directory: `EISDIR`) or anything else goes wrong — the
    /// caller then reads it through ``readFile(in:_:path:limit:)``, which says why. It does not
    /// tell a regular file from a device: the caller takes the slow path for anything that is
    /// not a valid document (docs/performance.md#reads-at-the-floor-writes-at-the-disks-pace).
    package static func readWhole(in directory: Int32, _ name: String, into buffer: UnsafeMutableRawBufferPointer) -> WholeRead {
        readWhole(in: directory, name, into: buffer, stat: nil)
    }

    /// ``readWhole(in:_:into:)`` with the `fstat` of the open file (four system calls), so the
    /// bytes and the stat describe the same file.
    package static func readWholeAndStat(in directory: Int32, _ name: String, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, stat: Stat)? {
        var st = stat()
        guard case .bytes(let n) = readWhole(in: directory, name, into: buffer, stat: &st) else { return nil }
        return (n, makeStat(st))
    }

    private static func readWhole(in directory: Int32, _ name: String, into buffer: UnsafeMutableRawBufferPointer, stat st: UnsafeMutablePointer<stat>?) -> WholeRead {
        let fd = openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)  // O_NONBLOCK: a FIFO named like a document must not hang the read (regular files ignore it)
        if fd < 0 { return errno == ENOENT ? .missing : .other }
        defer { close(fd) }
        if let st, fstat(fd, st) != 0 { return .other }
        while true {
            let n = read(fd, buffer.baseAddress!, buffer.count)
            if n < 0, errno == EINTR { continue }
            return n >= 0 && n < buffer.count ? .bytes(n) : .other
        }
    }

    /// Opens a directory for ``readFile(in:_:path:limit:)``; nil when it cannot be opened.
    package static func openDirectory(_ path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        return fd < 0 ? nil : fd
    }

    private static func readOpened(_ fd: Int32, path: @autoclosure () -> String, limit: Int) throws(Failure) -> (bytes: [UInt8], stat: Stat, tooLarge: Bool) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(path: path(), operation: "fstat", errno: errno) }
        let info = makeStat(st)
        if info.size > limit { return ([], info, true) }
        // Read straight into uninitialized storage: zero-filling it first would be one more pass
        // over every document's bytes (docs/performance.md#profiles-leaderboard-rebuild-steady-run-20000-users).
        var readErrno: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: info.size) { buf, initialized in
            var done = 0
            while done < info.size {
                let n = read(fd, buf.baseAddress! + done, info.size - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    readErrno = errno
                    break
                }
                if n == 0 { break }   // the file shrank meanwhile: what was read is the document
                done += n
            }
            initialized = done
        }
        if readErrno != 0 { throw Failure(path: path(), operation: "read", errno: readErrno) }
        return (bytes, info, false)
    }

    /// Reads a small file whole (state files, secrets); nil when missing.
    package static func readSmallFile(_ path: String) throws(Failure) -> [UInt8]? {
        try readFile(path, limit: 64 << 20)?.bytes
    }

    /// Writes `bytes` to `path` atomically: a temp file beside it, fsync, rename.
    /// The caller fsyncs the directory when it needs the rename to be durable.
    package static func writeAtomically(
        _ path: String, _ bytes: [UInt8], mode: UInt32 = 0o640, sync: Bool = true, ownership: FileOwnership.Target? = nil
    ) throws(Failure) {
        try writeAtomically(path, mode: mode, sync: sync, ownership: ownership) { fd, tmp throws(Failure) in try writeAll(fd, bytes, path: tmp) }
    }

    /// ``writeAtomically(_:_:mode:sync:ownership:)`` for a file written a piece at a time:
    /// `write` gets the temp file's descriptor and path.
    package static func writeAtomically(
        _ path: String, mode: UInt32 = 0o640, sync: Bool = true, ownership: FileOwnership.Target? = nil,
        _ write: (Int32, String) throws(Failure) -> Void
    ) throws(Failure) {
        let tmp = try writeTemporary(for: path, mode: mode, sync: sync, ownership: ownership, write)
        guard rename(tmp, path) == 0 else {
            let e = errno
            unlink(tmp)
            throw Failure(path: path, operation: "rename", errno: e)
        }
    }

    /// Writes `bytes` to the temp file beside `path` (`.<name>.hearth-tmp`) and returns its
    /// path; the caller renames it into place. With `ownership`, the temp file gets that owner,
    /// group and mode (see ``FileOwnership``) instead of `mode`.
    package static func writeTemporary(
        for path: String, _ bytes: [UInt8], mode: UInt32 = 0o640, sync: Bool, ownership: FileOwnership.Target? = nil
    ) throws(Failure) -> String {
        try writeTemporary(for: path, mode: mode, sync: sync, ownership: ownership) { fd, tmp throws(Failure) in try writeAll(fd, bytes, path: tmp) }
    }

    /// ``writeTemporary(for:_:mode:sync:ownership:)`` for a file written by `write`, which
    /// gets the temp file's descriptor and path.
    package static func writeTemporary(
        for path: String, mode: UInt32 = 0o640, sync: Bool, ownership: FileOwnership.Target?, _ write: (Int32, String) throws(Failure) -> Void
    ) throws(Failure) -> String {
        let tmp = temporaryPath(for: path)
        let createMode = ownership.map { $0.mode & 0o777 } ?? mode
        // A fresh file (a temp file left by a crash is removed first), so that its owner and
        // mode are the ones set here.
        var fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(createMode))
        if fd < 0, errno == EEXIST {
            unlink(tmp)
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(createMode))
        }
        guard fd >= 0 else { throw Failure(path: tmp, operation: "create", errno: errno) }
        defer { close(fd) }
        if let ownership { FileOwnership.apply(ownership, to: fd) }
        try write(fd, tmp)
        if sync, fsync(fd) != 0 { throw Failure(path: tmp, operation: "fsync", errno: errno) }
        return tmp
    }

    /// The temp file ``writeTemporary(for:_:mode:sync:ownership:)`` writes for `path`:
    /// `.<name>.hearth-tmp` beside it.
    package static func temporaryPath(for path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." + path + ".hearth-tmp" }
        return String(path[...slash]) + "." + String(path[path.index(after: slash)...]) + ".hearth-tmp"
    }

    /// `syncfs(2)`: flushes every dirty page and inode of the file system holding `path`.
    package static func syncFileSystem(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        if linuxSyncfs(fd) != 0 { throw Failure(path: path, operation: "syncfs", errno: errno) }
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(Failure) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buf in write(fd, buf.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, operation: "write", errno: errno)
            }
            done += n
        }
    }

    package static func fsyncDirectory(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, operation: "open directory", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw Failure(path: path, operation: "fsync directory", errno: errno) }
    }

    /// `mkdir -p` with mode 0750 for the directories it creates. With `root` (a data
    /// directory), only directories below it are made: a data directory that is gone (moved,
    /// deleted, its disk unmounted) is never recreated empty by a run or a daemon writing its
    /// state; the write fails with ``missingDataDirectory(_:)`` instead.
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o750, within root: String? = nil) throws(Failure) {
        if let st = try statPath(path) {
            if st.isDirectory { return }
            throw Failure(path: path, operation: "mkdir (a file is in the way)", errno: EEXIST)
        }
        if path == root { throw missingDataDirectory(path) }
        let parent = directoryName(path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent, mode: mode, within: root) }
        if mkdir(path, mode_t(mode)) != 0, errno != EEXIST { throw Failure(path: path, operation: "mkdir", errno: errno) }
    }

    /// The error of a write below a data directory that no longer exists.
    package static func missingDataDirectory(_ root: String) -> Failure {
        Failure(path: root, operation: "write below the data directory (it is gone: moved, deleted or its disk unmounted; Hearth does not recreate it — put it back or point dataDir at it)", errno: ENOENT)
    }

    /// Names in a directory (without `.` and `..`); nil when it does not exist.
    package static func list(_ path: String) throws(Failure) -> [String]? {
        guard let d = opendir(path) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw Failure(path: path, operation: "opendir", errno: errno)
        }
        defer { closedir(d) }
        var names: [String] = []
        // The name is read in place: `e.pointee` would copy a whole `dirent`, but the kernel's
        // record is only as long as its name, so the copy could read past the end of readdir's
        // buffer (a crash when that is the end of a page).
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let e = readdir(d) {
            let name = String(cString: UnsafeRawPointer(e).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        return names
    }

    package static func remove(_ path: String) throws(Failure) {
        if unlink(path) != 0, errno != ENOENT { throw Failure(path: path, operation: "unlink", errno: errno) }
    }

    package static func directoryName(_ path: String) -> String {
        guard let i = path.lastIndex(of: "/") else { return "." }
        if i == path.startIndex { return "/" }
        return String(path[..<i])
    }
}

/// glibc's `syncfs(2)`, declared only under `_GNU_SOURCE`, so the Glibc module does not
/// import it; this binds the C symbol directly (Linux only, like the rest of the store).
@_silgen_name("syncfs")
private func linuxSyncfs(_ fd: Int32) -> Int32
