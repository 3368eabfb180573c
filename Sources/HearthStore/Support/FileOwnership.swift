#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owner, group and mode of the documents and collection directories Hearth writes
/// (docs/data-directory.md#ownership-and-modes).
///
/// - A replaced document keeps the owner, group and mode of the file it replaces: they are set
///   on the temp file before the rename.
/// - A new document or directory takes the group of its parent directory (and, when Hearth may
///   change owners, i.e. runs as root, its owner too) and the mode `[store] fileMode` /
///   `dirMode`; a directory under a setgid directory stays setgid.
/// - Where the owner or group cannot be kept (Hearth is not root and the file belongs to
///   someone else), ``unkeepable(_:probeDirectory:)`` finds it before the commit and the run fails with
///   `OwnershipError`: Hearth never silently changes who owns app data.
package struct FileOwnership: Sendable, Equatable {
    /// Mode of new documents (`[store] fileMode`).
    package var fileMode: UInt32
    /// Mode of new collection directories (`[store] dirMode`).
    package var dirMode: UInt32

    package init(fileMode: UInt32 = 0o644, dirMode: UInt32 = 0o755) {
        self.fileMode = fileMode
        self.dirMode = dirMode
    }

    /// What a file written by Hearth should get; nil fields are left as created.
    package struct Target: Sendable, Equatable {
        package var uid: UInt32?
        package var gid: UInt32?
        package var mode: UInt32

        package init(uid: UInt32?, gid: UInt32?, mode: UInt32) {
            self.uid = uid
            self.gid = gid
            self.mode = mode
        }
    }

    /// The owner, group and mode for a document written at `path`: those of the file there,
    /// else `newFile` (``newFileTarget(inDirectory:)`` of its directory, which a commit works
    /// out once per directory, not once per file).
    package func target(forFile path: String, newFile: @autoclosure () -> Target) -> Target {
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG {
            return Target(uid: st.st_uid, gid: st.st_gid, mode: UInt32(st.st_mode) & 0o7777)
        }
        return newFile()
    }

    /// The owner, group and mode of a new file in `dir`: the directory's group (and, as root,
    /// its owner) and `fileMode`.
    package func newFileTarget(inDirectory dir: String) -> Target {
        var st = stat()
        guard stat(dir, &st) == 0 else { return Target(uid: nil, gid: nil, mode: fileMode) }
        return Target(uid: Self.process.canChangeOwner ? st.st_uid : nil, gid: st.st_gid, mode: fileMode)
    }

    /// Sets `target` on the open file `fd` (a temp file Hearth just created), comparing with
    /// what it got (its group may come from a setgid directory): owner and group first (which
    /// clears set-id bits), then the mode. A group or owner the process may not give is left
    /// as created; ``unkeepable(_:probeDirectory:)`` has refused replaced files of that kind
    /// before the commit, so only new files in a directory of a foreign group get Hearth's group.
    package static func apply(_ target: Target, to fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        let uid = target.uid.flatMap { $0 == st.st_uid ? nil : $0 }
        let gid = target.gid.flatMap { $0 == st.st_gid ? nil : $0 }
        if uid != nil || gid != nil {
            _ = fchown(fd, uid ?? UInt32.max, gid ?? UInt32.max)
        }
        if uid != nil || gid != nil || UInt32(st.st_mode) & 0o7777 != target.mode {
            _ = fchmod(fd, mode_t(target.mode))
        }
    }

    /// Creates `path` and its missing parents (`mkdir -p`): each new directory gets `dirMode`,
    /// its parent's group (and owner, as root), and the setgid bit of a setgid parent.
    /// With `root`, only directories below it are made (see `FileIO.makeDirectories`).
    package func makeDirectories(_ path: String, within root: String? = nil) throws(FileIO.Failure) {
        if let st = try FileIO.statPath(path) {
            if st.isDirectory { return }
            throw FileIO.Failure(path: path, operation: "mkdir (a file is in the way)", errno: EEXIST)
        }
        if path == root { throw FileIO.missingDataDirectory(path) }
        let parent = FileIO.directoryName(path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent, within: root) }
        if mkdir(path, mode_t(dirMode)) != 0 {
            if errno == EEXIST { return }
            throw FileIO.Failure(path: path, operation: "mkdir", errno: errno)
        }
        var p = stat()
        guard stat(parent, &p) == 0 else { return }
        let uid = Self.process.canChangeOwner && p.st_uid != Self.process.euid ? p.st_uid : UInt32.max
        let gid = p.st_gid
        if uid != UInt32.max || gid != Self.process.egid {
            _ = chown(path, uid, gid)
        }
        let setgid = UInt32(p.st_mode) & UInt32(S_ISGID)
        _ = chmod(path, mode_t(dirMode | setgid))
    }

    /// The documents among `paths` (absolute) whose owner or group this process cannot give
    /// to a rewritten file: owned by another user, or by a group it is not in, while it may
    /// not change owners; or by one of its other groups when `fchown` is refused (a unit's
    /// system call filter without `@chown`: probed with a scratch file in `probeDirectory`).
    /// Empty when running as root.
    package static func unkeepable(_ paths: [String], probeDirectory: String) -> [Unkeepable] {
        guard !process.canChangeOwner else { return [] }
        var out: [Unkeepable] = []
        var groupWorks: [UInt32: Bool] = [:]
        for path in paths {
            var st = stat()
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            var keepable = st.st_uid == process.euid && process.groups.contains(st.st_gid)
            if keepable, st.st_gid != process.egid {
                let works = groupWorks[st.st_gid] ?? canGiveGroup(st.st_gid, probeDirectory: probeDirectory)
                groupWorks[st.st_gid] = works
                keepable = works
            }
            if !keepable { out.append(Unkeepable(path: path, uid: st.st_uid, gid: st.st_gid)) }
        }
        return out
    }

    /// Whether `fchown` to `gid` (one of this process's groups) works here. A directory where
    /// no scratch file can be made answers yes: the commit would fail on it anyway.
    static func canGiveGroup(_ gid: UInt32, probeDirectory: String) -> Bool {
        let path = probeDirectory + "/.ownership-probe-\(getpid())"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return true }
        defer {
            close(fd)
            unlink(path)
        }
        return fchown(fd, UInt32.max, gid) == 0
    }

    /// A document Hearth could not rewrite keeping its owner and group.
    package struct Unkeepable: Sendable, Equatable, CustomStringConvertible {
        package var path: String
        package var uid: UInt32
        package var gid: UInt32

        /// `owner:group (uid 65534, gid 65534)`.
        package var owner: String {
            "\(ProcessIdentity.userName(uid) ?? String(uid)):\(ProcessIdentity.groupName(gid) ?? String(gid)) (uid \(uid), gid \(gid))"
        }

        package var description: String { "\(path) is owned by \(owner)" }
    }

    /// Who this process is, read once.
    package static let process = ProcessIdentity.current()
}
