#if canImport(Glibc)
import Glibc
import HearthKit
import HearthStore

/// The watches of a data directory's change feed and what its inotify events mean
/// (docs/triggers.md#the-change-feed--data-directory): which folders are watched, which events
/// are writes of which documents, by whom, and when writes may have been missed.
///
/// Every top-level collection asked for is in one of three states: watched (its folder and,
/// recursively, the folders of its documents' subcollections), waiting (no folder yet, or it
/// went: the data root's watch tells when it appears), or refused (a symbolic link, which
/// Hearth never follows; waiting for a real folder). Used by one thread at a time: the caller
/// of ``DirectoryChangeFeed/start(data:collections:)`` sets it up, then only the feed's
/// thread.
struct DirectoryWatcher {
    /// One watched folder.
    struct Watch {
        /// From the data root: `users`, `users/u1`, `users/u1/badges`.
        var relative: String
        /// The top-level collection it belongs to (`users`).
        var collection: String
        /// Whether documents live here (a collection's folder, an odd number of components)
        /// rather than a document's folder of subcollections (`users/u1`).
        var holdsDocuments: Bool
    }

    /// Events of one read turned into what the feed delivers: first what was lost, then the
    /// batches, each once per (collection, writer, chain), in the order they first appeared.
    struct Output {
        var lost: [(collections: Set<String>, reason: String)] = []
        var batches: [ChangeBatch] = []
        private var batchIndex: [BatchKey: Int] = [:]
        private var seen: [Int: Set<DocumentPath>] = [:]

        private struct BatchKey: Hashable {
            var collection: String
            var writer: String?
            var chain: Int
        }

        mutating func lose(_ collections: Set<String>, _ reason: String) {
            guard !collections.isEmpty else { return }
            if let i = lost.firstIndex(where: { $0.reason == reason }) {
                lost[i].collections.formUnion(collections)
            } else {
                lost.append((collections, reason))
            }
        }

        mutating func written(_ path: DocumentPath, by mark: WriterMark?) {
            let key = BatchKey(collection: path.components[0], writer: mark?.job, chain: mark?.chain ?? 0)
            let i: Int
            if let existing = batchIndex[key] {
                i = existing
            } else {
                i = batches.count
                batches.append(ChangeBatch(collection: key.collection, paths: [], writer: key.writer, chain: key.chain))
                batchIndex[key] = i
            }
            if seen[i, default: []].insert(path).inserted { batches[i].paths!.append(path) }
        }

        var events: [ChangeFeedEvent] {
            lost.map { .lost(collections: $0.collections, reason: $0.reason) } + batches.map { .changed($0) }
        }
    }

    static let folderMask: Inotify.Mask = [
        .closeWrite, .movedTo, .movedFrom, .delete, .create, .deleteSelf, .moveSelf, .onlyDirectory, .dontFollow, .excludeUnlinked,
    ]
    static let rootMask: Inotify.Mask = [.create, .movedTo, .deleteSelf, .moveSelf, .onlyDirectory, .dontFollow]

    let inotify: Inotify
    let data: DataDirectory
    let requested: Set<String>
    private(set) var watches: [Int32: Watch] = [:]
    private var byPath: [String: Int32] = [:]
    private var rootWatch: Int32?
    /// The requested collections whose folder is watched now.
    private(set) var watched: Set<String> = []

    init(inotify: Inotify, data: DataDirectory, collections: Set<String>) {
        self.inotify = inotify
        self.data = data
        self.requested = collections
    }

    /// Watches the data root and every requested collection that has a folder. Writes made
    /// before are not reported (the daemon's first runs read everything); refused folders are.
    mutating func setUp() throws(Inotify.Failure) -> Output {
        var out = Output()
        guard !requested.isEmpty else { return out }
        rootWatch = try inotify.addWatch(data.root, Self.rootMask).get()
        for c in requested.sorted() { attach(c, announce: false, into: &out) }
        return out
    }

    /// What a read's events mean; watches added and removed as folders come and go.
    mutating func handle(_ events: [Inotify.Event]) -> Output {
        var out = Output()
        for e in events { handle(e, into: &out) }
        for (collections, _) in out.lost { for c in collections.sorted() { data.fieldIndexes.lost(c) } }
        for b in out.batches {
            let ids = (b.paths ?? []).filter { $0.components.count == 2 }.map(\.id)
            if !ids.isEmpty { data.fieldIndexes.written(b.collection, ids: ids) }
        }
        return out
    }

