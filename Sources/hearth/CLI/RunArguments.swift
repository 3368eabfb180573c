import ArgumentParser
import Foundation
import Jobs
import HearthKit
import HearthStore
import HearthHost
import HearthHTTP

/// The arguments `run` and `plan` share.
struct RunArguments: ParsableArguments {
    @Argument(help: "The job to run (see `hearth list`).")
    var job: String

    @Option(help: "Logical time and start time, ISO-8601 (e.g. 2026-11-18T12:00:00Z). Default: now.")
    var now: String?

    @Option(name: .customLong("param"), help: "A job parameter, name=value (repeatable).")
    var params: [String] = []

    @Option(help: "Report format: text, json or markdown.")
    var format: OutputFormat = .text

    @Option(help: "Documents shown per collection in text and markdown reports.")
    var limit: Int = 20

    @Flag(help: "Exit 2 when the plan has changes (0 when it has none).")
    var detailedExitcode = false

    func parsedParams() throws -> [String: String] {
        var out: [String: String] = [:]
        for p in params {
            guard let eq = p.firstIndex(of: "="), eq != p.startIndex else {
                throw UsageError("--param \(p): expected name=value, e.g. --param top=50")
            }
            out[String(p[..<eq])] = String(p[p.index(after: eq)...])
        }
        return out
    }

    func parsedNow() throws -> Date? {
        guard let now else { return nil }
        guard let d = Timestamp.parseISO8601(now) else {
            throw UsageError("--now \(now): expected an ISO-8601 date-time with a zone, e.g. 2026-11-18T12:00:00Z")
        }
        return d
    }

    /// Prints a run's report; returns the exit code.
    private func report(_ outcome: RunOutcome, progress: Bool) -> ExitCode {
        if progress { emitError("\r\u{1B}[K") }
        if let error = outcome.error {
            for w in outcome.plan.warnings where format != .json { emitError("warning: \(w)\n") }
            if format == .json { emit(JSONWriter.pretty(.object(outcome.record.json)) + "\n") }
            return ExitStatus.fail(error)
        }
        switch format {
        case .text:
            for w in outcome.plan.warnings { emitError("warning: \(w)\n") }
            emit(outcome.plan.text(limit: limit, color: stdoutIsTTY))
        case .json: outcome.plan.writeJSON { emit(bytes: $0) }
        case .markdown: emit(outcome.plan.markdown(limit: limit))
        }
        if detailedExitcode, !outcome.plan.isEmpty { return ExitCode(ExitStatus.changesPresent) }
        return .success
    }

    /// Runs the job and prints its report; returns the exit code. A real run delivers the
    /// outbox afterwards unless `deliver` is false.
    func execute(global: GlobalOptions, dryRun: Bool, deliver: Bool = true) async -> ExitCode {
        do {
            let logger = try global.bootstrap()
            guard limit >= 0 else { throw UsageError("--limit must be 0 or more") }
            let params = try parsedParams()
            let now = try parsedNow()
            let config = try global.loadConfig(logger: logger)
            let store = try global.openStore(config)
            let runner = Runner(config: config, data: store, registry: JobCatalog.registry, logger: logger)
            if let pause = try? store.pauses()[job] {
                emitError("warning: \(job) is paused\(pause.note.map { " (\($0))" } ?? ""); running it by hand anyway. The daemon skips its slots until `hearth resume \(job)`.\n")
            }
            var progress: (@Sendable (Int) -> Void)?
            if stderrIsTTY {
                progress = { n in emitError("\r\u{1B}[Kread \(n) documents") }
            }
            // The run and its report, in a function of their own so that the outcome (every
            // change and message of the run) is freed before the delivery below.
            let code = try await report(runner.run(job, options: RunOptions(trigger: .cli, logicalTime: now, startTime: now, dryRun: dryRun, parameters: params, progress: progress)), progress: progress != nil)
            if !dryRun, deliver {
                // The job's HTTP client (created on first use) delivers too: one per process.
                let http = runner.environment.http ?? LazyCurlTransport(config: config.http)
                await OutboxDelivery(config: config, store: store, http: http, logger: logger).deliverAfterRun()
            }
            return code
        } catch {
            return ExitStatus.fail(error)
        }
    }
}
