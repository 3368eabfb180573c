import Foundation
import Synchronization

extension JobContext {
    /// Every valid document of `collection`, in id order. Invalid ones are reported per the
    /// policy (skipped with a warning, or the run fails).
    public func documents(in collection: String) async throws -> [Document] {
        try await decode(collection) { $0 }
    }

    /// Reads `collection` and turns each valid document into a `T` (nil: not wanted). A
    /// ``FieldError`` thrown by `transform` makes that document invalid input.
    ///
    /// Files are read, parsed and transformed on all cores in chunks; only the `T`s are
    /// kept, so a job that needs four fields of a million transactions never holds a million
    /// parsed documents. Results are in id order. The work runs through ``BlockingIO``, off
    /// Swift's cooperative pool.
    public func decode<T: Sendable>(_ collection: String, _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?) async throws -> [T] {
        try Task.checkCancellation()
        let store = self.store
        let count: Int
        var outcomes: [DecodeChunk<T>]
        (count, outcomes) = try await BlockingIO.run { () throws(any Error) in
            if let streamed = try Self.decodeStream(collection, store: store, transform) { return streamed }
            let ids = try store.documentIDs(in: collection)
            let outcomes = Self.decodeChunks(count: ids.count, store: store, transform) { range in
                ArraySlice(DocumentPath.paths(in: collection, ids: ids[range]))
            }
            return (ids.count, outcomes)
        }
        try Task.checkCancellation()
        let result = try values(of: &outcomes)
        countRead(count)
        return result
    }

    /// Like ``decode(_:_:)``, for a transform that turns documents down (nil) for what they
    /// hold alone — not for the time, the parameters or other documents (see ``RejectMemo``).
    /// The documents it turned down on an earlier scan with the same `memo` name, and whose
    /// files have not changed since, are not read again (docs/storage/reject-memos.md). A real
    /// run saves what this scan turned down; a dry run only uses the memo. On a store without
    /// memos every document is read. Only the documents read count as read.
    ///
    /// Renaming `memo` (`"pending-gifts-v2"`) forgets what was remembered: do it when the
    /// transform's rule changes.
    ///
    /// With a `filter`, the transform only sees the documents that meet it, and a store that can
    /// search (PostgreSQL, which keeps no memo) reads only those
    /// (docs/storage/reject-memos.md#filters): state there what the transform keeps.
    public func decode<T: Sendable>(
        _ collection: String, memo name: String, filter: ScanFilter? = nil,
        _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?
    ) async throws -> [T] {
        let transform = filter.map { Self.only($0, transform) } ?? transform
        if let filter, let found = try await search(collection, filter, transform) { return found }
        guard let memo = store.rejectMemo(job: jobName, collection: collection, name: name) else {
            return try await decode(collection, transform)
        }
        try Task.checkCancellation()
        let store = self.store
        let save = !isDryRun
        var outcomes = try await BlockingIO.run { () throws(StoreError) -> [DecodeChunk<T>] in
            let ids = try store.documentIDs(in: collection)
            var chunks = concurrentChunks(count: ids.count) { range -> [DecodeChunk<T>] in
                var out = DecodeChunk<T>()
                for read in memo.read(ArraySlice(DocumentPath.paths(in: collection, ids: ids[range]))) {
                    switch read {
                    case .unchanged(let fingerprint): out.rejected.append(fingerprint)
                    case .read(let read, let fingerprint): out.take(read, fingerprint: fingerprint, transform)
                    }
                }
                return [out]
            }
            // Moved out chunk by chunk, so the fingerprints are in memory once.
            var rejected: [FileFingerprint] = []
            rejected.reserveCapacity(chunks.reduce(0) { $0 + $1.rejected.count })
            for i in chunks.indices {
                rejected += chunks[i].rejected
                chunks[i].rejected = []
            }
            if save { memo.save(rejected) }
            return chunks
        }
        try Task.checkCancellation()
        let read = outcomes.reduce(0) { $0 + $1.read }
        let result = try values(of: &outcomes)
        countRead(read)
        return result
    }

