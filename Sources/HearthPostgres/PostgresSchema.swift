/// The PostgreSQL schema, as numbered migrations `hearth migrate` applies in order, each in
/// its own transaction and recorded in `schema_migrations` (docs/storage/postgres.md#schema).
/// Applied migrations are never edited; a change is a new migration.
package enum PostgresSchema {
    package struct Migration: Sendable {
        package let version: Int
        package let name: String
        package let sql: String
    }

    package static let migrations: [Migration] = [
        Migration(version: 1, name: "documents, runs, scheduler state, outbox, ledger, slot claims", sql: """
            CREATE SEQUENCE document_versions;
            CREATE TABLE documents (
                collection text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                raw text NOT NULL,
                data jsonb GENERATED ALWAYS AS (raw::jsonb) STORED,
                version bigint NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (collection, id),
                CHECK (octet_length(raw) <= 1048576)
            );
            CREATE TABLE run_records (
                job text COLLATE "C" NOT NULL,
                run_id text COLLATE "C" NOT NULL,
                status text NOT NULL,
                start_at timestamptz NOT NULL,
                logical_time timestamptz NOT NULL,
                record text NOT NULL,
                PRIMARY KEY (job, run_id)
            );
            CREATE INDEX run_records_start ON run_records (job, start_at DESC, run_id DESC);
            CREATE TABLE scheduler_state (
                job text PRIMARY KEY,
                state text NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE TABLE outbox (
                seq bigserial PRIMARY KEY,
                id text NOT NULL UNIQUE,
                job text NOT NULL,
                run_id text NOT NULL,
                folder text NOT NULL DEFAULT 'pending',
                envelope text NOT NULL,
                next_attempt_at timestamptz NOT NULL,
                created_at timestamptz NOT NULL
            );
            CREATE INDEX outbox_pending ON outbox (folder, next_attempt_at, seq);
            CREATE TABLE ledger (
                name text COLLATE "C" PRIMARY KEY,
                namespace text NOT NULL,
                body text NOT NULL
            );
            CREATE TABLE slot_claims (
                job text NOT NULL,
                logical_time timestamptz NOT NULL,
                run_id text,
                claimed_by text NOT NULL,
                lease_until timestamptz NOT NULL,
                done boolean NOT NULL DEFAULT false,
                PRIMARY KEY (job, logical_time)
            );
            CREATE TABLE job_pauses (
                job text PRIMARY KEY,
                note text,
                paused_at timestamptz NOT NULL DEFAULT now(),
                paused_by text NOT NULL DEFAULT 'cli'
            );
            """),
        Migration(version: 2, name: "disabled webhook endpoints", sql: """
            CREATE TABLE disabled_endpoints (
                name text COLLATE "C" PRIMARY KEY,
                config_hash text NOT NULL,
                disabled_at timestamptz NOT NULL,
                reason text NOT NULL
            );
            """),
        Migration(version: 3, name: "audit log", sql: """
            CREATE TABLE audit_log (
                seq bigserial PRIMARY KEY,
                at timestamptz NOT NULL,
                action text NOT NULL,
                job text,
                entry text NOT NULL
            );
            CREATE INDEX audit_log_job ON audit_log (job, seq DESC);
            """),
        Migration(version: 4, name: "change feed: NOTIFY per statement on documents, change claims", sql: changeFeedSQL),
        // The searches of a triggered run (docs/storage/field-indexes.md): a conversation's
        // messages, the friendships and the notifications of a few users, and the rows every
        // search returns because they are not JSON objects (none, usually: the index stays
        // empty; the statistics tell the planner so, else it counts on most rows being
        // non-objects and walks the table).
        Migration(version: 5, name: "field indexes: messages by conversationId, friendships by userId1, notifications by userId, non-object documents", sql: """
            CREATE INDEX documents_messages_conversation ON documents ((data ->> 'conversationId'), id) WHERE collection = 'messages';
            CREATE INDEX documents_friendships_user1 ON documents ((data ->> 'userId1'), id) WHERE collection = 'friendships';
            CREATE INDEX documents_notifications_user ON documents ((data ->> 'userId'), id) WHERE collection = 'notifications';
            CREATE INDEX documents_not_objects ON documents (collection, id) WHERE jsonb_typeof(data) <> 'object';
            CREATE STATISTICS documents_json_types ON (jsonb_typeof(data)) FROM documents;
            """),
        // The filtered scans of the jobs that keep a reject memo on a data directory
        // (docs/storage/reject-memos.md#filters): the few rows that meet each filter, so a scan
        // reads them and not the whole collection. Each predicate is the filter as
        // `PostgresDocuments.whereClause` writes it, with its values in place of the parameters
        // (the statement is planned with them, so PostgreSQL matches the two).
        // And autovacuum once 2 % of the documents changed, not PostgreSQL's 20 %: a job that
        // rewrites every user leaves 100,000 dead rows of 2.3 million, which every later read of
        // those pages steps over until a vacuum (docs/storage/postgres.md#schema).
        Migration(version: 6, name: "filter indexes: pending gifts among transactions, untriaged reports; documents vacuumed after 2 % change", sql: """
            CREATE INDEX documents_transactions_pending_gifts ON documents (collection, id)
                WHERE collection = 'transactions' AND data -> 'type' = '"gift"'::jsonb AND data -> 'status' = '"pending"'::jsonb;
            CREATE INDEX documents_reports_untriaged ON documents (collection, id)
                WHERE collection = 'reports' AND coalesce(data -> 'triagedAt', 'null'::jsonb) = 'null'::jsonb;
            ALTER TABLE documents SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);
            """),
    ]

    /// Migration 4, the change feed (docs/triggers.md#the-change-feed--postgresql): after every
    /// statement that inserts, updates or deletes documents (COPY and `INSERT … ON CONFLICT`
    /// included), one `pg_notify('hearth_documents', …)` per top-level collection it wrote, with
    /// a number from `change_feed` (one per statement and kind: an upsert's inserts and its
    /// updates are two), the paths (null when they would not fit in well under NOTIFY's 8000
    /// bytes), and the writer and chain a job's commit sets (`hearth.writer`, `hearth.chain`).
    /// Statement-level triggers with transition tables: a 100,000-row statement is one
    /// notification per collection, not 100,000. `change_claims` is where daemons sharing the
    /// database take each batch once per job (``PostgresBackend/claimChanges(job:sequences:holder:)``).
    static let changeFeedSQL = """
        CREATE SEQUENCE change_feed;
        CREATE TABLE change_claims (
            job text COLLATE "C" NOT NULL,
            sequence bigint NOT NULL,
            claimed_by text NOT NULL,
            claimed_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (job, sequence)
        );
        CREATE INDEX change_claims_age ON change_claims (claimed_at);
        CREATE FUNCTION hearth_notify_documents() RETURNS trigger LANGUAGE plpgsql AS $body$
        DECLARE
            source text := CASE TG_OP
                WHEN 'INSERT' THEN 'new_rows'
                WHEN 'DELETE' THEN 'old_rows'
                ELSE '(SELECT collection, id FROM new_rows UNION SELECT collection, id FROM old_rows)' END;
            writer text := nullif(current_setting('hearth.writer', true), '');
            chain integer := coalesce(nullif(current_setting('hearth.chain', true), '')::integer, 0);
            number bigint;
            g record;
            paths json;
            payload text;
        BEGIN
            FOR g IN EXECUTE format(
                'SELECT split_part(collection, ''/'', 1) AS top, sum(octet_length(collection) + octet_length(id) + 4) AS bytes FROM %s r GROUP BY 1 ORDER BY 1',
                source)
            LOOP
                IF number IS NULL THEN number := nextval('change_feed'); END IF;
                paths := NULL;
                -- Only a statement's first few dozen paths are listed: more would not fit.
                IF g.bytes <= 6000 THEN
                    EXECUTE format(
                        'SELECT json_agg(p ORDER BY p) FROM (SELECT collection || ''/'' || id AS p FROM %s r WHERE split_part(collection, ''/'', 1) = $1) s',
                        source) INTO paths USING g.top;
                END IF;
                payload := json_build_object('sequence', number, 'collection', g.top, 'writer', writer, 'chain', chain, 'paths', paths)::text;
                IF octet_length(payload) > 7900 THEN
                    payload := json_build_object('sequence', number, 'collection', g.top, 'writer', writer, 'chain', chain, 'paths', NULL)::text;
                END IF;
                PERFORM pg_notify('hearth_documents', payload);
            END LOOP;
            RETURN NULL;
        END;
        $body$;
        CREATE TRIGGER documents_notify_insert AFTER INSERT ON documents
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify_documents();
        CREATE TRIGGER documents_notify_update AFTER UPDATE ON documents
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify_documents();
        CREATE TRIGGER documents_notify_delete AFTER DELETE ON documents
            REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION hearth_notify_documents();
        """

    /// The channel the change feed's notifications go to.
    package static let changeFeedChannel = "hearth_documents"

    /// The newest schema version this build knows.
    package static var latest: Int { migrations.last?.version ?? 0 }

    /// Applies the migrations not applied yet; returns their versions. Idempotent; two
    /// concurrent `hearth migrate` wait for each other (an advisory lock).
    package static func migrate(_ connection: PostgresConnection) throws -> [Int] {
        try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        try connection.query("SELECT pg_advisory_lock(\(migrateLockKey))")
        defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(migrateLockKey))") }
        let applied = Set(try connection.query("SELECT version FROM schema_migrations").values.compactMap { $0.flatMap(Int.init) })
        var done: [Int] = []
        for m in migrations where !applied.contains(m.version) {
            try connection.transaction {
                try connection.execute(m.sql)
                try connection.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [String(m.version), m.name])
            }
            done.append(m.version)
        }
        return done
    }

    /// The applied version (0: none), for the check every command makes before using the
    /// database: one statement, the table's absence (`undefined_table`) meaning none.
    package static func currentVersion(_ connection: PostgresConnection) throws(PostgresError) -> Int {
        do {
            return Int(try connection.query("SELECT coalesce(max(version), 0) FROM schema_migrations")[0, 0] ?? "0") ?? 0
        } catch where error.sqlState == "42P01" {
            return 0
        }
    }

    static let migrateLockKey = 0x4865_6172_7468  // "Hearth"
}
