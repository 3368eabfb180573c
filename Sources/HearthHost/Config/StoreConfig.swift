import Foundation
package import HearthStore

/// `[store]` (docs/configuration.md#store): which backend holds the documents and Hearth's
/// state, and how new files are written in a data directory.
package struct StoreConfig: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        case directory, postgres
    }

    package var kind: Kind = .directory
    /// `fileMode` / `dirMode`: modes of new documents and collection directories (directory).
    package var ownership = FileOwnership()
    /// `urlEnv`: the environment variable holding the PostgreSQL URL.
    package var urlEnv: String?
    /// `urlFile`: a file holding the PostgreSQL URL (first line).
    package var urlFile: String?
    /// `leaseTimeout`: how long a daemon's claim on a slot outlives the daemon (postgres).
    package var leaseTimeout: Duration = .seconds(60)

    package init() {}

    /// The PostgreSQL URL from `urlEnv` or `urlFile`. The error names the key, never the value.
    package func postgresURL(configFile: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigError) -> String {
        if let name = urlEnv {
            guard let value = environment[name], !value.isEmpty else {
                throw ConfigError(file: configFile, "[store] urlEnv: the environment variable \(name) is not set or empty; export it with the PostgreSQL URL (postgresql://USER:PASSWORD@HOST/DB)")
            }
            return value
        }
        if let path = urlFile {
            guard let bytes = FileManager.default.contents(atPath: path),
                let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first, !line.isEmpty
            else {
                throw ConfigError(file: configFile, "[store] urlFile: cannot read a URL from \(path); write the PostgreSQL URL on its first line (chmod 600)")
            }
            return String(line).trimmingCharacters(in: .whitespaces)
        }
        throw ConfigError(file: configFile, "[store] kind = \"postgres\" needs urlEnv (an environment variable) or urlFile (a file) holding the PostgreSQL URL")
    }
}
