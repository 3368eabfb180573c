import Foundation
import Testing
import HearthTestSupport

/// libcurl and libpq are opened on first use, not linked
/// (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md). Each test puts an empty
/// `libcurl.so.4` and `libpq.so.5` first on `LD_LIBRARY_PATH`: the dynamic loader refuses such a
/// file, so a binary linked against either library would not start at all.
@Suite("libcurl and libpq loaded on first use")
struct LibraryLoadingTests {
    /// A directory with a seeded data directory `d` and the unloadable libraries in `lib`.
    static func setUp() async throws -> TempDirectory {
        let s = try TempDirectory("hearth-e2e-libs")
        try FileManager.default.createDirectory(atPath: s.path + "/lib", withIntermediateDirectories: true)
        try s.write("lib/libcurl.so.4", "")
        try s.write("lib/libpq.so.5", "")
        let seeded = try await HearthProcess.run(["seed", "--out", s.path + "/d", "--users", "3", "--seed", "1"], in: s.path)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return s
    }

    static func environment(_ s: TempDirectory) -> [String: String] { ["LD_LIBRARY_PATH": s.path + "/lib"] }

    @Test func listNeverLoadsLibcurlNorLibpq() async throws {
        let s = try await Self.setUp()
        defer { s.remove() }
        try s.write("hearth.toml", "dataDir = \"d\"\n[jobs.streak-reset]\nschedule = \"0 3 * * *\"\n")
        let r = try await HearthProcess.run(["list", "--config", "hearth.toml", "--format", "json"], in: s.path, environment: Self.environment(s))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        #expect(r.stdout.contains("\"job\": \"streak-reset\",\n    \"schedule\": \"0 3 * * *\","), "\(r.stdout)")
    }

    @Test func outboxDeliverNamesThePackageWhenLibcurlCannotBeLoaded() async throws {
        let s = try await Self.setUp()
        defer { s.remove() }
        try s.write("hook.secret", "whsec_dGVzdA==\n")
        #expect(chmod(s.path + "/hook.secret", 0o600) == 0)
        try s.write("hearth.toml", """
            dataDir = "d"
            [[webhooks]]
            name = "ops"
            url = "http://127.0.0.1:9/hook"
            secretFile = "hook.secret"

            """)
        let r = try await HearthProcess.run(["outbox", "deliver", "--config", "hearth.toml"], in: s.path, environment: Self.environment(s))
        #expect(r.status == 1)
        #expect(r.stderr == "hearth: error: HTTP client cannot start (libcurl error 2): libcurl cannot be loaded (\(s.path)/lib/libcurl.so.4: file too short); Hearth loads it when it first sends an HTTP request (push, webhooks, HTTP from jobs): install the Debian package libcurl4\n")
    }

    @Test func aPostgresStoreNamesThePackageWhenLibpqCannotBeLoaded() async throws {
        let s = try await Self.setUp()
        defer { s.remove() }
        try s.write("hearth.toml", "dataDir = \"d\"\n[store]\nkind = \"postgres\"\nurlEnv = \"HEARTH_TEST_PG_URL\"\n")
        var environment = Self.environment(s)
        environment["HEARTH_TEST_PG_URL"] = "postgresql://hearth:SECRET@127.0.0.1:9/hearth"
        let r = try await HearthProcess.run(["history", "--config", "hearth.toml"], in: s.path, environment: environment)
        #expect(r.status == 75)
        #expect(r.stderr == "hearth: error: libpq cannot be loaded (\(s.path)/lib/libpq.so.5: file too short); the PostgreSQL store ([store] kind = \"postgres\") needs it: install the Debian package libpq5\n")
    }
}
