import Testing
import HearthHost

/// `dataDir` is required for a data directory store only (docs/storage/postgres.md#setting-it-up).
@Suite("[store] and dataDir")
struct StoreConfigTests {
    let loader = ConfigLoader(jobs: [], environment: [:])

    @Test func aDataDirectoryStoreWithoutDataDirIsRefusedNamingTheFix() throws {
        #expect {
            _ = try loader.parse("[store]\nkind = \"directory\"\n", file: "/etc/hearth/hearth.toml")
        } throws: { error in
            let e = error as? ConfigError
            return e?.file == "/etc/hearth/hearth.toml" && e?.message == "no data directory: set dataDir in the config or pass --data DIR"
        }
    }

    @Test func aPostgresStoreNeedsNoDataDir() throws {
        let config = try loader.parse("[store]\nkind = \"postgres\"\nurlEnv = \"HEARTH_DATABASE_URL\"\n", file: "/etc/hearth/hearth.toml")
        #expect(config.storage.kind == .postgres)
        #expect(config.dataDir == "")
        #expect(config.storage.urlEnv == "HEARTH_DATABASE_URL")
    }
}
