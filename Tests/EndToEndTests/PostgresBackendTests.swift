import Foundation
import Testing
import HearthKit
import HearthStore
import HearthPostgres
import HearthTestSupport

/// The PostgreSQL backend against a real server (``PostgresServer``), through the `hearth`
/// binary: docs/storage/postgres.md.
@Suite("PostgreSQL backend end to end")
struct PostgresBackendTests {
    /// A temp directory with a seeded data directory `data`, `dir.toml` over it and `pg.toml`
    /// over a fresh database (its URL in `HEARTH_TEST_PG`).
    struct Setup {
        var temp: TempDirectory
        var url: String
        var environment: [String: String] { ["HEARTH_TEST_PG": url] }
        var data: String { temp.path + "/data" }
        var dir: [String] { ["--config", temp.path + "/dir.toml"] }
        var pg: [String] { ["--config", temp.path + "/pg.toml"] }

        init(users: Int, seed: Int = 9, extraConfig: String = "") async throws {
            temp = try TempDirectory("hearth-pg")
            url = try await PostgresServer.shared().database()
            try temp.write("dir.toml", "dataDir = \"data\"\n\(extraConfig)")
            try temp.write("pg.toml", "dataDir = \"data\"\n\(extraConfig)[store]\nkind = \"postgres\"\nurlEnv = \"HEARTH_TEST_PG\"\n")
            if users > 0 {
                let seeded = try await HearthProcess.run(["seed", "--out", data, "--users", String(users), "--seed", String(seed)])
                #expect(seeded.status == 0, "\(seeded.stderr)")
            }
        }

        func hearth(_ args: [String], postgres: Bool = true) async throws -> HearthProcess.Result {
            try await HearthProcess.run(args + (postgres ? pg : dir), environment: environment)
        }
    }

    static let jobs = [
        "leaderboard-rebuild", "weekly-bonus", "xp-award", "achievement-unlock", "streak-reset", "gig-quality-score",
        "notification-fanout", "gift-settle", "report-triage", "xp-leaderboard", "friend-notify", "conversation-sync",
    ]

