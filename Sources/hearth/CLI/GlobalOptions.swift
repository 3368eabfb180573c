import ArgumentParser
import Foundation
import Jobs
import Logging
import HearthKit
import HearthStore
import HearthHost

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: "Configuration file (default: $HEARTH_CONFIG, then ./Config/hearth.toml, then /etc/hearth/hearth.toml).")
    var config: String?

    @Option(help: "Data directory (overrides dataDir in the configuration).")
    var data: String?

    @OptionGroup var logging: LoggingOptions

    /// Sets up logging; call first in every command.
    func bootstrap() throws -> Logger {
        try logging.bootstrap()
    }

    /// The compiled-in jobs and the config's command jobs.
    func registry(_ config: HearthConfig, logger: Logger) -> JobRegistry {
        JobCatalog.registry.including(config, logger: logger)
    }

    /// The configuration, with `--data` applied. Without any config file, `--data` alone
    /// gives the built-in defaults.
    func loadConfig(logger: Logger) throws -> HearthConfig {
        let loader = ConfigLoader(jobs: JobCatalog.registry.descriptors)
        let loaded: HearthConfig
        if let path = loader.locate(explicit: config) {
            loaded = try loader.load(path: path, dataOverride: data)
        } else if let data {
            loaded = try loader.defaults(dataDir: data)
        } else {
            throw ConfigError(file: "hearth.toml", "no configuration found (looked at --config, $HEARTH_CONFIG, ./Config/hearth.toml, /etc/hearth/hearth.toml); pass --config PATH or --data DIR")
        }
        for w in loaded.warnings { logger.warning("\(w)") }
        return loaded
    }

    /// The configured storage backend (docs/configuration.md#store).
    func openStore(_ config: HearthConfig) throws -> any StorageBackend {
        try config.openStore()
    }
}

/// `--log-level` and `--log-format`: every command's, `hearth call`'s included (whose `--data`
/// is the call's, so it takes these without ``GlobalOptions``).
struct LoggingOptions: ParsableArguments {
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "notice"

    @Option(help: "Log format: text or json (JSON lines for journald and log shippers).")
    var logFormat: String = "text"

    /// Sets up logging; call first in every command.
    func bootstrap() throws -> Logger {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw UsageError("--log-level: invalid value \"\(logLevel)\"; accepted: trace, debug, info, notice, warning, error, critical")
        }
        guard let format = HearthLogHandler.Format(rawValue: logFormat) else {
            throw UsageError("--log-format: invalid value \"\(logFormat)\"; accepted: text, json")
        }
        LoggingBootstrap.once(level: level, format: format)
        return Logger(label: "hearth")
    }
}

/// A command-line usage problem (exit 64).
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

enum LoggingBootstrap {
    nonisolated(unsafe) private static var done = false
    /// Logging is bootstrapped once per process, before any concurrency starts.
    static func once(level: Logger.Level, format: HearthLogHandler.Format) {
        guard !done else { return }
        done = true
        LoggingSystem.bootstrap { HearthLogHandler(label: $0, level: level, format: format) }
    }
}