    /// The documents of `collection` that meet `filter`, each turned into a `T` (nil: not
    /// wanted), in id order: for a few documents of a large collection picked by a field (the
    /// messages of the conversations a triggered run touches: `.oneOf(field: "conversationId",
    /// values: …)`). A store that can search reads only those documents, and the ones that are
    /// not JSON objects (reported as invalid, as a full read reports them): PostgreSQL through
    /// its indexes, a watched data directory through its field index
    /// (docs/storage/field-indexes.md). Otherwise the whole collection is read and the transform
    /// sees only the documents that meet `filter`, so the result is the same on every store. A
    /// `.oneOf` with no values meets no document: nothing is read. Only the documents read
    /// count as read.
    public func decode<T: Sendable>(
        _ collection: String, filter: ScanFilter, _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?
    ) async throws -> [T] {
        if filter.conditions.contains(where: { if case .oneOf(_, let values) = $0 { values.isEmpty } else { false } }) { return [] }
        let transform = Self.only(filter, transform)
        if let found = try await search(collection, filter, transform) { return found }
        return try await decode(collection, transform)
    }

    /// `transform`, for the documents that meet `filter`; nil for the others.
    private static func only<T>(
        _ filter: ScanFilter, _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?
    ) -> @Sendable (Document) throws(FieldError) -> T? {
        { d throws(FieldError) -> T? in filter.matches(d) ? try transform(d) : nil }
    }

    /// The documents of `collection` that meet `filter`, as the store searches them, each chunk
    /// it hands over transformed on all cores; nil when the store cannot search.
    private func search<T: Sendable>(
        _ collection: String, _ filter: ScanFilter, _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?
    ) async throws -> [T]? {
        try Task.checkCancellation()
        let store = self.store
        let found = try await BlockingIO.run { () throws(any Error) -> (read: Int, outcomes: [DecodeChunk<T>])? in
            var outcomes: [DecodeChunk<T>] = []
            let read = try store.search(collection, matching: filter) { reads in
                outcomes += concurrentChunks(count: reads.count, chunkSize: 256) { range -> [DecodeChunk<T>] in
                    var out = DecodeChunk<T>()
                    for i in range { out.take(reads[i], fingerprint: nil, transform) }
                    return [out]
                }
            }
            return read.map { ($0, outcomes) }
        }
        guard let found else { return nil }
        try Task.checkCancellation()
        var outcomes = found.outcomes
        let result = try values(of: &outcomes)
        countRead(found.read)
        return result
    }

    /// Like ``decode(_:_:)``, but hands the results to `body` one chunk of `chunkSize`
    /// documents at a time, in id order, so the collection is never in memory whole (a
    /// command job streams its reads this way). `body` runs on a ``BlockingIO`` thread.
    public func decode<T: Sendable>(
        _ collection: String, chunkSize: Int, _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?,
        into body: @escaping @Sendable ([T]) throws -> Void
    ) async throws {
        try Task.checkCancellation()
        let store = self.store
        let count = try await BlockingIO.run { () throws(any Error) -> Int in
            let ids = try store.documentIDs(in: collection)
            for start in stride(from: 0, to: ids.count, by: max(1, chunkSize)) {
                let paths = DocumentPath.paths(in: collection, ids: ids[start..<min(ids.count, start + chunkSize)])
                var chunk = Self.decodeChunks(count: paths.count, store: store, transform) { paths[$0] }
                try body(try self.values(of: &chunk))
            }
            return ids.count
        }
        countRead(count)
    }

