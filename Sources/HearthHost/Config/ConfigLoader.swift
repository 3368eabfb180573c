import Foundation
package import HearthKit
import HearthTOML
import HearthStore
package import HearthOutbound
import HearthHTTP

/// Reads and validates `hearth.toml` (docs/configuration.md#keys). Every key is checked; unknown keys, wrong
/// types and bad values are ``ConfigError``s naming the file, the line and what is accepted.
package struct ConfigLoader: Sendable {
    /// The registered jobs (their names, default schedules and parameters).
    package var jobs: [JobDescriptor]
    package var environment: [String: String]
    /// The push providers `[push] provider` may name; each reads its own `[push.NAME]` table.
    package var pushProviders: PushProviders

    package init(
        jobs: [JobDescriptor], environment: [String: String] = ProcessInfo.processInfo.environment, pushProviders: PushProviders = .builtIn
    ) {
        self.jobs = jobs
        self.environment = environment
        self.pushProviders = pushProviders
    }

    /// Where the config comes from: `--config`, then `$HEARTH_CONFIG`, then
    /// `./Config/hearth.toml`, then `/etc/hearth/hearth.toml`. nil: none exists.
    package func locate(explicit: String?) -> String? {
        if let explicit { return explicit }
        if let env = environment["HEARTH_CONFIG"], !env.isEmpty { return env }
        for candidate in ["Config/hearth.toml", "/etc/hearth/hearth.toml"] where FileManager.default.fileExists(atPath: candidate) {
            return candidate
        }
        return nil
    }

    /// Loads `path`; a `dataOverride` (from `--data`) replaces `dataDir`.
    package func load(path: String, dataOverride: String? = nil) throws(ConfigError) -> HearthConfig {
        guard let bytes = try? FileIO.readSmallFile(path) else {
            throw ConfigError(file: path, "cannot read the configuration file; check the path given by --config or $HEARTH_CONFIG")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(file: path, "the configuration file is not valid UTF-8")
        }
        return try parse(text, file: path, dataOverride: dataOverride)
    }

    /// The built-in defaults, for running without a config file (needs `--data`).
    package func defaults(dataDir: String) throws(ConfigError) -> HearthConfig {
        try parse("", file: "(built-in defaults)", dataOverride: dataDir)
    }

    package func parse(_ text: String, file: String, dataOverride: String? = nil) throws(ConfigError) -> HearthConfig {
        let root: TOMLTable
        do { root = try TOMLParser.parse(text, file: file) } catch {
            throw ConfigError(file: file, line: error.line, error.message)
        }
        let base = file.hasPrefix("(") ? FileManager.default.currentDirectoryPath : absolute(FileIO.directoryName(file), relativeTo: FileManager.default.currentDirectoryPath)
        var r = TableReader(table: root, file: file, context: "", baseDirectory: base)
        var config = HearthConfig(file: file.hasPrefix("(") ? nil : file, dataDir: "")

        let dataDir = try r.string("dataDir")
        if let dataOverride {
            config.dataDir = absolute(dataOverride, relativeTo: FileManager.default.currentDirectoryPath)
        } else if let dataDir {
            config.dataDir = absolute(dataDir, relativeTo: base)
        }
        if let tz = try r.timeZone("timeZone") { config.timeZone = tz }
        if let h = try r.integer("historyLimit", min: 1) { config.historyLimit = Int(h) }
        if let d = try r.duration("lockTimeout") { config.lockTimeout = d }
        if let d = try r.duration("shutdownGrace") { config.shutdownGrace = d }

        if var t = try r.table("defaults") {
            config.defaults = try readPolicy(&t, base: JobPolicy())
            try t.finish()
        }
        if var t = try r.table("notifications") {
            if let types = try t.stringArray("types") { config.notificationTypes = types }
            try t.finish()
        }
        if var t = try r.table("scheduler") {
            if let b = try t.bool("allowSecondIntervals") { config.allowSecondIntervals = b }
            try t.finish()
        }
        if var t = try r.table("outbox") {
            if let n = try t.integer("maxAttempts", min: 1) { config.outbox.maxAttempts = Int(n) }
            if let d = try t.duration("maxAge") { config.outbox.maxAge = d }
            if let n = try t.integer("concurrency", min: 1) { config.outbox.concurrency = Int(n) }
            try t.finish()
        }
        if var t = try r.table("callable") {
            if let origins = try t.stringArray("origins") { config.callableOrigins = try Self.origins(origins, line: t.table["origins"]?.line, file: file) }
            try t.finish()
        }
        if var t = try r.table("server") {
            config.server = try readServer(&t, file: file, warnings: &config.warnings)
            try t.finish()
        }
        if var t = try r.table("store") {
            if let m = try t.mode("fileMode", max: 0o777) { config.store.fileMode = m }
            if let m = try t.mode("dirMode", max: 0o7777) { config.store.dirMode = m }
            if let kind = try t.string("kind") {
                guard let k = StoreConfig.Kind(rawValue: kind) else {
                    throw ConfigError(file: file, line: t.table["kind"]?.line, "[store] kind: \(JSONWriter.quoted(kind)) is not a storage backend; accepted: \"directory\", \"postgres\"")
                }
                config.storage.kind = k
            }
            if t.table["url"] != nil {
                throw ConfigError(file: file, line: t.table["url"]?.line, "[store] url: the PostgreSQL URL holds a password and is never written in the config; put it in a file (urlFile) or an environment variable (urlEnv)")
            }
            config.storage.urlEnv = try t.string("urlEnv")
            config.storage.urlFile = try t.path("urlFile")
            if config.storage.urlEnv != nil, config.storage.urlFile != nil {
                throw ConfigError(file: file, line: t.table["urlFile"]?.line, "[store] urlEnv and urlFile are both set; keep one (the PostgreSQL URL comes from exactly one place)")
            }
            if let d = try t.duration("leaseTimeout") { config.storage.leaseTimeout = d }
            try t.finish()
        }
        // PostgreSQL keeps everything in the database: only a data directory store needs one.
        if config.dataDir.isEmpty, config.storage.kind == .directory {
            throw ConfigError(file: file, "no data directory: set dataDir in the config or pass --data DIR")
        }
        if var t = try r.table("http") {
            config.http.caFile = try t.path("caFile")
            if let d = try t.duration("connectTimeout") { config.http.connectTimeout = d }
            if let d = try t.duration("timeout") { config.http.timeout = d }
            try t.finish()
        }
        if var t = try r.table("push") {
            config.push = try readPush(&t, warnings: &config.warnings)
            try t.finish()
        }
        if let list = try r.tableArray("webhooks") {
            for var t in list {
                guard let name = try t.string("name") else { throw t.missing("name", "a short name for this endpoint") }
                guard let url = try t.url("url") else { throw t.missing("url", "the https:// URL to POST events to") }
                let w = WebhookConfig(
                    name: name, url: url, secretFile: try t.secretFile("secretFile", warnings: &config.warnings),
                    secretEnv: try t.string("secretEnv"), events: try t.stringArray("events") ?? [])
                try t.finish()
                if w.secretFile == nil, w.secretEnv == nil {
                    throw t.missing("secretFile", "a file holding the signing secret (or secretEnv, an environment variable)")
                }
                config.webhooks.append(w)
            }
        }
        config.auth = try readAuth(&r)

        // Jobs: every registered job gets a config; [jobs.NAME] must name a registered job,
        // or be a command job (it has `command`).
        var jobTables: [String: TableReader] = [:]
        var allJobs = jobs
        if var t = try r.table("jobs") {
            for key in t.table.keys.sorted() {
                guard var table = try t.table(key) else { continue }
                if table.table["command"] != nil {
                    guard !jobs.contains(where: { $0.name == key }) else {
                        throw ConfigError(file: file, line: table.table["command"]?.line, "[jobs.\(key)] command: \(key) is a built-in job; give the command job another name")
                    }
                    let (function, descriptor) = try readFunction(key, &table, file: file, base: base)
                    config.functions[key] = function
                    allJobs.append(descriptor)
                } else if !jobs.contains(where: { $0.name == key }) {
                    throw ConfigError(file: file, line: t.table[key]?.line, "unknown job \(JSONWriter.quoted(key)) in [jobs]; registered jobs: \(jobs.map(\.name).joined(separator: ", ")) (a command job needs `command`, see docs/functions.md)")
                }
                jobTables[key] = table
            }
            t.consumeAll()
        }
        for job in allJobs {
            var jc = JobConfig(name: job.name, schedule: job.defaultSchedule, timeZone: config.timeZone, policy: config.defaults, triggers: job.triggers)
            (jc.callable, jc.callAuth) = (job.callable, job.callAuth)
            if var t = jobTables[job.name] {
                if let s = try t.string("schedule") { jc.schedule = s }
                if let tz = try t.timeZone("timeZone") { jc.timeZone = tz }
                if let e = try t.bool("enabled") { jc.enabled = e }
                jc.pingURL = try t.url("pingUrl")
                if let n = t.node("triggers") { jc.triggers = try Self.triggers(n, of: job, file: file) }
                if let d = try t.duration("triggerDelay") { jc.triggerDelay = d }
                try Self.readCallable(&t, into: &jc, file: file)
                jc.policy = try readPolicy(&t, base: config.defaults)
                if var p = try t.table("params") {
                    for key in p.table.keys {
                        guard let spec = job.parameters.first(where: { $0.name == key }) else {
                            throw ConfigError(file: file, line: p.table[key]?.line, "unknown parameter \(JSONWriter.quoted(key)) for job \(job.name); it takes: \(job.parameters.map(\.name).joined(separator: ", "))")
                        }
                        let node = p.table[key]!
                        let raw = try Self.parameterValue(node, at: "[jobs.\(job.name).params] \(key)", expected: spec.kind.accepted, file: file)
                        do { jc.params[key] = try spec.validate(raw) } catch {
                            throw ConfigError(file: file, line: node.line, "[jobs.\(job.name).params] \(key): invalid value \(JSONWriter.quoted(raw.description)); accepted: \(spec.kind.accepted)")
                        }
                    }
                    p.consumeAll()
                }
                try t.finish()
            }
            config.jobs[job.name] = jc
        }
        try r.finish()
        return config
    }

    /// A command job's own keys (docs/functions.md#configuration); the keys every job has
    /// (`schedule`, `params`, …) are read after, as for any job. Its parameters are its
    /// `params`, typed by their config values.
    private func readFunction(_ name: String, _ t: inout TableReader, file: String, base: String) throws(ConfigError) -> (FunctionConfig, JobDescriptor) {
        guard name.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }), !name.isEmpty, name.count <= 64 else {
            throw ConfigError(file: file, line: t.table["command"]?.line, "[jobs.\(name)]: a command job's name must be 1–64 characters from a–z, 0–9 and -")
        }
        guard let command = try t.stringArray("command"), let first = command.first, !first.isEmpty else {
            throw t.missing("command", "the executable and its arguments, e.g. [\"python3\", \"functions/expire_gigs.py\"]")
        }
        // A callable one may have no schedule: calls start it (docs/functions.md#callable-command-jobs).
        let callable: Bool = if case .boolean(true)? = t.table["callable"]?.value { true } else { false }
        guard t.table["schedule"] != nil || callable else {
            throw t.missing("schedule", "when the command job runs, e.g. \"0 * * * *\" (or `callable = true` with no schedule: apps call it)")
        }
        var f = FunctionConfig(name: name, command: command, directory: base)
        f.summary = try t.string("summary") ?? ""
        f.reads = try t.stringArray("reads") ?? []
        f.writes = try t.stringArray("writes") ?? []
        f.environment = try t.stringArray("env") ?? []
        if let g = try t.duration("killGrace") { f.killGrace = g }
        for c in f.reads where !Self.isCollectionPath(c, wildcard: false) {
            throw ConfigError(file: file, line: t.table["reads"]?.line, "[jobs.\(name)] reads: \(JSONWriter.quoted(c)) is not a collection path (\"gigs\", or \"users/u1/badges\")")
        }
        for c in f.writes where !Self.isCollectionPath(c, wildcard: true) {
            throw ConfigError(file: file, line: t.table["writes"]?.line, "[jobs.\(name)] writes: \(JSONWriter.quoted(c)) is not a collection pattern (\"gigs\", or \"users/*/badges\")")
        }
        for e in f.environment where e.hasPrefix("HEARTH_") {
            throw ConfigError(file: file, line: t.table["env"]?.line, "[jobs.\(name)] env: \(e): HEARTH_ variables are Hearth's own; the function gets the run's context in HEARTH_* and on stdin")
        }
        // The params' types come from their values; checked against themselves later.
        var params: [String: ParameterValue] = [:]
        if let p = t.table["params"], case .table(let pt) = p.value {
            for key in pt.keys {
                guard let node = pt[key] else { continue }
                params[key] = try Self.parameterValue(node, at: "[jobs.\(name).params] \(key)", expected: "an integer, a string, true or false, or a list of strings", file: file)
            }
        }
        return (f, f.descriptor(schedule: "", params: params))
    }

    /// `[jobs.NAME] triggers` (docs/triggers.md#configuration): collections the job reads, each
    /// listed once; `[]` turns triggers off. A collection the job does not read is an error at
    /// its own line: a write there cannot change what the job does.
    static func triggers(_ node: TOMLNode, of job: JobDescriptor, file: String) throws(ConfigError) -> [String] {
        let key = "[jobs.\(job.name)] triggers"
        guard case .array(let items) = node.value else {
            throw ConfigError(file: file, line: node.line, "\(key): expected an array of collection names, e.g. [\"transactions\"] ([] turns triggers off), found \(node.value.typeName)")
        }
        var out: [String] = []
        for item in items {
            guard case .string(let c) = item.value else {
                throw ConfigError(file: file, line: item.line, "\(key): expected an array of collection names, found \(item.value.typeName) in it")
            }
            guard job.reads.contains(c) else {
                let reads = job.reads.isEmpty ? "it reads none (list them in reads)" : "it reads: \(job.reads.joined(separator: ", "))"
                throw ConfigError(file: file, line: item.line, "\(key): \(JSONWriter.quoted(c)) is not a collection \(job.name) reads, so a write there cannot change what it does; \(reads)")
            }
            guard !out.contains(c) else {
                throw ConfigError(file: file, line: item.line, "\(key): \(JSONWriter.quoted(c)) is listed twice")
            }
            out.append(c)
        }
        return out
    }

    /// A `params` value as the parameter it can be (its type checked against a declaration
    /// afterwards): an integer, a string, a boolean or a list of strings.
    static func parameterValue(_ node: TOMLNode, at key: String, expected: String, file: String) throws(ConfigError) -> ParameterValue {
        switch node.value {
        case .integer(let i): return .integer(i)
        case .string(let s): return .string(s)
        case .boolean(let b): return .boolean(b)
        case .array(let items):
            var l: [String] = []
            for i in items {
                guard case .string(let s) = i.value else {
                    throw ConfigError(file: file, line: i.line, "\(key): expected \(expected)")
                }
                l.append(s)
            }
            return .stringList(l)
        default:
            throw ConfigError(file: file, line: node.line, "\(key): expected \(expected), found \(node.value.typeName)")
        }
    }

    /// `gigs`, `users/u1/badges`; with `wildcard`, `users/*/badges` too.
    static func isCollectionPath(_ s: String, wildcard: Bool) -> Bool {
        let parts = s.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count % 2 == 1 else { return false }
        return parts.enumerated().allSatisfy { i, p in
            (wildcard && i % 2 == 1 && p == "*") || DocumentPath.isValid(name: p)
        }
    }

    private func readPolicy(_ t: inout TableReader, base: JobPolicy) throws(ConfigError) -> JobPolicy {
        var p = base
        if let d = try t.duration("timeout") { p.timeout = d }
        if let n = try t.integer("retries", min: 0, max: 100) { p.retries = Int(n) }
        if var b = try t.table("backoff") {
            if let d = try b.duration("min") { p.backoffMin = d }
            if let d = try b.duration("max") { p.backoffMax = d }
            try b.finish()
            if p.backoffMax < p.backoffMin {
                throw ConfigError(file: t.file, line: b.table.line, "backoff.max (\(DurationFormat.format(p.backoffMax))) is less than backoff.min (\(DurationFormat.format(p.backoffMin)))")
            }
        }
        if let s = try t.choice("overlap", JobPolicy.Overlap.self) { p.overlap = s }
        if let s = try t.choice("catchUp", JobPolicy.CatchUp.self) { p.catchUp = s }
        if let d = try t.duration("catchUpWindow") { p.catchUpWindow = d }
        if let d = try t.duration("jitter") { p.jitter = d }
        if let s = try t.choice("onInvalidDocument", InvalidDocumentPolicy.self) { p.onInvalidDocument = s }
        if let n = try t.integer("pauseAfterFailures", min: 1, max: 1000) { p.pauseAfterFailures = Int(n) }
        return p
    }

    /// `[server]` (docs/operations/monitoring.md#the-endpoint): a loopback `listen` address
    /// needs nothing more; any other needs a token (`tokenFile`, `tokenEnv` or
    /// `[[server.tokens]]`, docs/operations/monitoring.md#tokens-and-roles).
    private func readServer(_ t: inout TableReader, file: String, warnings: inout [String]) throws(ConfigError) -> ServerConfig? {
        let tokenFile = try t.secretFile("tokenFile", warnings: &warnings)
        let tokenEnv = try t.string("tokenEnv")
        let healthNeedsToken = try t.bool("healthNeedsToken") ?? false
        var tokens: [ServerConfig.TokenSpec] = []
        for var e in try t.tableArray("tokens") ?? [] {
            let at = e.table.line
            guard let name = try e.string("name") else { throw e.missing("name", "a short name for this token, shown in the audit log (e.g. \"ops\")") }
            guard !name.isEmpty, name.utf8.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.@".contains($0) }) else {
                throw ConfigError(file: file, line: e.table["name"]?.line ?? at, "[[server.tokens]] name = \(JSONWriter.quoted(name)): use 1–64 letters, digits, - _ . or @")
            }
            guard !tokens.contains(where: { $0.name == name }) else {
                throw ConfigError(file: file, line: e.table["name"]?.line ?? at, "[[server.tokens]] name = \(JSONWriter.quoted(name)) is used twice; give each token its own name")
            }
            let tokenFile = try e.secretFile("file", warnings: &warnings)
            let tokenEnv = try e.string("env")
            guard (tokenFile == nil) != (tokenEnv == nil) else {
                throw ConfigError(file: file, line: at, "[[server.tokens]] \(name): set exactly one of file (a file holding the token) or env (an environment variable holding it)")
            }
            guard let roleText = try e.string("role") else {
                throw e.missing("role", "\"read\" (pages, metrics) or \"operate\" (also run, pause, resume, retry)")
            }
            guard let role = ServerConfig.Role(rawValue: roleText) else {
                throw ConfigError(file: file, line: e.table["role"]?.line ?? at, "[[server.tokens]] \(name): role = \(JSONWriter.quoted(roleText)); accepted: \"read\" or \"operate\"")
            }
            try e.finish()
            tokens.append(ServerConfig.TokenSpec(name: name, file: tokenFile, env: tokenEnv, role: role, line: at))
        }
        guard let listen = try t.string("listen") else {
            throw t.missing("listen", "the address the daemon's HTTP endpoint listens on, e.g. \"127.0.0.1:9464\"")
        }
        let line = t.table["listen"]?.line
        guard let (host, port) = ServerConfig.parseListen(listen) else {
            throw ConfigError(file: file, line: line, "[server] listen: invalid value \(JSONWriter.quoted(listen)); expected HOST:PORT, e.g. \"127.0.0.1:9464\" or \"[::1]:9464\" (port 0–65535)")
        }
        let server = ServerConfig(host: host, port: port, tokenFile: tokenFile, tokenEnv: tokenEnv, tokens: tokens, healthNeedsToken: healthNeedsToken)
        if !server.isLoopback, !server.hasTokens {
            throw ConfigError(file: file, line: line, "[server] listen = \(JSONWriter.quoted(listen)) is not a loopback address, and no token is set: anyone who can reach it could read the status page and the metrics. Set [server] tokenFile (a file holding a bearer token) or tokenEnv (an environment variable), add [[server.tokens]], or listen on 127.0.0.1")
        }
        return server
    }

    /// `[push]`: `provider` is one of the registry's names (or `none`); each registered
    /// provider reads its own `[push.NAME]` table, whichever is chosen; the chosen one must have
    /// what it needs.
    private func readPush(_ t: inout TableReader, warnings: inout [String]) throws(ConfigError) -> PushConfig {
        var p = PushConfig(registry: pushProviders)
        if let name = try t.oneOf("provider", pushProviders.names) {
            p.provider = pushProviders.entry(named: name)?.kind ?? .none
        }
        for entry in pushProviders.entries {
            guard let reader = try t.table(entry.kind.name) else { continue }
            var table = PushTable(reader: reader, warnings: warnings)
            p.set(try Self.read(entry, from: &table))
            try table.reader.finish()
            warnings = table.warnings
        }
        if let missing = p.settings(named: p.provider.name)?.missing {
            throw ConfigError(file: t.file, line: t.table.line, "[push] provider = \(JSONWriter.quoted(p.provider.name)) needs \(missing)")
        }
        return p
    }

    private static func read<Settings: PushProviderSettings>(_: Settings.Type, from table: inout PushTable) throws(ConfigError) -> Settings {
        try Settings(table: &table)
    }
}

func absolute(_ path: String, relativeTo base: String) -> String {
    if path.hasPrefix("/") { return path }
    var parts = base.split(separator: "/").map(String.init)
    for c in path.split(separator: "/") {
        if c == "." { continue }
        if c == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
        parts.append(String(c))
    }
    return "/" + parts.joined(separator: "/")
}
