/// The keys of one `[push.NAME]` table, as the config loader hands them to that provider's
/// ``PushProviderSettings``: typed reads that remember which keys were read (the loader rejects
/// the rest as unknown keys), and errors that name the config file, the line and the fix
/// (docs/configuration.md#keys).
package protocol PushSettingsTable {
    associatedtype Failure: Error
    /// A string. Secrets are never written in the config: a key called like one (`secret`,
    /// `key`, `token`, `password`, …) is an error pointing to `…File` / `…Env`.
    mutating func string(_ key: String) throws(Failure) -> String?
    /// An `http://` or `https://` URL.
    mutating func url(_ key: String) throws(Failure) -> String?
    mutating func integer(_ key: String) throws(Failure) -> Int64?
    mutating func bool(_ key: String) throws(Failure) -> Bool?
    /// A duration such as `"30s"`, `"10m"`, `"24h"` or `"7d"`.
    mutating func duration(_ key: String) throws(Failure) -> Duration?
    /// A path, relative to the config file's folder.
    mutating func path(_ key: String) throws(Failure) -> String?
    /// A credential file's path, relative to the config file's folder; a file readable by group
    /// or others is warned about.
    mutating func secretFile(_ key: String) throws(Failure) -> String?
    /// An error at `key`'s line (the table's when the key is absent) saying `message`.
    func invalid(_ key: String, _ message: String) -> Failure
}