    /// The values among `outcomes`; the invalid documents reported per the policy. Each
    /// chunk is freed once copied, so the values are in memory once, not twice.
    private func values<T>(of outcomes: inout [DecodeChunk<T>]) throws -> [T] {
        var result: [T] = []
        result.reserveCapacity(outcomes.reduce(0) { $0 + $1.values.count })
        for i in outcomes.indices {
            for (p, issue) in outcomes[i].invalid { try reportInvalid(p, issue) }
            result.append(contentsOf: outcomes[i].values)
            outcomes[i].values = []
        }
        return result
    }

    /// Reads the documents at `paths` (missing ones are left out) and turns each valid one into
    /// a `T`, as ``decode(_:_:)`` does for a whole collection: on all cores, off the cooperative
    /// pool, invalid ones reported per the policy. For jobs that need a few documents of a large
    /// collection (the users a handful of gifts involve), not all of it. Results in `paths` order.
    public func decode<T: Sendable>(_ paths: [DocumentPath], _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?) async throws -> [T] {
        try Task.checkCancellation()
        let store = self.store
        var outcomes = await BlockingIO.run { Self.decodeChunks(count: paths.count, store: store, transform) { paths[$0] } }
        try Task.checkCancellation()
        let found = outcomes.reduce(0) { $0 + $1.values.count + $1.invalid.count }
        let result = try values(of: &outcomes)
        countRead(found)   // values and invalid documents, as before: an absent path is no document read
        return result
    }

    /// Reads `kept` again — documents a job kept only the path and version of, to hold less
    /// than every document it read whole — and hands each to `body` with its index in `kept`, in
    /// order, with the version of its first read: if another writer changed one in between,
    /// the commit's version check sees it and the run starts again, as when the document had
    /// been kept. Nil for a document that is no longer a readable JSON object (a job does not
    /// write it; the next run reports it). Reads run on all cores, off the cooperative pool,
    /// `chunkSize` at a time; only one chunk of documents is in memory at a time.
    public func reread(_ kept: [Document], chunkSize: Int = 4096, _ body: (_ index: Int, _ document: Document?) throws -> Void) async throws {
        let store = self.store
        try await forEachChunk(of: kept, chunkSize) { part in
            let paths = part.map(\.path)
            let reads = await BlockingIO.run { concurrentChunks(count: paths.count, chunkSize: 256) { range in store.read(paths[range]) } }
            for (index, read) in zip(part.indices, reads) { try body(index, Self.readAgain(read, kept[index])) }
        }
    }

    /// Like ``reread(_:chunkSize:_:)``, with `body` run on every core at once, where each
    /// document is read: for a job whose body only writes the document it is handed (each one
    /// once), so that encoding the new documents is spread over the cores like reading them.
    /// The documents reach `body` in no particular order; the changeset (and so the plan and
    /// the commit) is the same as with ``reread(_:chunkSize:_:)``, since the plan orders its
    /// entries by path. The first error `body` throws, by index, is rethrown once the chunk is done.
    public func rereadConcurrently(
        _ kept: [Document], chunkSize: Int = 4096, _ body: @escaping @Sendable (_ index: Int, _ document: Document?) throws -> Void
    ) async throws {
        let store = self.store
        try await forEachChunk(of: kept, chunkSize) { part in
            let failures = await BlockingIO.run {
                concurrentChunks(count: part.count, chunkSize: 256) { range -> [(index: Int, error: any Error)] in
                    let slice = part[(part.startIndex + range.lowerBound)..<(part.startIndex + range.upperBound)]
                    for (index, read) in zip(slice.indices, store.read(ArraySlice(slice.map(\.path)))) {
                        do { try body(index, Self.readAgain(read, kept[index])) } catch { return [(index, error)] }
                    }
                    return []
                }
            }
            if let first = failures.min(by: { $0.index < $1.index }) { throw first.error }
        }
    }

    /// `kept` split into chunks of `chunkSize`, each handed to `body` in turn (cancellation
    /// checked before each): the loop of both rereads.
    private func forEachChunk(of kept: [Document], _ chunkSize: Int, _ body: (ArraySlice<Document>) async throws -> Void) async throws {
        for start in stride(from: 0, to: kept.count, by: max(1, chunkSize)) {
            try Task.checkCancellation()
            try await body(kept[start..<min(kept.count, start + chunkSize)])
        }
    }