    /// Every watch removed (the feed stops).
    mutating func tearDown() {
        for c in watched.sorted() { data.fieldIndexes.watching(c, false) }
        watched = []
        watches = [:]
        byPath = [:]
        rootWatch = nil
    }

    private mutating func handle(_ e: Inotify.Event, into out: inout Output) {
        if e.mask.contains(.queueOverflow) {
            resynchronize()
            out.lose(requested, "inotify queue overflowed")
            return
        }
        if e.watch == rootWatch {
            if !e.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .ignored, .unmount]) {
                if let root = rootWatch { inotify.removeWatch(root) }
                rootWatch = nil
                for c in watched.sorted() { detach(c) }
                out.lose(requested, "the data directory \(data.root) was moved or deleted; nothing in it is watched until the daemon restarts")
            } else if requested.contains(e.name), !e.mask.isDisjoint(with: [.create, .movedTo]) {
                attach(e.name, announce: true, into: &out)
            }
            return
        }
        guard let w = watches[e.watch] else { return }   // a watch already removed
        if e.mask.contains(.ignored) || e.mask.contains(.deleteSelf) || e.mask.contains(.moveSelf) {
            let wasTop = w.relative == w.collection && byPath[w.relative] == e.watch
            removeTree(w.relative)
            if wasTop {
                detach(w.collection)
                if e.mask.contains(.moveSelf) { out.lose([w.collection], "\(w.collection)/ was moved away") }
            }
            return
        }
        guard !e.name.hasPrefix("."), !e.name.isEmpty else { return }
        let relative = w.relative + "/" + e.name
        if e.mask.contains(.isDirectory) {
            guard DocumentPath.isValid(name: e.name) else { return }
            if !e.mask.isDisjoint(with: [.create, .movedTo]) {
                addTree(relative, collection: w.collection, holdsDocuments: !w.holdsDocuments, report: &out)
            } else if e.mask.contains(.movedFrom) {
                removeTree(relative)
                out.lose([w.collection], "\(relative)/ was moved away")
            } else if e.mask.contains(.delete) {
                removeTree(relative)
            }
            return
        }
        guard w.holdsDocuments, e.name.hasSuffix(".json") else { return }
        let id = String(e.name.dropLast(5))
        guard DocumentPath.isValid(name: id) else { return }
        let path = DocumentPath(unchecked: w.relative.split(separator: "/").map(String.init) + [id])
        if !e.mask.isDisjoint(with: [.closeWrite, .movedTo]) {
            let file = data.root + "/" + relative
            guard let st = (try? FileIO.lstatPath(file)) ?? nil else {
                out.written(path, by: nil)   // gone already; its deletion follows
                return
            }
            if st.isSymlink { return }   // never followed
            let mark = st.isRegular ? WriterMark.read(path: file, relativePath: relative, stat: st) : nil
            // A close after the write of a file whose mark still holds is a commit's temp file
            // closed late, already reported at its rename: a process spawned meanwhile held a
            // copy of its descriptor until its `exec` closed it (docs/triggers.md#own-commits-the-writer-mark).
            if mark != nil, !e.mask.contains(.movedTo) { return }
            out.written(path, by: mark)
        } else if !e.mask.isDisjoint(with: [.delete, .movedFrom]) {
            out.written(path, by: nil)
        }
    }

    /// Starts watching collection `c`'s folder, if it is one (not a symbolic link); with
    /// `announce`, a folder newly watched is reported lost (documents may have landed before
    /// the watch).
    private mutating func attach(_ c: String, announce: Bool, into out: inout Output) {
        let folder = data.root + "/" + c
        guard let st = (try? FileIO.lstatPath(folder)) ?? nil else { return }   // waiting
        if st.isSymlink {
            out.lose([c], "\(c)/ is a symbolic link; Hearth never follows it, so writes there start no run (make it a real folder)")
            return
        }
        guard st.isDirectory else { return }
        let before = byPath[c]
        var ignored = Output()
        guard let wd = addTree(c, collection: c, holdsDocuments: true, report: &ignored) else { return }
        if wd != before {
            watched.insert(c)
            data.fieldIndexes.watching(c, true)
            if announce { out.lose([c], "\(c)/ was created; documents written before it was watched are read by the next run") }
        }
    }

    /// A requested collection's folder went: waiting for it again.
    private mutating func detach(_ c: String) {
        guard watched.remove(c) != nil else { return }
        data.fieldIndexes.watching(c, false)
    }

    /// Watches the folder `relative` and the folders below it; the documents found in them
    /// are reported written (a folder moved in, or made before its watch: their files may have
    /// come before the watch). Returns its watch, nil when it cannot be watched (gone, a
    /// symbolic link, or the watch limit: then reported lost).
    @discardableResult
    private mutating func addTree(_ relative: String, collection: String, holdsDocuments: Bool, report out: inout Output) -> Int32? {
        let folder = data.root + "/" + relative
        let wd: Int32
        switch inotify.addWatch(folder, Self.folderMask) {
        case .success(let w): wd = w
        case .failure(let f):
            if f.errno == ENOSPC {
                out.lose([collection], "\(relative)/ is not watched: the inotify watch limit is reached (raise /proc/sys/fs/inotify/max_user_watches)")
            }
            return nil
        }
        if let old = byPath[relative], old != wd {
            removeTree(relative)
        }
        watches[wd] = Watch(relative: relative, collection: collection, holdsDocuments: holdsDocuments)
        byPath[relative] = wd
        let base = relative.split(separator: "/").map(String.init)
        for entry in Self.entries(of: folder) where !entry.name.hasPrefix(".") {
            if entry.isDirectory {
                guard DocumentPath.isValid(name: entry.name) else { continue }
                addTree(relative + "/" + entry.name, collection: collection, holdsDocuments: !holdsDocuments, report: &out)
            } else if holdsDocuments, entry.name.hasSuffix(".json") {
                let id = String(entry.name.dropLast(5))
                guard DocumentPath.isValid(name: id) else { continue }
                let file = folder + "/" + entry.name
                guard let st = (try? FileIO.lstatPath(file)) ?? nil, !st.isSymlink else { continue }
                let mark = st.isRegular ? WriterMark.read(path: file, relativePath: relative + "/" + entry.name, stat: st) : nil
                out.written(DocumentPath(unchecked: base + [id]), by: mark)
            }
        }
        return wd
    }

    /// Stops watching `relative` and every folder below it.
    private mutating func removeTree(_ relative: String) {
        let prefix = relative + "/"
        for (path, wd) in byPath where path == relative || path.hasPrefix(prefix) {
            inotify.removeWatch(wd)
            watches[wd] = nil
            byPath[path] = nil
        }
    }

    /// After an overflow: every watch made again from the folders as they are now.
    private mutating func resynchronize() {
        for wd in watches.keys { inotify.removeWatch(wd) }
        if let root = rootWatch { inotify.removeWatch(root) }
        let was = watched
        watches = [:]
        byPath = [:]
        watched = []
        rootWatch = nil
        var ignored = Output()
        if case .success(let root) = inotify.addWatch(data.root, Self.rootMask) { rootWatch = root }
        for c in requested.sorted() { attach(c, announce: false, into: &ignored) }
        for c in was.subtracting(watched).sorted() { data.fieldIndexes.watching(c, false) }
    }

    /// A folder's entries, with whether each is a directory (a real one: `d_type`, or `lstat`
    /// where the file system does not say), without an `lstat` per document.
    static func entries(of folder: String) -> [(name: String, isDirectory: Bool)] {
        guard let d = opendir(folder) else { return [] }
        defer { closedir(d) }
        var result: [(String, Bool)] = []
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type)!
        while let e = readdir(d) {
            let raw = UnsafeRawPointer(e)
            let name = String(cString: raw.advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            let type = raw.load(fromByteOffset: typeOffset, as: UInt8.self)
            let isDirectory: Bool
            if type == UInt8(DT_UNKNOWN) {
                isDirectory = ((try? FileIO.lstatPath(folder + "/" + name)) ?? nil)?.isDirectory == true
            } else {
                isDirectory = type == UInt8(DT_DIR)
            }
            result.append((name, isDirectory))
        }
        return result
    }
}
#endif
