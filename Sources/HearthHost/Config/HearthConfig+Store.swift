import HearthDataDirectory
package import HearthStore
import HearthPostgres

extension HearthConfig {
    /// Opens the configured backend (docs/configuration.md#store): the data directory, or the
    /// PostgreSQL database (connected, its schema checked).
    package func openStore() throws -> any StorageBackend {
        switch storage.kind {
        case .directory:
            return try DataDirectory(root: dataDir, ownership: store)
        case .postgres:
            return try PostgresBackend(url: try storage.postgresURL(configFile: file ?? "hearth.toml"))
        }
    }

    /// The PostgreSQL URL, or a ``ConfigError`` when `[store] kind` is not `"postgres"`.
    package func requirePostgresURL(for command: String) throws -> String {
        guard storage.kind == .postgres else {
            throw ConfigError(file: file ?? "hearth.toml", "`hearth \(command)` works on a PostgreSQL store; set [store] kind = \"postgres\" and urlEnv or urlFile")
        }
        return try storage.postgresURL(configFile: file ?? "hearth.toml")
    }
}
