import ArgumentParser
import Foundation
import HearthKit
import HearthStore
import HearthSchedule
import HearthOutbound
import HearthHost
import HearthHTTP

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

        @Option(help: "User= for the units (default: none, i.e. root).")
        var user: String?

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
                if let user, user.isEmpty || user.contains(where: { $0.isWhitespace }) {
                    throw UsageError("--user \(JSONWriter.quoted(user)): expected a user name, e.g. hearth")
                }
                let result = SystemdExport(binary: binaryPath, configPath: configPath, user: user).generate(config: config, now: Date())

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
                emit(text)
            } catch {
                throw ExitStatus.fail(error)
            }
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
