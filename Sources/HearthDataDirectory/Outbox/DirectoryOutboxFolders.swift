package import Foundation
package import HearthKit
package import HearthStore

/// The outbox on disk, under `.hearth/outbox/`:
///
/// - `pending/<run>.jsonl` (+ `.jsonl.log`): the messages one run queued, written in the run's
///   atomic commit as one batch, with an append-only delivery log (see ``OutboxBatch``);
/// - `pending/<name>.json`: a single message waiting for delivery, with its delivery state (see
///   ``OutboxEnvelope``): `job.failed` events (a failed run commits nothing) and dead letters
///   put back by `hearth outbox retry`;
/// - `dead/<name>.json`: dead letters (attempts or age exhausted, or a permanent failure);
///   `hearth outbox retry ID` moves one back;
/// - `dropped/<name>.json`: messages with nothing to deliver to (no push provider configured, no
///   webhook subscribed to the event, a user without device tokens), kept for inspection with
///   their device tokens redacted; the newest ``OutboxFolder/droppedRetention`` are kept;
/// - `disabled-endpoints.json`: webhook endpoints disabled by a 410 (see `DataDirectory+DisabledEndpoints.swift`).
///
/// `<name>` is ``fileName(_:)`` of the message id. Deliverers claim a pending message with a
/// `flock` on its file (``OutboxClaim``).
package enum DirectoryOutboxFolders {
    package static func relativePath(pending id: String) -> String {
        ".hearth/outbox/pending/\(fileName(id)).json"
    }

    /// Batch `part` (from 1) of the messages run `runID` of `job` queued.
    package static func relativePath(batchOf job: String, runID: String, part: Int) -> String {
        ".hearth/outbox/pending/\(batchPrefix(job: job, runID: runID))\(String(format: "%04d", part))\(OutboxBatch.suffix)"
    }

    /// What the names of a run's batches start with.
    static func batchPrefix(job: String, runID: String) -> String {
        fileName("\(job)-\(runID)") + "-b"
    }

    /// The journal operations writing `messages` as the batches of one run, each batch's bytes
    /// made at once (``batchWrites(_:job:runID:createdAt:)`` makes them when written).
    package static func batchOperations(_ messages: [OutboxMessage], job: String, runID: String, createdAt: Date) -> [Journal.Operation] {
        batchWrites(messages, job: job, runID: runID, createdAt: createdAt).map(\.operation)
    }

    /// The commit's writes of `messages` as the batches of one run. A batch's bytes are made
    /// only when the commit writes its file, and freed once written: the batches of 100,000
    /// pushes are ~60 MB, which a run then never holds at once
    /// (docs/performance.md#peak-memory). Each line is written straight into the
    /// batch's bytes (``writeEnvelopeLine(_:job:runID:createdAt:into:)``).
    package static func batchWrites(_ messages: [OutboxMessage], job: String, runID: String, createdAt: Date) -> [Committer.Write] {
        let created = Timestamp.format(createdAt)
        return stride(from: 0, to: messages.count, by: OutboxBatch.maxMessages).enumerated().map { part, start in
            let range = start..<min(messages.count, start + OutboxBatch.maxMessages)
            return .deferred(relativePath(batchOf: job, runID: runID, part: part + 1)) {
                let chunk = messages[range]
                var out: [UInt8] = []
                out.reserveCapacity(chunk.reduce(0) { $0 + $1.compactPayload.count + $1.id.utf8.count + $1.recipient.utf8.count + $1.title.utf8.count + 256 })
                for m in chunk { writeEnvelopeLine(m, job: job, runID: runID, createdAt: created, into: &out) }
                return out
            }
        }
    }

    /// One batch line: the bytes of `JSONWriter.compact(.object(OutboxEnvelope.queued(m, …)))` and a
    /// newline, with the message's payload copied in as the compact text it is kept as.
    static func writeEnvelopeLine(_ m: OutboxMessage, job: String, runID: String, createdAt: String, into out: inout [UInt8]) {
        func member(_ key: String, _ value: JSONValue?) {
            out.append(0x2C)
            JSONWriter.writeCompact(.string(key), into: &out)
            out.append(0x3A)
            if let value { JSONWriter.writeCompact(value, into: &out) }
        }
        out.append(0x7B)
        JSONWriter.writeCompact(.string("id"), into: &out)
        out.append(0x3A)
        JSONWriter.writeCompact(.string(m.id), into: &out)
        member("kind", .string(m.kind.rawValue))
        member("recipient", .string(m.recipient))
        member("title", .string(m.title))
        member("payload", nil)
        out.append(contentsOf: m.compactPayload)
        member("job", .string(job))
        member("runId", .string(runID))
        member("createdAt", .string(createdAt))
        member("attempts", .int(0))
        member("nextAttemptAt", .string(createdAt))
        member("lastError", .null)
        out.append(0x7D)
        out.append(0x0A)
    }

    /// Message ids become file names; anything outside `[A-Za-z0-9._-]` is percent-encoded.
    package static func fileName(_ id: String) -> String {
        var out = ""
        for b in id.utf8 {
            let c = Character(Unicode.Scalar(b))
            if c.isASCII, c.isLetter || c.isNumber || c == "-" || c == "_" || (c == "." && !out.isEmpty) {
                out.append(c)
            } else {
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    // MARK: Folders

    package static func root(_ data: DataDirectory) -> String { data.stateDirectory + "/outbox" }

    package static func directory(_ folder: OutboxFolder, in data: DataDirectory) -> String {
        root(data) + "/" + folder.rawValue
    }

    /// The file names (`<name>.json`) in a folder, sorted; temporary files are skipped.
    package static func names(in folder: OutboxFolder, data: DataDirectory) throws(FileIO.Failure) -> [String] {
        let names = try FileIO.list(directory(folder, in: data)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }.sorted()
    }

    /// What `pending/` holds, from one directory listing (temporary files skipped), each sorted.
    package struct PendingListing {
        /// Single message files (`<name>.json`).
        package var files: [String] = []
        /// Batches, by name without ``OutboxBatch/suffix``.
        package var batches: [String] = []
        /// Batches that have a delivery log, by the same name.
        package var logs: [String] = []
    }

    package static func pendingListing(_ data: DataDirectory) throws(FileIO.Failure) -> PendingListing {
        var listing = PendingListing()
        for name in try FileIO.list(directory(.pending, in: data)) ?? [] where !name.hasPrefix(".") {
            if name.hasSuffix(OutboxBatch.logSuffix) {
                listing.logs.append(String(name.dropLast(OutboxBatch.logSuffix.count)))
            } else if name.hasSuffix(OutboxBatch.suffix) {
                listing.batches.append(String(name.dropLast(OutboxBatch.suffix.count)))
            } else if name.hasSuffix(".json") {
                listing.files.append(name)
            }
        }
        listing.files.sort()
        listing.batches.sort()
        listing.logs.sort()
        return listing
    }

    /// The batches in `pending/` (their names without ``OutboxBatch/suffix``), sorted.
    package static func batchNames(_ data: DataDirectory) throws(FileIO.Failure) -> [String] {
        try pendingListing(data).batches
    }

    package static func batchPath(_ name: String, data: DataDirectory) -> String {
        directory(.pending, in: data) + "/" + name + OutboxBatch.suffix
    }

    package static func batchLogPath(_ name: String, data: DataDirectory) -> String {
        directory(.pending, in: data) + "/" + name + OutboxBatch.logSuffix
    }

    /// Batch `name` with its delivery log applied; nil when it does not exist.
    package static func batch(_ name: String, data: DataDirectory) throws(FileIO.Failure) -> OutboxBatch? {
        guard let bytes = try FileIO.readSmallFile(batchPath(name, data: data)) else { return nil }
        return OutboxBatch(batch: bytes, log: try FileIO.readSmallFile(batchLogPath(name, data: data)))
    }

    /// Whether any message waits in `pending/`.
    package static func hasPending(_ data: DataDirectory) -> Bool {
        guard let listing = try? pendingListing(data) else { return false }
        return !listing.files.isEmpty || !listing.batches.isEmpty
    }

    /// The messages in a folder: single files in file-name order, then (for `pending/`) the
    /// unfinished messages of each batch. Unreadable files are skipped.
    package static func messages(in folder: OutboxFolder, data: DataDirectory) throws(FileIO.Failure) -> [OutboxEnvelope] {
        let listing = folder == .pending ? try pendingListing(data) : PendingListing(files: try names(in: folder, data: data))
        var out: [OutboxEnvelope] = []
        for name in listing.files {
            guard let bytes = try FileIO.readSmallFile(directory(folder, in: data) + "/" + name),
                let envelope = OutboxEnvelope(bytes: bytes)
            else { continue }
            out.append(envelope)
        }
        for name in listing.batches {
            out += try batch(name, data: data)?.liveMessages ?? []
        }
        return out
    }

    /// The folder holding message `id`, if any.
    package static func locate(id: String, data: DataDirectory) -> OutboxFolder? {
        let name = fileName(id) + ".json"
        if exists(directory(.pending, in: data) + "/" + name) { return .pending }
        for batchName in (try? batchNames(data)) ?? [] where (try? batch(batchName, data: data))??.holds(id) == true {
            return .pending
        }
        return [OutboxFolder.dead, .dropped].first { exists(directory($0, in: data) + "/" + name) }
    }

    static func exists(_ path: String) -> Bool {
        do { return try FileIO.lstatPath(path) != nil } catch { return true }
    }

    /// Writes one message straight into `pending/` (temp file, fsync, rename, directory fsync):
    /// for messages that are not part of a job's commit, such as `job.failed`.
    package static func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date, data: DataDirectory) throws(FileIO.Failure) {
        let dir = directory(.pending, in: data)
        try FileIO.makeDirectories(dir, within: data.root)
        try FileIO.writeAtomically(dir + "/" + fileName(message.id) + ".json", JSONWriter.document(OutboxEnvelope.queued(message, job: job, runID: runID, createdAt: createdAt)))
        try FileIO.fsyncDirectory(dir)
    }

    /// Moves a file between folders with one `rename`, made durable.
    package static func move(_ name: String, from: OutboxFolder, to: OutboxFolder, data: DataDirectory) throws(FileIO.Failure) {
        let target = directory(to, in: data)
        try FileIO.makeDirectories(target, within: data.root)
        let source = directory(from, in: data) + "/" + name
        guard rename(source, target + "/" + name) == 0 else { throw FileIO.Failure(path: source, operation: "rename to \(to.rawValue)/", errno: errno) }
        // One rename updates both directories; syncing the target makes the move durable.
        // Were it lost in a power cut, the message would merely be back where it came from.
        try FileIO.fsyncDirectory(target)
    }

    /// `hearth outbox retry ID`: moves dead letter `id` back to `pending/`, due now, with its
    /// attempts reset, its permanently failed targets pending again and `maxAge` counted from
    /// now. Targets already delivered are not sent again. Returns false when no dead letter has
    /// that id.
    @discardableResult
    package static func retry(id: String, now: Date, data: DataDirectory) throws(FileIO.Failure) -> Bool {
        let name = fileName(id) + ".json"
        let dead = directory(.dead, in: data) + "/" + name
        guard let bytes = try FileIO.readSmallFile(dead) else { return false }
        // A deliverer finishing a message writes the dead letter before it unlinks the pending
        // file: while both exist, the message is not a dead letter yet.
        guard var envelope = OutboxEnvelope(bytes: bytes) else {
            throw FileIO.Failure(path: dead, operation: "parse (the dead letter is not a valid message file; inspect or remove it)", errno: EINVAL)
        }
        // Likewise for a message of a batch whose log does not say `dead` yet.
        let inBatch = envelope.job.flatMap { job in envelope.runID.map { batchPrefix(job: job, runID: $0) } }.map { prefix in
            ((try? batchNames(data)) ?? []).contains { $0.hasPrefix(prefix) && (try? batch($0, data: data))??.holds(id) == true }
        } ?? false
        if inBatch || exists(directory(.pending, in: data) + "/" + name) {
            throw FileIO.Failure(path: dead, operation: "retry (the message is still pending; try again in a moment)", errno: EBUSY)
        }
        envelope.resetForRetry(now: now)
        try FileIO.writeAtomically(dead, envelope.bytes)
        try move(name, from: .dead, to: .pending, data: data)
        return true
    }

    /// Removes the oldest files of `dropped/` beyond ``OutboxFolder/droppedRetention``.
    package static func pruneDropped(_ data: DataDirectory, keep: Int = OutboxFolder.droppedRetention) {
        let dir = directory(.dropped, in: data)
        guard let names = try? names(in: .dropped, data: data), names.count > keep else { return }
        var aged: [(name: String, mtime: Int, nanos: Int)] = []
        for name in names {
            guard let st = try? FileIO.lstatPath(dir + "/" + name) else { continue }
            aged.append((name, st.mtimeSeconds, st.mtimeNanoseconds))
        }
        aged.sort { ($0.mtime, $0.nanos, $0.name) < ($1.mtime, $1.nanos, $1.name) }
        for entry in aged.prefix(max(0, aged.count - keep)) {
            try? FileIO.remove(dir + "/" + entry.name)
        }
    }
}