    /// A kept document as read again: the content now, with the version of its first read (so
    /// the commit's version check sees a change in between); nil when it is no longer a readable
    /// JSON object.
    private static func readAgain(_ read: DocumentRead, _ kept: Document) -> Document? {
        guard case .document(let d) = read else { return nil }
        return Document(path: kept.path, object: d.object, version: kept.version)
    }

    /// Reads and transforms `count` documents on all cores, in chunks, keeping only the
    /// outcomes; `paths` gives the paths of a chunk's range, so that a collection's are made a
    /// chunk at a time (``DocumentPath/paths(in:ids:)``).
    private static func decodeChunks<T: Sendable>(
        count: Int, store: any DocumentStore, _ transform: @Sendable (Document) throws(FieldError) -> T?,
        paths: @Sendable (Range<Int>) -> ArraySlice<DocumentPath>
    ) -> [DecodeChunk<T>] {
        concurrentChunks(count: count) { range in
            var out = DecodeChunk<T>()
            for read in store.read(paths(range)) { out.take(read, fingerprint: nil, transform) }
            return [out]
        }
    }

    /// Reads `collection` through the store's ``DocumentStore/stream(_:_:)`` and transforms its
    /// chunks on all cores as they arrive, at most two per core waiting or in hand, so the
    /// store's thread reads on while they are decoded. Nil when the store does not stream.
    private static func decodeStream<T: Sendable>(
        _ collection: String, store: any DocumentStore, _ transform: @escaping @Sendable (Document) throws(FieldError) -> T?
    ) throws -> (count: Int, outcomes: [DecodeChunk<T>])? {
        let parts = Mutex<[Int: DecodeChunk<T>]>([:])
        let running = DispatchGroup()
        let slots = DispatchSemaphore(value: 2 * max(1, ProcessInfo.processInfo.activeProcessorCount))
        var handed = 0
        // Whatever the stream does, no chunk outlives this call.
        defer { running.wait() }
        let count = try store.stream(collection) { chunk in
            slots.wait()
            let index = handed
            handed += 1
            DispatchQueue.global().async(group: running) {
                var out = DecodeChunk<T>()
                for read in chunk() { out.take(read, fingerprint: nil, transform) }
                parts.withLock { $0[index] = out }
                slots.signal()
            }
        }
        guard let count else { return nil }
        running.wait()
        return (count, parts.withLock { parts in (0..<handed).map { parts.removeValue(forKey: $0) ?? DecodeChunk() } })
    }

    /// One document; nil when absent or invalid (reported per the policy).
    public func document(_ path: DocumentPath) throws -> Document? {
        try Task.checkCancellation()
        switch store.read(path) {
        case .document(let d):
            state.withLock { $0.documentsRead += 1 }
            return d
        case .invalid(let p, let issue):
            try reportInvalid(p, issue)
            return nil
        case .missing: return nil
        }
    }

    /// Reports a document as invalid input: a warning under `skip`, a failure under `fail`.
    /// The document is never written by this run.
    public func reportInvalid(_ path: DocumentPath, _ issue: DocumentIssue) throws {
        let issues = state.withLock { s -> [DocumentIssue]? in
            if s.invalidPaths.insert(path).inserted { s.issues.append(issue) }
            return policy == .fail ? s.issues : nil
        }
        if let issues { throw InvalidInputError(issues: issues) }
    }

    /// Reports a document whose field `error` names as invalid.
    public func reportInvalid(_ document: Document, _ error: FieldError) throws {
        try reportInvalid(document.path, error.issue(in: document.path))
    }

    public func isInvalid(_ path: DocumentPath) -> Bool {
        state.withLock { $0.invalidPaths.contains(path) }
    }
}
