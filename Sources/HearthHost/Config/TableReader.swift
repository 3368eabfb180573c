import Foundation
import HearthKit
import HearthTOML
import HearthStore

/// Reads typed keys from one TOML table and remembers which were read, so that
/// ``finish()`` can reject the rest as unknown keys, with their lines.
struct TableReader {
    let table: TOMLTable
    let file: String
    /// Dotted name of this table, for messages (`defaults.backoff`).
    let context: String
    let baseDirectory: String
    private var used: Set<String> = []

    init(table: TOMLTable, file: String, context: String, baseDirectory: String) {
        self.table = table
        self.file = file
        self.context = context
        self.baseDirectory = baseDirectory
    }

    private func name(_ key: String) -> String { context.isEmpty ? key : "\(context).\(key)" }

    private func typeError(_ key: String, _ node: TOMLNode, expected: String) -> ConfigError {
        ConfigError(file: file, line: node.line, "\(name(key)): expected \(expected), found \(node.value.typeName)")
    }

    func missing(_ key: String, _ what: String) -> ConfigError {
        ConfigError(file: file, line: table.line, "\(name(key)) is required: \(what)")
    }

    mutating func node(_ key: String) -> TOMLNode? {
        used.insert(key)
        return table[key]
    }

    mutating func consumeAll() { used.formUnion(table.keys) }

    /// Rejects keys nobody read.
    func finish() throws(ConfigError) {
        for key in table.keys where !used.contains(key) {
            if Self.inlineSecretKeys.contains(key), let n = table[key] { throw inlineSecret(key, n) }
            let known = used.sorted().joined(separator: ", ")
            throw ConfigError(file: file, line: table[key]?.line, "unknown key \(JSONWriter.quoted(name(key)))\(known.isEmpty ? "" : "; accepted here: \(known)")")
        }
    }

    mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let n = node(key) else { return nil }
        guard case .string(let s) = n.value else { throw typeError(key, n, expected: "a string") }
        if Self.inlineSecretKeys.contains(key) { throw inlineSecret(key, n) }
        return s
    }

    static let inlineSecretKeys: Set<String> = ["secret", "privateKey", "serverKey", "token", "password", "apiKey", "key"]

    private func inlineSecret(_ key: String, _ n: TOMLNode) -> ConfigError {
        ConfigError(file: file, line: n.line, "\(name(key)): secrets are never written in the config; put it in a file (\(key)File) or an environment variable (\(key)Env)")
    }

    mutating func integer(_ key: String, min: Int64? = nil, max: Int64? = nil) throws(ConfigError) -> Int64? {
        guard let n = node(key) else { return nil }
        guard case .integer(let i) = n.value else { throw typeError(key, n, expected: "an integer") }
        if let min, i < min { throw ConfigError(file: file, line: n.line, "\(name(key)): \(i) is too small; the minimum is \(min)") }
        if let max, i > max { throw ConfigError(file: file, line: n.line, "\(name(key)): \(i) is too large; the maximum is \(max)") }
        return i
    }

    /// A file mode: an octal string (`"0644"`) or a TOML octal integer (`0o644`), at most `max`.
    mutating func mode(_ key: String, max: UInt32) throws(ConfigError) -> UInt32? {
        guard let n = node(key) else { return nil }
        let value: UInt32?
        switch n.value {
        case .string(let s): value = s.isEmpty || s.count > 5 ? nil : UInt32(s, radix: 8)
        case .integer(let i): value = (0...Int64(max)).contains(i) ? UInt32(i) : nil
        default: value = nil
        }
        guard let value, value <= max else {
            let maxText = "0" + String(max, radix: 8)
            throw ConfigError(file: file, line: n.line, "\(name(key)): expected a file mode like \"0644\" (an octal string) or 0o644, at most \(maxText), found \(Self.show(n.value))")
        }
        return value
    }

    mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let n = node(key) else { return nil }
        guard case .boolean(let b) = n.value else { throw typeError(key, n, expected: "true or false") }
        return b
    }

    mutating func duration(_ key: String) throws(ConfigError) -> Duration? {
        guard let n = node(key) else { return nil }
        guard case .string(let s) = n.value, let d = DurationFormat.parse(s) else {
            throw ConfigError(file: file, line: n.line, "\(name(key)): expected a duration string like \"30s\", \"10m\", \"24h\" or \"7d\", found \(Self.show(n.value))")
        }
        return d
    }

    mutating func timeZone(_ key: String) throws(ConfigError) -> TimeZone? {
        guard let s = try string(key) else { return nil }
        guard let tz = TimeZone(identifier: s), s == "UTC" || s.contains("/") || tz.identifier == s else {
            throw ConfigError(file: file, line: table[key]?.line, "\(name(key)): unknown time zone \(JSONWriter.quoted(s)); use an IANA name like \"UTC\", \"America/Chicago\" or \"Europe/Berlin\"")
        }
        return tz
    }

    mutating func choice<E: RawRepresentable & CaseIterable>(_ key: String, _: E.Type) throws(ConfigError) -> E? where E.RawValue == String {
        guard let s = try oneOf(key, E.allCases.map(\.rawValue)) else { return nil }
        return E(rawValue: s)
    }

    /// A string that is one of `accepted`.
    mutating func oneOf(_ key: String, _ accepted: [String]) throws(ConfigError) -> String? {
        guard let s = try string(key) else { return nil }
        guard accepted.contains(s) else {
            throw ConfigError(file: file, line: table[key]?.line, "\(name(key)): invalid value \(JSONWriter.quoted(s)); accepted: \(accepted.map { JSONWriter.quoted($0) }.joined(separator: ", "))")
        }
        return s
    }

    mutating func stringArray(_ key: String) throws(ConfigError) -> [String]? {
        guard let n = node(key) else { return nil }
        guard case .array(let items) = n.value else { throw typeError(key, n, expected: "an array of strings") }
        var out: [String] = []
        for i in items {
            guard case .string(let s) = i.value else { throw typeError(key, i, expected: "an array of strings") }
            out.append(s)
        }
        return out
    }

    mutating func url(_ key: String) throws(ConfigError) -> String? {
        guard let s = try string(key) else { return nil }
        guard s.hasPrefix("https://") || s.hasPrefix("http://"), s.count > 8 else {
            throw ConfigError(file: file, line: table[key]?.line, "\(name(key)): expected an http:// or https:// URL, found \(JSONWriter.quoted(s))")
        }
        return s
    }

    /// A path, relative to the config file's directory.
    mutating func path(_ key: String) throws(ConfigError) -> String? {
        guard let s = try string(key) else { return nil }
        return absolute(s, relativeTo: baseDirectory)
    }

    /// A secret file's path; warns when it is readable by group or others.
    mutating func secretFile(_ key: String, warnings: inout [String]) throws(ConfigError) -> String? {
        guard let p = try path(key) else { return nil }
        if let st = try? FileIO.statPath(p) {
            if st.mode & 0o044 != 0 {
                warnings.append("\(file): \(name(key)) \(p) is readable by group or others; restrict it with `chmod 600 \(p)`")
            }
        }
        return p
    }

    mutating func table(_ key: String) throws(ConfigError) -> TableReader? {
        guard let n = node(key) else { return nil }
        guard case .table(let t) = n.value else { throw typeError(key, n, expected: "a table ([\(name(key))])") }
        return TableReader(table: t, file: file, context: name(key), baseDirectory: baseDirectory)
    }

    mutating func tableArray(_ key: String) throws(ConfigError) -> [TableReader]? {
        guard let n = node(key) else { return nil }
        guard case .array(let items) = n.value else { throw typeError(key, n, expected: "an array of tables ([[\(name(key))]])") }
        var out: [TableReader] = []
        for i in items {
            guard case .table(let t) = i.value else { throw typeError(key, i, expected: "an array of tables ([[\(name(key))]])") }
            out.append(TableReader(table: t, file: file, context: name(key), baseDirectory: baseDirectory))
        }
        return out
    }

    static func show(_ v: TOMLValue) -> String {
        switch v {
        case .string(let s): return JSONWriter.quoted(s)
        case .integer(let i): return "integer \(i)"
        default: return v.typeName
        }
    }
}
