import HearthTOML
import HearthOutbound

/// One `[push.NAME]` table as the provider's settings read it (``PushSettingsTable``): the
/// config loader's ``TableReader``, with the warnings it gathers (a credential file readable
/// by others) kept for the configuration.
struct PushTable: PushSettingsTable {
    var reader: TableReader
    var warnings: [String]

    mutating func string(_ key: String) throws(ConfigError) -> String? { try reader.string(key) }
    mutating func url(_ key: String) throws(ConfigError) -> String? { try reader.url(key) }
    mutating func integer(_ key: String) throws(ConfigError) -> Int64? { try reader.integer(key) }
    mutating func bool(_ key: String) throws(ConfigError) -> Bool? { try reader.bool(key) }
    mutating func duration(_ key: String) throws(ConfigError) -> Duration? { try reader.duration(key) }
    mutating func path(_ key: String) throws(ConfigError) -> String? { try reader.path(key) }
    mutating func secretFile(_ key: String) throws(ConfigError) -> String? { try reader.secretFile(key, warnings: &warnings) }

    func invalid(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: reader.file, line: reader.table[key]?.line ?? reader.table.line, message)
    }
}
