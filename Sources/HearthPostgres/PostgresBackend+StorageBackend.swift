package import Foundation
package import HearthKit
package import HearthStore

/// The run side of the PostgreSQL backend (docs/storage/postgres.md#commits).
extension PostgresBackend {
    package var features: StorageFeatures { .sharedByDaemons }

    package var transfer: (any DocumentTransfer)? { self }

    package func readSnapshot() throws -> any DocumentStore { try PostgresSnapshot.open(self) }

    package func lockJob(_ job: String, holder: String, timeout: Duration) async throws -> any StorageLock {
        let backend = self
        return try await BlockingIO.run { () throws(any Error) in
            try PostgresLock.acquire("hearth job \(job)", backend: backend, holder: holder, timeout: timeout, what: "job \(job)")
        }
    }

    /// A row of `slot_claims`, inserted, or taken over when its lease expired and its run was
    /// never recorded (docs/storage/postgres.md#several-daemons).
    package func claimSlot(job: String, logicalTime: Date, holder: String, lease: Duration) async throws -> Bool {
        let connection = self.connection
        let seconds = String(Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18)
        return try await BlockingIO.run { () throws(any Error) -> Bool in
            try connection.query(
                """
                INSERT INTO slot_claims (job, logical_time, claimed_by, lease_until) VALUES ($1, $2, $3, now() + make_interval(secs => $4::float8))
                ON CONFLICT (job, logical_time) DO UPDATE SET claimed_by = excluded.claimed_by, lease_until = excluded.lease_until
                WHERE slot_claims.claimed_by = excluded.claimed_by OR (NOT slot_claims.done AND slot_claims.lease_until < now())
                RETURNING 1
                """,
                [job, Timestamp.format(logicalTime), holder, seconds]
            ).count == 1
        }
    }

