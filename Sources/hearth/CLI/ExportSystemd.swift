import ArgumentParser
import Foundation
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth export systemd`: timer + service units per enabled job, and `hearth.service`.
    struct ExportSystemd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "systemd",
            abstract: "Write systemd units: hearth-JOB.service + hearth-JOB.timer per enabled job, and hearth.service for the daemon.",
            discussion: """
                Use either the timers or the daemon (hearth.service), not both. Under timers, systemd \
                runs a missed slot once at start (Persistent=true unless catchUp = "none"), never \
                starts a job that is still running, and does not retry; Hearth's retries, \
                overlap = "queue", catchUp = "all" and catchUpWindow apply only under the daemon.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: "Directory to write the unit files to (created if missing).")
        var out: String = "."

        @Option(help: "Absolute path of the hearth executable in the units (default: this executable).")
        var binary: String?

        @Option(help: "User= for the units (default: the owner of the data directory; never root).")
        var user: String?

        @Option(help: "Group= for the units (default: the data directory's group, unless root's).")
        var group: String?

        @Option(help: "On PostgreSQL with [store] urlEnv: the file the units load that variable from (EnvironmentFile=; root-only, mode 0600).")
        var environmentFile: String = "/etc/hearth/hearth.env"

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                _ = try SchedulerDaemon.schedules(for: config)  // a bad schedule is a configuration error (78)
                guard let file = config.file else {
                    throw UsageError("export systemd needs a configuration file for the units' --config; pass --config PATH")
                }
                let configPath = Self.absolute(file)
                let binaryPath = try binary.map { b -> String in
                    guard b.hasPrefix("/") else { throw UsageError("--binary \(b): expected an absolute path, e.g. /usr/local/bin/hearth") }
                    return b
                } ?? Self.currentExecutable()
                for (option, name) in [("--user", user), ("--group", group)] {
                    if let name, name.isEmpty || name.contains(where: { $0.isWhitespace }) {
                        throw UsageError("\(option) \(JSONWriter.quoted(name)): expected a name, e.g. hearth")
                    }
                }
                guard environmentFile.hasPrefix("/") else {
                    throw UsageError("--environment-file \(environmentFile): expected an absolute path, e.g. /etc/hearth/hearth.env")
                }
                let postgres = config.storage.kind == .postgres
                // On PostgreSQL there is no data directory to take the user from: the configuration's owner.
                let owned = postgres ? (configPath, "the configuration") : (config.dataDir, "the data directory")
                let (unitUser, unitGroup) = try Self.identity(user: user, group: group, ownedPath: owned.0, what: owned.1)
                let result = SystemdExport(binary: binaryPath, configPath: configPath, user: unitUser, group: unitGroup, environmentFile: environmentFile)
                    .generate(config: config, now: Date())

                for (job, reason) in result.unsupported {
                    emitError("warning: \(job): no exact systemd OnCalendar= for its schedule, nothing written for it: \(reason)\n")
                }
                for (job, note) in result.dstNotes {
                    emitError("note: hearth-\(job).timer: \(note)\n")
                }
                for w in result.warnings { emitError("warning: \(w)\n") }

                try FileIO.makeDirectories(out, mode: 0o755)
                let dir = Self.absolute(out)
                for unit in result.units {
                    try FileIO.writeAtomically(dir + "/" + unit.fileName, Array(unit.text.utf8), mode: 0o644)
                }
                let timers = result.units.map(\.fileName).filter { $0.hasSuffix(".timer") }
                var text = "Wrote \(result.units.count) unit file(s) to \(dir):\n"
                for unit in result.units { text += "  \(unit.fileName)\n" }
                if !result.disabled.isEmpty { text += "Disabled (not exported): \(result.disabled.joined(separator: ", "))\n" }
                text += "\nInstall them, then enable EITHER the timers:\n"
                text += "  sudo cp \(dir)/hearth*.service \(dir)/hearth*.timer /etc/systemd/system/ && sudo systemctl daemon-reload\n"
                text += "  sudo systemctl enable --now \(timers.isEmpty ? "hearth-JOB.timer" : timers.joined(separator: " "))\n"
                text += "OR the daemon (not both):\n"
                text += "  sudo systemctl enable --now hearth.service\n"
                if postgres, let name = config.storage.urlEnv {
                    text += "\nThe services read \(name) (the PostgreSQL URL) from \(environmentFile): create it, owned by root, mode 0600, with the line\n"
                    text += "  \(name)=postgresql://USER:PASSWORD@HOST/DB\n"
                } else if postgres, let file = config.storage.urlFile {
                    text += "\nThe services read the PostgreSQL URL from \(file) (urlFile): make it readable by \(unitUser) only (mode 0600).\n"
                }
                if postgres {
                    text += "Run the daemon on as many machines as you like (docs/operations/high-availability.md), but timers on one machine only: they do not claim slots.\n"
                }
                emit(text)
            } catch {
                throw ExitStatus.fail(error)
            }
        }

        /// `User=` and `Group=`: as given, else the owner and group of `ownedPath` (the data
        /// directory; on PostgreSQL the configuration). The units never run as root (a
        /// root-owned path needs `--user`).
        static func identity(user: String?, group: String?, ownedPath: String, what: String) throws -> (String, String?) {
            let st = try? FileIO.statPath(ownedPath)
            let owned = st != nil
            if user == "root" || user == "0" {
                throw UsageError("--user root: the units never run as root; pass the user that owns the apps' data (e.g. --user hearth)")
            }
            let unitUser: String
            if let user {
                unitUser = user
            } else if let st, st.uid != 0 {
                unitUser = ProcessIdentity.userName(st.uid) ?? String(st.uid)
            } else {
                throw UsageError("\(what) \(ownedPath) is \(owned ? "owned by root" : "missing"), so the units' user cannot be taken from it; pass --user NAME (the user that owns the apps' data; the units never run as root)")
            }
            if let group { return (unitUser, group) }
            guard let st, st.gid != 0 else { return (unitUser, nil) }
            return (unitUser, ProcessIdentity.groupName(st.gid) ?? String(st.gid))
        }

        static func absolute(_ path: String) -> String {
            if path.hasPrefix("/") { return FileIO.realPath(path) ?? path }
            let joined = FileManager.default.currentDirectoryPath + "/" + path
            return FileIO.realPath(joined) ?? joined
        }

        static func currentExecutable() -> String {
            if let exe = FileIO.realPath("/proc/self/exe") { return exe }
            return absolute(CommandLine.arguments[0])
        }
    }
}
