#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import HearthKit
import HearthStore

/// The data directory's ``RejectMemo`` (docs/storage/reject-memos.md): the fingerprints (inode,
/// size, `ctime`) of the files a job's scan of a collection turned down, in
/// `.hearth/memos/<job>/<collection>/<name>.memo`.
///
/// A file is skipped only when a `fstatat` finds exactly a remembered fingerprint: any write
/// to it (in place or by rename), `chmod` or `touch` moves its `ctime` or gives a new inode, and
/// it is read again. A file is remembered only when its `ctime` is older than the scan by
/// ``settleNanoseconds``, so a change made after the scan's `fstat` but in the same clock tick
/// cannot keep the fingerprint the scan saw. The memo also names the collection directory's
/// device and inode: a memo from another copy of the data is not used.
///
/// File format (little-endian): `HEARTHM1`, directory device, directory inode, count, checksum
/// of the records, then `count` records of inode, `ctime` and size (8 bytes each), sorted. The
/// records are searched where they were read, and written a piece at a time: a million
/// remembered files cost 24 MB once, not once per copy.
package struct DirectoryRejectMemo: RejectMemo {
    static let magic = Array("HEARTHM1".utf8)
    static let headerSize = 40
    static let recordSize = 24
    /// Records per piece of the file, as written and as checksummed (1 MiB or less).
    static let recordsPerPiece = (1 << 20) / recordSize
    /// Two seconds: far more than any file system's timestamp granularity (ext4's is one
    /// kernel tick, 1–10 ms).
    package static let settleNanoseconds: Int64 = 2_000_000_000

    let data: DataDirectory
    let collection: String
    /// The memo's file.
    package let file: String
    /// The collection directory as the scan starts; nil when it does not exist.
    let directory: FileIO.Stat?
    /// The memo file as read (records from ``headerSize``), or empty when there was no usable memo.
    let bytes: [UInt8]
    /// How many files the last scan remembered.
    package let count: Int
    /// Files whose `ctime` is at or after this are not remembered.
    let rememberBefore: Int64

    /// `now`: the wall clock in nanoseconds since 1970 (the clock `ctime` is set from).
    package init(data: DataDirectory, job: String, collection: String, name: String, now: Int64) {
        self.data = data
        self.collection = collection
        file = data.stateDirectory + "/memos/" + job + "/" + collection + "/" + name + ".memo"
        directory = (try? FileIO.statPath(data.collectionDirectory(collection))) ?? nil
        rememberBefore = now - Self.settleNanoseconds
        if let directory, let read = try? FileIO.readFile(file, limit: 1 << 30)?.bytes, let n = Self.validCount(read, directory: directory) {
            (bytes, count) = (read, n)
        } else {
            (bytes, count) = ([], 0)
        }
    }

    /// The wall clock now, in nanoseconds since 1970.
    package static func wallClockNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    package func read(_ paths: ArraySlice<DocumentPath>) -> [MemoRead] {
        guard !paths.isEmpty else { return [] }
        guard let fd = FileIO.openDirectory(data.collectionDirectory(collection)) else {
            return paths.map { .read(data.read($0), nil) }
        }
        let buffer = DataDirectory.takeReadBuffer()
        defer {
            DataDirectory.returnReadBuffer(buffer)
            close(fd)
        }
        var out: [MemoRead] = []
        out.reserveCapacity(paths.count)
        for path in paths {
            assert(path.collection == collection, "a memo reads only its own collection")
            let name = path.id + ".json"
            // A file the memo cannot hold is not stat'ed first: a first scan costs no more than before.
            if count > 0, let st = FileIO.statAt(in: fd, name), st.isRegular {
                let fingerprint = Self.fingerprint(st)
                if contains(fingerprint) {
                    out.append(.unchanged(fingerprint))
                    continue
                }
            }
            if let (n, st) = FileIO.readWholeAndStat(in: fd, name, into: buffer), st.isRegular,
                let document = DataDirectory.document(path, parsing: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            {
                out.append(.read(.document(document), remember(st)))
                continue
            }
            // Larger than the buffer, not a regular file, invalid: read with its stat, as
            // `read(_:)` reads a file that is not a symbolic link (remembered only when it is a
            // document). Missing, a symbolic link, an error: `read(_:)` itself says what it is.
            if let (bytes, st, tooLarge) = try? FileIO.readFile(in: fd, name, path: data.filePath(path), limit: StoredDocument.maxSize) {
                let read = DataDirectory.document(path, bytes: bytes, stat: st, tooLarge: tooLarge)
                if case .document = read { out.append(.read(read, remember(st))) } else { out.append(.read(read, nil)) }
                continue
            }
            out.append(.read(data.read(path), nil))
        }
        return out
    }

    package func save(_ rejected: consuming [FileFingerprint]) {
        guard let directory else { return }
        var records = rejected
        records.sort()
        // A file listed under two names (hard links) is one record.
        var kept = 0
        for i in records.indices where kept == 0 || records[kept - 1] != records[i] {
            records[kept] = records[i]
            kept += 1
        }
        records.removeLast(records.count - kept)
        let dir = FileIO.directoryName(file)
        do {
            // 0640 files and 0750 directories, like Hearth's other state under `.hearth/`
            // (docs/data-directory.md), with the owner and group of the directory above: a memo
            // written by root for a data directory the daemon's user owns must stay writable by
            // that user, or its scans would silently read everything from then on. Not fsynced:
            // a memo lost in a crash costs one full scan, and a stale one is still true of every
            // file it names.
            let state = FileOwnership(fileMode: 0o640, dirMode: 0o750)
            try state.makeDirectories(dir, within: data.root)
            try FileIO.writeAtomically(file, sync: false, ownership: state.newFileTarget(inDirectory: dir)) { fd, path throws(FileIO.Failure) in
                // The header's checksum is filled in once every piece is written and summed.
                var header = Self.magic
                for word in [directory.device, directory.inode, UInt64(records.count), 0] { Self.append(word, to: &header) }
                try FileIO.writeAll(fd, header, path: path)
                var piece: [UInt8] = []
                var sum: UInt64 = 0
                for start in stride(from: 0, to: records.count, by: Self.recordsPerPiece) {
                    piece.removeAll(keepingCapacity: true)
                    Self.encode(records[start..<min(records.count, start + Self.recordsPerPiece)], into: &piece)
                    sum = Self.fold(sum, DocumentVersion.hash(piece))
                    try FileIO.writeAll(fd, piece, path: path)
                }
                var word = sum.littleEndian
                guard pwrite(fd, &word, 8, 32) == 8 else { throw FileIO.Failure(path: path, operation: "write", errno: errno) }
            }
        } catch {
            // Best effort (see RejectMemo.save).
        }
    }

    static func fingerprint(_ st: FileIO.Stat) -> FileFingerprint {
        FileFingerprint(inode: st.inode, size: Int64(st.size), changeTimeNanoseconds: st.changeTimeNanoseconds)
    }

    func remember(_ st: FileIO.Stat) -> FileFingerprint? {
        st.isRegular && st.changeTimeNanoseconds < rememberBefore ? Self.fingerprint(st) : nil
    }

    /// Whether the sorted records hold `f`: a binary search in the bytes as read.
    func contains(_ f: FileFingerprint) -> Bool {
        bytes.withUnsafeBytes { raw in
            func record(_ i: Int) -> FileFingerprint { Self.record(raw, Self.headerSize + i * Self.recordSize) }
            var low = 0
            var high = count
            while low < high {
                let mid = (low + high) / 2
                if record(mid) < f { low = mid + 1 } else { high = mid }
            }
            return low < count && record(low) == f
        }
    }

    static func word(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    static func record(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> FileFingerprint {
        FileFingerprint(inode: word(raw, offset), size: Int64(bitPattern: word(raw, offset + 16)), changeTimeNanoseconds: Int64(bitPattern: word(raw, offset + 8)))
    }

    /// Records in the file's order of fields (inode, `ctime`, size: the sort order).
    static func encode(_ records: ArraySlice<FileFingerprint>, into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + records.count * recordSize)
        for r in records {
            append(r.inode, to: &bytes)
            append(UInt64(bitPattern: r.changeTimeNanoseconds), to: &bytes)
            append(UInt64(bitPattern: r.size), to: &bytes)
        }
    }

    /// The records' checksum: each piece's ``DocumentVersion/hash(_:)-(UnsafeRawBufferPointer)``, folded.
    static func fold(_ sum: UInt64, _ piece: UInt64) -> UInt64 { (sum ^ piece) &* 0x9E37_79B9_7F4A_7C15 }

    /// The number of records of a memo file; nil when it is not one, is damaged or belongs to
    /// another directory than `directory`.
    static func validCount(_ bytes: [UInt8], directory: FileIO.Stat) -> Int? {
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == magic else { return nil }
        return bytes.withUnsafeBytes { raw -> Int? in
            let count = word(raw, 24)
            guard word(raw, 8) == directory.device, word(raw, 16) == directory.inode,
                count <= UInt64((bytes.count - headerSize) / recordSize), headerSize + Int(count) * recordSize == bytes.count
            else { return nil }
            var sum: UInt64 = 0
            for start in stride(from: headerSize, to: bytes.count, by: recordsPerPiece * recordSize) {
                sum = fold(sum, DocumentVersion.hash(UnsafeRawBufferPointer(rebasing: raw[start..<min(bytes.count, start + recordsPerPiece * recordSize)])))
            }
            return sum == word(raw, 32) ? Int(count) : nil
        }
    }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