    package func expiredSlotClaims(job: String) async throws -> [Date] {
        let connection = self.connection
        return try await BlockingIO.run { () throws(any Error) -> [Date] in
            try connection.query(
                "SELECT extract(epoch FROM logical_time)::float8 FROM slot_claims WHERE job = $1 AND NOT done AND lease_until < now() ORDER BY logical_time",
                [job]
            ).values.compactMap { $0.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) } }
        }
    }

    /// A commit is one transaction: nothing to recover.
    package func recoverInterruptedCommits(holder: String, timeout: Duration) async throws -> CommitRecovery { CommitRecovery() }

    package func commit(_ commit: RunCommit, holder: String, timeout: Duration) async throws -> CommitResult {
        let backend = self
        return try await BlockingIO.run { () throws(any Error) in
            // A connection of its own: the shared one serves other tasks' single statements,
            // which must not land inside this transaction.
            let connection = try backend.connect()
            return try connection.transaction {
                // Commits are serialised like the directory's writers' lock: the version check
                // and the writes of two commits never interleave. The same statement says who
                // writes, for the change feed's triggers (docs/triggers.md#the-change-feed--postgresql);
                // `true`: for this transaction only.
                try connection.query(
                    "SELECT pg_advisory_xact_lock(\(PostgresBackend.commitLockKey)), set_config('hearth.writer', $1, true), set_config('hearth.chain', $2, true)",
                    [commit.job, String(commit.chain)])
                let conflicts = try PostgresBackend.conflicts(commit.changeset, connection)
                if !conflicts.isEmpty { return CommitResult.conflict(conflicts) }
                try PostgresBackend.write(commit, connection)
                return .committed
            }
        }
    }

    /// A follow-up commit of documents only (dead device tokens): the same transaction, lock
    /// and version check as a run's commit, no run record, and no writer for the change feed
    /// (a job's triggers see it as any other writer's).
    package func commitDocuments(_ changeset: Changeset, id: String, holder: String, timeout: Duration) async throws -> CommitResult {
        let backend = self
        return try await BlockingIO.run { () throws(any Error) in
            let connection = try backend.connect()
            return try connection.transaction {
                try connection.query("SELECT pg_advisory_xact_lock(\(PostgresBackend.commitLockKey))")
                let conflicts = try PostgresBackend.conflicts(changeset, connection)
                if !conflicts.isEmpty { return CommitResult.conflict(conflicts) }
                try PostgresBackend.writeDocuments(changeset, connection)
                return .committed
            }
        }
    }

    static let commitLockKey = 0x4865_6172_7463  // "Hearthc"

    /// The documents the changeset writes, or its decisions rest on (``Changeset/versionChecks``),
    /// that changed since the run read them.
    /// The rows only depended on are read `FOR SHARE`: an app's write to one waits for this
    /// commit, so it cannot change between the check and the commit unseen.
    static func conflicts(_ changeset: Changeset, _ connection: PostgresConnection) throws -> [DocumentPath] {
        var changed: [DocumentPath] = []
        for (checks, lock) in [(changeset.writeChecks, ""), (changeset.dependencyChecks, " FOR SHARE OF d")] {
            changed += try conflicts(checks, lock: lock, connection)
        }
        return changed
    }

    private static func conflicts(_ checks: [Changeset.VersionCheck], lock: String, _ connection: PostgresConnection) throws -> [DocumentPath] {
        var changed: [DocumentPath] = []
        for chunk in chunks(checks, size: 5000) {
            let keys = JSONValue.array(chunk.map { .object(JSONObject([("c", .string($0.path.collection)), ("i", .string($0.path.id))])) })
            let rows = try connection.query(
                "SELECT d.collection, d.id, d.version, octet_length(d.raw) FROM documents d JOIN json_to_recordset($1::json) AS k(c text, i text) ON d.collection = k.c AND d.id = k.i"
                    + lock,
                [JSONWriter.compact(keys)])
            var now: [String: (version: Int, size: Int)] = [:]
            for r in rows.rows {
                guard let c = r[0], let i = r[1], let v = r[2].flatMap(Int.init), let s = r[3].flatMap(Int.init) else { continue }
                now[c + "/" + i] = (v, s)
            }
            for e in chunk {
                let current = now[e.path.description]
                switch (e.expected, current) {
                case (nil, nil): continue
                case (let x?, let y?) where x.mtimeSeconds == y.version && x.size == y.size: continue
                default: changed.append(e.path)
                }
            }
        }
        return changed
    }

    /// Writes documents, ledger entries, outbox messages and the run record (inside the
    /// commit's transaction).
    static func write(_ commit: RunCommit, _ connection: PostgresConnection) throws {
        let c = commit.changeset
        try writeDocuments(c, connection)

        // The ledger: the same entries, under the same names, as the directory backend's files.
        for op in Ledger.operations(records: c.ledgerRecords, deletes: c.ledgerDeletes, job: commit.job, runID: commit.runID) {
            switch op {
            case .delete(let name):
                try connection.query("DELETE FROM ledger WHERE name = $1", [name])
            case .put(let name, let bytes):
                let namespace = name.split(separator: "/").dropFirst(2).first.map(String.init) ?? ""
                try connection.query(
                    "INSERT INTO ledger (name, namespace, body) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET body = excluded.body",
                    [name, namespace, String(decoding: bytes, as: UTF8.self)])
            }
        }

        let messages = c.messages.map { ($0, commit.messagesCreatedAt) } + commit.events.map { ($0, commit.record.end) }
        for chunk in chunks(messages, size: 2000) {
            let rows = chunk.map { m, createdAt in
                JSONValue.object(JSONObject([
                    ("id", .string(m.id)), ("e", .string(JSONWriter.compact(.object(OutboxEnvelope.queued(m, job: commit.job, runID: commit.runID, createdAt: createdAt))))),
                    ("t", .string(Timestamp.format(createdAt))),
                ]))
            }
            try connection.query(
                """
                INSERT INTO outbox (id, job, run_id, envelope, next_attempt_at, created_at)
                SELECT k.id, $2, $3, k.e, k.t::timestamptz, k.t::timestamptz FROM json_to_recordset($1::json) AS k(id text, e text, t text)
                ON CONFLICT (id) DO NOTHING
                """,
                [JSONWriter.compact(.array(rows)), commit.job, commit.runID])
            FaultInjection.commitStep()
        }
        try saveRecord(commit.record, connection)
        FaultInjection.commitStep()
    }

    /// Writes the changeset's documents (inside a commit's transaction).
    static func writeDocuments(_ c: Changeset, _ connection: PostgresConnection) throws {
        var puts: [JSONValue] = []
        var deletes: [JSONValue] = []
        for e in c.entries {
            let key: [(String, JSONValue)] = [("c", .string(e.path.collection)), ("i", .string(e.path.id))]
            switch e.action {
            case .create, .update:
                let raw = String(decoding: e.content ?? JSONWriter.document(JSONObject()), as: UTF8.self)
                puts.append(.object(JSONObject(key + [("r", .string(raw))])))
            case .delete:
                deletes.append(.object(JSONObject(key)))
            }
        }
        for chunk in chunks(deletes, size: 5000) {
            try connection.query(
                "DELETE FROM documents d USING json_to_recordset($1::json) AS k(c text, i text) WHERE d.collection = k.c AND d.id = k.i",
                [JSONWriter.compact(.array(chunk))])
            FaultInjection.commitStep()
        }
        for chunk in chunks(puts, size: 500) {
            try upsert(chunk, connection)
            FaultInjection.commitStep()
        }
    }

    /// Inserts or replaces documents `{c, i, r}`; each write takes a new version from the
    /// database-wide sequence.
    static func upsert(_ rows: [JSONValue], _ connection: PostgresConnection) throws {
        try connection.query(
            """
            INSERT INTO documents (collection, id, raw, version, updated_at)
            SELECT k.c, k.i, k.r, nextval('document_versions'), now() FROM json_to_recordset($1::json) AS k(c text, i text, r text)
            ON CONFLICT (collection, id) DO UPDATE SET raw = excluded.raw, version = excluded.version, updated_at = excluded.updated_at
            """,
            [JSONWriter.compact(.array(rows))])
    }

    static func saveRecord(_ record: RunRecord, _ connection: PostgresConnection) throws {
        // The slot's claim (if a daemon claimed it) ends with its record, in the same transaction.
        if record.trigger != .cli, !record.dryRun {
            try connection.query(
                "UPDATE slot_claims SET done = true, run_id = $3 WHERE job = $1 AND logical_time = $2",
                [record.job, Timestamp.format(record.logicalTime), record.runID])
        }
        try connection.query(
            """
            INSERT INTO run_records (job, run_id, status, start_at, logical_time, record) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (job, run_id) DO UPDATE SET status = excluded.status, record = excluded.record
            """,
            [record.job, record.runID, record.status.rawValue, Timestamp.format(record.start), Timestamp.format(record.logicalTime),
             String(decoding: JSONWriter.document(record.json), as: UTF8.self)])
    }

    static func chunks<T>(_ items: [T], size: Int) -> [[T]] {
        stride(from: 0, to: items.count, by: size).map { Array(items[$0..<min(items.count, $0 + size)]) }
    }

    package func saveRecord(_ record: RunRecord) async throws {
        let backend = self
        try await BlockingIO.run { () throws(any Error) in
            let connection = try backend.connect()
            try connection.transaction { try PostgresBackend.saveRecord(record, connection) }
        }
    }

    package func writeRecord(_ record: RunRecord) throws {
        let connection = try connect()
        try connection.transaction { try PostgresBackend.saveRecord(record, connection) }
    }

    package func enqueue(_ message: OutboxMessage, job: String, runID: String, createdAt: Date) async throws {
        let connection = self.connection
        try await BlockingIO.run { () throws(any Error) in
            let envelope = JSONWriter.compact(.object(OutboxEnvelope.queued(message, job: job, runID: runID, createdAt: createdAt)))
            try connection.query(
                "INSERT INTO outbox (id, job, run_id, envelope, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (id) DO NOTHING",
                [message.id, job, runID, envelope, Timestamp.format(createdAt)])
        }
    }

    package func runRecords(job: String?, status: RunRecord.Status?, limit: Int?) throws -> [RunRecord] {
        let rows = try connection.query(
            """
            SELECT record FROM run_records WHERE ($1::text IS NULL OR job = $1) AND ($2::text IS NULL OR status = $2)
            ORDER BY record::jsonb ->> 'end' DESC, run_id DESC LIMIT $3
            """,
            [job, status?.rawValue, limit.map(String.init)])
        return rows.values.compactMap { text in
            guard let text, case .object(let o)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
            return RunRecord(json: o)
        }
    }

    /// Looked for by `run_id` alone: a scan of `run_records`, which holds at most `historyLimit`
    /// records per job.
    package func runRecord(id: String) throws -> RunRecord? {
        let rows = try connection.query("SELECT record FROM run_records WHERE run_id = $1 LIMIT 1", [id])
        guard rows.count == 1, let text = rows[0, 0], case .object(let o)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
        return RunRecord(json: o)
    }

    package func pruneRunRecords(job: String, keep: Int) throws {
        try connection.query(
            "DELETE FROM run_records WHERE job = $1 AND run_id IN (SELECT run_id FROM run_records WHERE job = $1 ORDER BY run_id DESC OFFSET $2)",
            [job, String(keep)])
    }

    package func schedulerState(job: String) -> SchedulerState? {
        guard let rows = try? connection.query("SELECT state FROM scheduler_state WHERE job = $1", [job]), rows.count == 1,
            let text = rows[0, 0], case .object(let o)? = try? JSONParser.parse(Array(text.utf8))
        else { return nil }
        return SchedulerState(json: o)
    }

    package func saveSchedulerState(_ entry: SchedulerState) throws {
        try connection.query(
            "INSERT INTO scheduler_state (job, state, updated_at) VALUES ($1, $2, $3) ON CONFLICT (job) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
            [entry.job, JSONWriter.compact(.object(entry.json)), Timestamp.format(entry.updatedAt)])
    }
}