    @Test func migrateCreatesTheSchemaOnceAndIsIdempotent() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        let first = try await s.hearth(["migrate"])
        #expect(first.status == 0)
        #expect(first.stdout == "applied migration(s) 1, 2, 3, 4, 5, 6; schema version 6\n")
        let second = try await s.hearth(["migrate"])
        #expect(second.status == 0)
        #expect(second.stdout == "schema is up to date (version 6)\n")
    }

    /// A database at schema version 1 (before disabled endpoints moved into it) is refused until
    /// `hearth migrate` applies the migrations after 1, and only those.
    @Test func migrateUpgradesAVersionOneDatabase() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        let url = try #require(s.environment["HEARTH_TEST_PG"])
        try await BlockingIO.run { () throws(any Error) in
            let c = try PostgresConnection(url: url)
            try c.execute("CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
            try c.execute(PostgresSchema.migrations[0].sql)
            try c.query("INSERT INTO schema_migrations (version, name) VALUES (1, $1)", [PostgresSchema.migrations[0].name])
        }
        let plan = try await s.hearth(["plan", "xp-award"])
        #expect(plan.status == 78)
        #expect(plan.stderr.contains("has schema version 1; this hearth needs 6. Run `hearth migrate` first."))
        let migrate = try await s.hearth(["migrate"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout == "applied migration(s) 2, 3, 4, 5, 6; schema version 6\n")
        let tables = try await BlockingIO.run { () throws(any Error) in
            try PostgresConnection(url: url).query("SELECT count(*) FROM disabled_endpoints").values
        }
        #expect(tables == ["0"])
    }

    /// On PostgreSQL a commit is one transaction: `recover` says there is nothing to replay and
    /// lists the slots whose daemon died before recording the run (expired claims), no others.
    @Test func recoverHasNothingToReplayAndListsExpiredSlotClaims() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        #expect(try await s.hearth(["migrate"]).status == 0)
        let empty = try await s.hearth(["recover"])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout == "Nothing to recover: on PostgreSQL every commit is one transaction (docs/storage/postgres.md#recover).\nNo slot claim has expired.\n")
        try await BlockingIO.run { () throws(any Error) in
            let c = try PostgresConnection(url: s.url)
            try c.execute("""
                INSERT INTO slot_claims (job, logical_time, claimed_by, lease_until, done) VALUES
                  ('xp-award', '2026-11-18T12:00:00Z', 'daemon a', now() - interval '1 minute', false),
                  ('xp-award', '2026-11-18T12:05:00Z', 'daemon b', now() + interval '1 minute', false),
                  ('streak-reset', '2026-11-18T00:00:00Z', 'daemon a', now() - interval '1 hour', true),
                  ('gift-settle', '2026-11-18T11:00:00Z', 'daemon a', now() - interval '2 minutes', false)
                """)
        }
        let r = try await s.hearth(["recover"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
            Nothing to recover: on PostgreSQL every commit is one transaction (docs/storage/postgres.md#recover).
            gift-settle 2026-11-18T11:00:00.000Z: its daemon stopped before the run was recorded (lease expired); the next daemon to reach gift-settle runs it
            xp-award 2026-11-18T12:00:00.000Z: its daemon stopped before the run was recorded (lease expired); the next daemon to reach xp-award runs it

            """)
    }

    /// `export systemd` on PostgreSQL: the services get the URL through `EnvironmentFile=`
    /// (urlEnv) or read the read-only `urlFile`, never from the unit itself, and have no data
    /// directory to write; every unit passes `systemd-analyze verify`.
    @Test(.enabled(if: SystemdAnalyze.isInstalled, "systemd-analyze is not installed"))
    func exportSystemdPassesTheURLOnlyThroughItsFileAndVerifies() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        let env = try await HearthProcess.run(
            ["export", "systemd", "--out", s.temp.path + "/units", "--user", "hearth", "--group", "hearth", "--environment-file", "/etc/hearth/pg.env"] + s.pg,
            environment: s.environment)
        #expect(env.status == 0, "\(env.stderr)")
        #expect(env.stdout.contains("\nThe services read HEARTH_TEST_PG (the PostgreSQL URL) from /etc/hearth/pg.env: create it, owned by root, mode 0600, with the line\n  HEARTH_TEST_PG=postgresql://USER:PASSWORD@HOST/DB\n"))
        let units = try FileManager.default.contentsOfDirectory(atPath: s.temp.path + "/units").sorted()
        #expect(units.count == 25)
        for unit in units {
            let text = try #require(s.temp.read("units/" + unit))
            #expect(!text.contains(s.url) && !text.contains("127.0.0.1"), "\(unit) holds the URL")
            #expect(!text.contains("ReadWritePaths") && !text.contains(s.data), "\(unit) names the data directory")
            if unit.hasSuffix(".service") {
                #expect(text.contains("\nProtectSystem=strict\nEnvironmentFile=/etc/hearth/pg.env\nReadOnlyPaths=\(s.temp.path)/pg.toml\n"), "\(unit)")
            }
        }
        let (status, text) = try SystemdAnalyze.verify(units.map { s.temp.path + "/units/" + $0 })
        #expect(status == 0, "\(text)")
        #expect(text == "", "\(text)")

        try s.temp.write("url", s.url + "\n")
        try s.temp.write("file.toml", "dataDir = \"data\"\n[store]\nkind = \"postgres\"\nurlFile = \"\(s.temp.path)/url\"\n")
        let file = try await HearthProcess.run(
            ["export", "systemd", "--out", s.temp.path + "/units2", "--user", "hearth", "--config", s.temp.path + "/file.toml"])
        #expect(file.status == 0, "\(file.stderr)")
        #expect(file.stdout.contains("\nThe services read the PostgreSQL URL from \(s.temp.path)/url (urlFile): make it readable by hearth only (mode 0600).\n"))
        let daemon = try #require(s.temp.read("units2/hearth.service"))
        #expect(daemon.contains("\nProtectSystem=strict\nReadOnlyPaths=\(s.temp.path)/file.toml \(s.temp.path)/url\n"))
        #expect(!daemon.contains("EnvironmentFile") && !daemon.contains(s.url))
        let verified = try SystemdAnalyze.verify([s.temp.path + "/units2/hearth.service"])
        #expect(verified.status == 0, "\(verified.output)")
    }

    @Test func commandsRefuseADatabaseWithoutTheSchema() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        let plan = try await s.hearth(["plan", "xp-award"])
        #expect(plan.status == 78)
        #expect(plan.stderr.contains("has schema version 0; this hearth needs 6. Run `hearth migrate` first."))
    }

    @Test func theURLAndItsPasswordNeverAppearInErrors() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        let wrong = "postgresql://hearth:very-secret-password@127.0.0.1:1/nowhere"
        let r = try await HearthProcess.run(["plan", "xp-award"] + s.pg, environment: ["HEARTH_TEST_PG": wrong])
        #expect(r.status == 75)
        #expect(r.stderr.hasPrefix("hearth: error: cannot connect to PostgreSQL: "))
        #expect(!r.stderr.contains("very-secret-password"))
        #expect(!r.stderr.contains(wrong))
        try s.temp.write("inline.toml", "dataDir = \"data\"\n[store]\nkind = \"postgres\"\nurl = \"\(wrong)\"\n")
        let inline = try await HearthProcess.run(["plan", "xp-award", "--config", s.temp.path + "/inline.toml"])
        #expect(inline.status == 78)
        #expect(inline.stderr.contains("[store] url: the PostgreSQL URL holds a password and is never written in the config; put it in a file (urlFile) or an environment variable (urlEnv)"))
        #expect(!inline.stderr.contains("very-secret-password"))
    }

    /// The issue's acceptance test: 2,000 seeded users imported; every job's plan equals the
    /// directory backend's, and after a real run of each job on both, `data export` equals the
    /// data directory byte for byte. Only `.hearth/` differs: run records carry random run ids
    /// and the database keeps them (and the outbox, ledger, scheduler state) in tables.
    @Test func twoThousandUsersPlanAndRunExactlyAsTheDataDirectory() async throws {
        let s = try await Setup(users: 2000)
        defer { s.temp.remove() }
        #expect(try await s.hearth(["migrate"]).status == 0)
        let imported = try await s.hearth(["data", "import", s.data])
        #expect(imported.status == 0, "\(imported.stderr)")
        let count = TreeSnapshot(s.data).files.count
        #expect(imported.stdout == "imported \(count) documents from \(s.data)\n")

        let now = ["--now", "2026-11-18T12:00:00Z"]
        // The two stores are apart from here on: each command runs on both at once.
        for job in Self.jobs {
            async let d = s.hearth(["plan", job, "--format", "json"] + now, postgres: false)
            async let p = s.hearth(["plan", job, "--format", "json"] + now)
            let (dp, pp) = try await (d, p)
            #expect(dp.status == 0 && pp.status == 0, "\(job): \(dp.stderr) \(pp.stderr)")
            #expect(dp.stdout == pp.stdout, "\(job): the plans differ")
        }
        for job in Self.jobs {
            async let d = s.hearth(["run", job] + now, postgres: false)
            async let p = s.hearth(["run", job] + now)
            let (dr, pr) = try await (d, p)
            #expect(dr.status == 0 && pr.status == 0, "\(job): \(dr.stderr) \(pr.stderr)")
            #expect(dr.stdout == pr.stdout, "\(job): the run reports differ")
        }
        let exported = try await s.hearth(["data", "export", s.temp.path + "/export"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let expected = TreeSnapshot(s.data)
        let actual = TreeSnapshot(s.temp.path + "/export")
        #expect(actual.files.count == expected.files.count)
        #expect(actual.sameContent(as: expected))
        let history = try await s.hearth(["history", "--format", "json", "--limit", "100"])
        #expect(history.status == 0)
        let records = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        let realRuns = records.filter { ($0["dryRun"] as? Bool) == false }
        #expect(Set(realRuns.compactMap { $0["job"] as? String }) == Set(Self.jobs))
    }

    @Test func importRefusesAStoreWithDocumentsUnlessReplaceAndExportImportExportIsByteIdentical() async throws {
        let s = try await Setup(users: 150)
        defer { s.temp.remove() }
        #expect(try await s.hearth(["migrate"]).status == 0)
        #expect(try await s.hearth(["data", "import", s.data]).status == 0)
        let again = try await s.hearth(["data", "import", s.data])
        #expect(again.status == 78)
        #expect(again.stderr == "hearth: error: postgres database \(URL(string: s.url)!.lastPathComponent) already holds documents; import into an empty database, or pass --replace to delete them first\n")

        let first = s.temp.path + "/first"
        #expect(try await s.hearth(["data", "export", first]).status == 0)
        #expect(TreeSnapshot(first).sameContent(as: TreeSnapshot(s.data)))
        let replaced = try await s.hearth(["data", "import", first, "--replace"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let second = s.temp.path + "/second"
        #expect(try await s.hearth(["data", "export", second]).status == 0)
        #expect(TreeSnapshot(second).sameContent(as: TreeSnapshot(first)))
        let notEmpty = try await s.hearth(["data", "export", second])
        #expect(notEmpty.status == 78)
        #expect(notEmpty.stderr == "hearth: error: \(second) is not empty; export writes into an empty or new directory\n")
    }

    /// The optimistic check: a commit whose run read a document that another commit changed
    /// since writes nothing and names the document.
    @Test func checkReportsTheSameDocumentsAsOverTheDataDirectory() async throws {
        let s = try await Setup(users: 60)
        defer { s.temp.remove() }
        #expect(try await s.hearth(["migrate"]).status == 0)
        #expect(try await s.hearth(["data", "import", s.data]).status == 0)
        let directory = try await s.hearth(["check"], postgres: false)
        let postgres = try await s.hearth(["check"])
        #expect(directory.status == 0, "\(directory.stderr)")
        #expect(postgres.status == 0, "\(postgres.stderr)")
        #expect(postgres.stdout == directory.stdout)
        #expect(postgres.stdout.hasSuffix("collections: all valid.\n"))
    }

    /// docs/storage/postgres.md#setting-it-up word for word: a configuration with `[store]` alone
    /// (no `dataDir`, no data directory anywhere) runs every command; nothing is written beside
    /// the configuration.
    @Test func theDocumentedStoreOnlyConfigurationRunsEveryCommand() async throws {
        let s = try await Setup(users: 20)
        defer { s.temp.remove() }
        try s.temp.write("etc/hearth.toml", """
            [store]
            kind = "postgres"
            urlEnv = "HEARTH_DATABASE_URL"      # or: urlFile = "/etc/hearth/database-url" (first line, chmod 600)
            leaseTimeout = "60s"                # several daemons: how long a dead daemon's slot claim lasts

            """)
        let etc = s.temp.path + "/etc"
        func hearth(_ args: [String]) async throws -> HearthProcess.Result {
            try await HearthProcess.run(args + ["--config", etc + "/hearth.toml"], in: etc, environment: ["HEARTH_DATABASE_URL": s.url])
        }
        let now = ["--now", "2026-11-18T12:00:00Z"]

        let migrated = try await hearth(["migrate"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout == "applied migration(s) 1, 2, 3, 4, 5, 6; schema version 6\n")
        let count = TreeSnapshot(s.data).files.count
        let imported = try await hearth(["data", "import", s.data])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "imported \(count) documents from \(s.data)\n")

        // The same plan, run report and check as over the data directory they came from.
        let plan = try await hearth(["plan", "streak-reset"] + now)
        let directoryPlan = try await s.hearth(["plan", "streak-reset"] + now, postgres: false)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout == directoryPlan.stdout)
        let run = try await hearth(["run", "streak-reset"] + now)
        let directoryRun = try await s.hearth(["run", "streak-reset"] + now, postgres: false)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == directoryRun.stdout)
        let check = try await hearth(["check"])
        let directoryCheck = try await s.hearth(["check"], postgres: false)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout == directoryCheck.stdout)

        // The plan's dry-run record and the run's, as over the data directory (only the run ids
        // and times differ; `--now` gives both the same start, so their order is the run ids').
        let history = try await hearth(["history", "--format", "json"])
        let directoryHistory = try await s.hearth(["history", "--format", "json"], postgres: false)
        #expect(history.status == 0, "\(history.stderr)")
        func records(_ stdout: String) throws -> [[String: Any]] {
            try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]])
        }
        func summary(_ r: [String: Any]) -> String {
            let kept = r.filter { ["job", "trigger", "logicalTime", "status", "dryRun", "counts", "warnings", "error"].contains($0.key) }
            return (try? JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        }
        let recorded = try records(history.stdout)
        #expect(recorded.map(summary).sorted() == (try records(directoryHistory.stdout)).map(summary).sorted())
        #expect(recorded.map { $0["dryRun"] as? Bool == true ? "plan" : "run" }.sorted() == ["plan", "run"])
        #expect(recorded.map { $0["logicalTime"] as? String } == ["2026-11-18T12:00:00.000Z", "2026-11-18T12:00:00.000Z"])
        let runIDs = recorded.compactMap { $0["runId"] as? String }
        let table = try await hearth(["history"])
        #expect(table.status == 0)
        let rows = table.stdout.split(separator: "\n")
        #expect(rows.count == 3)
        #expect(rows.dropFirst().map { String($0.prefix { $0 != " " }) } == runIDs)

        let paused = try await hearth(["pause", "streak-reset", "--note", "moving house"])
        #expect(paused.status == 0, "\(paused.stderr)")
        #expect(paused.stdout == "streak-reset: paused. `hearth resume streak-reset` resumes it.\n")
        let resumed = try await hearth(["resume", "streak-reset"])
        #expect(resumed.status == 0)
        #expect(resumed.stdout == "streak-reset: resumed.\n")

        let exported = try await hearth(["data", "export", s.temp.path + "/export"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout == "exported \(count) documents to \(s.temp.path)/export\n")
        // Nothing was written beside the configuration.
        #expect(try FileManager.default.contentsOfDirectory(atPath: etc) == ["hearth.toml"])
    }

    @Test func pauseAndResumeAreKeptInTheDatabaseAndShownByList() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        #expect(try await s.hearth(["migrate"]).status == 0)
        let paused = try await s.hearth(["pause", "weekly-bonus", "--note", "waiting for the new rates"])
        #expect(paused.status == 0)
        #expect(paused.stdout == "weekly-bonus: paused. `hearth resume weekly-bonus` resumes it.\n")
        let again = try await s.hearth(["pause", "weekly-bonus", "--note", "still waiting"])
        #expect(again.stdout == "weekly-bonus: still paused (note updated).\n")
        let list = try await s.hearth(["list"])
        let row = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix("weekly-bonus ") })
        #expect(row.contains("paused: still waiting"))
        // The data directory beside it knows nothing of the pause.
        #expect(!(try await s.hearth(["list"], postgres: false)).stdout.contains("paused"))
        let plan = try await s.hearth(["plan", "weekly-bonus"])
        #expect(plan.stderr.contains("warning: weekly-bonus is paused (still waiting); running it by hand anyway."))
        let resumed = try await s.hearth(["resume", "weekly-bonus"])
        #expect(resumed.stdout == "weekly-bonus: resumed.\n")
        #expect(try await s.hearth(["resume", "weekly-bonus"]).stdout == "weekly-bonus: not paused.\n")
        #expect(!(try await s.hearth(["list"])).stdout.contains("paused"))

        // The four actions are in the audit_log table, newest first; nothing in a data directory.
        let audit = try await s.hearth(["audit", "--format", "json"])
        #expect(audit.status == 0, "\(audit.stderr)")
        let entries = (try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]]) ?? []
        #expect(entries.map { "\($0["action"] ?? "") \($0["job"] ?? "") \($0["note"] ?? "") \($0["outcome"] ?? "") \($0["via"] ?? "")" } == [
            "resume weekly-bonus was not paused ok cli", "resume weekly-bonus <null> ok cli",
            "pause weekly-bonus still waiting ok cli", "pause weekly-bonus waiting for the new rates ok cli",
        ])
        #expect(entries.allSatisfy { ($0["user"] as? String)?.isEmpty == false })
        let byJob = try await s.hearth(["audit", "--job", "weekly-bonus", "--limit", "1"])
        #expect(byJob.stdout.contains("resume  weekly-bonus"), "\(byJob.stdout)")
        #expect(!FileManager.default.fileExists(atPath: s.data + "/.hearth/audit.jsonl"))
    }

    @Test func aCommitOverADocumentChangedSinceItWasReadIsAConflict() async throws {
        let s = try await Setup(users: 0)
        defer { s.temp.remove() }
        #expect(try await s.hearth(["migrate"]).status == 0)
        let backend = try PostgresBackend(url: s.url)
        let path = try DocumentPath("users", "u1")
        func commit(_ name: String, expected: DocumentVersion?) async throws -> CommitResult {
            var c = Changeset()
            let after = JSONObject([("name", .string(name))])
            c.put(Changeset.Entry(path: path, action: expected == nil ? .create : .update, before: JSONObject(), after: after, expected: expected))
            let record = RunRecord(runID: name, job: "test", trigger: .cli, logicalTime: Date(), start: Date(), end: Date(), attempt: 1, status: .succeeded, dryRun: false)
            return try await backend.commit(RunCommit(job: "test", runID: name, changeset: c, record: record), holder: "test", timeout: .seconds(5))
        }
        #expect(try await commit("first", expected: nil) == .committed)
        let snapshot = try backend.readSnapshot()
        guard case .document(let read) = snapshot.read(path) else { Issue.record("u1 not read"); return }
        #expect(try await commit("second", expected: read.version) == .committed)
        #expect(try await commit("stale", expected: read.version) == .conflict([path]))
        #expect(try await commit("again", expected: nil) == .conflict([path]))
        // The snapshot still sees the document as it was when it was taken.
        guard case .document(let still) = snapshot.read(path) else { Issue.record("u1 not read"); return }
        #expect(still["name"] == .string("first"))
        guard case .document(let now) = backend.read(path) else { Issue.record("u1 not read"); return }
        #expect(now["name"] == .string("second"))
    }
}
