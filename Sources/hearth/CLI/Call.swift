import ArgumentParser
import Foundation
import Jobs
import HearthKit
import HearthStore
import HearthHost
import HearthHTTP

extension Hearth {
    /// `hearth call NAME --data JSON`: calls a callable job as an app would, from the command
    /// line (docs/callables.md#hearth-call): the plan, then the answer the endpoint would send.
    struct Call: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "call",
            abstract: "Call a callable job as an app would: its plan, then its answer ({\"result\": …} or {\"error\": …}).",
            discussion: "Exit status: 0 when the call is answered with a result, 1 when with an error (its code and HTTP status are printed).")

        // `--data` is the call's data here (as in `firebase functions:shell`), so the data
        // directory is `--data-dir`; the other global options are as everywhere.
        @Option(help: "Configuration file (default: $HEARTH_CONFIG, then ./Config/hearth.toml, then /etc/hearth/hearth.toml).")
        var config: String?

        @Option(help: "Data directory (overrides dataDir in the configuration; the other commands' --data).")
        var dataDir: String?

        @OptionGroup var logging: LoggingOptions

        /// The global options, as the other commands take them.
        private func globalOptions() throws -> GlobalOptions {
            var global = try GlobalOptions.parse([])
            (global.config, global.data, global.logging) = (config, dataDir, logging)
            return global
        }

        @Argument(help: "The callable job (see `hearth list`).")
        var job: String

        @Option(help: "The call's data, a JSON value (e.g. '{\"toUserId\": \"u2\", \"amount\": 50}').")
        var data: String = "null"

        @Option(help: "The caller's uid, as a verified ID token's `sub` would give it. Without it the call has no signed-in user.")
        var uid: String?

        @Flag(help: "Show the plan and the answer; commit nothing, send nothing.")
        var dryRun = false

        @Option(help: "Report format: text (the plan, then the answer) or json ({\"plan\": …, \"httpStatus\": N, \"answer\": …}).")
        var format: OutputFormat = .text

        @Flag(inversion: .prefixedNo, help: "Deliver the outbox right after the commit.")
        var deliver = true

        func run() async throws {
            do {
                let global = try globalOptions()
                let logger = try global.bootstrap()
                guard format != .markdown else { throw UsageError("--format \(format.rawValue): accepted: text, json") }
                guard let value = try? JSONParser.parse(Array(data.utf8)) else {
                    throw UsageError("--data: not a JSON value; quote it for the shell, e.g. --data '{\"toUserId\": \"u2\", \"amount\": 50}'")
                }
                let config = try global.loadConfig(logger: logger)
                guard let jc = config.jobs[job] else { throw UnknownJobError(name: job, known: config.jobs.keys.sorted()) }
                let call = HearthKit.Call(data: value, uid: uid, claims: uid.map { JSONObject([("sub", .string($0))]) } ?? JSONObject())
                if !jc.callable { throw UsageError("\(job) is not callable; set `callable = true` under [jobs.\(job)] to let apps call it (docs/callables.md)") }
                let answer: CallAnswer
                if let refusal = jc.refusal(of: call) {
                    answer = .error(refusal)
                    try print(plan: nil, answer)
                } else {
                    let store = try global.openStore(config)
                    let runner = Runner(config: config, data: store, registry: JobCatalog.registry, logger: logger)
                    var options = RunOptions(trigger: .call, dryRun: dryRun)
                    options.call = call
                    let outcome = try await runner.run(job, options: options)
                    answer = outcome.answer ?? .failure(outcome.record.status)
                    if let error = outcome.error { emitError("hearth: the call's run \(outcome.record.status.rawValue): \(error)\n") }
                    try print(plan: outcome.error == nil ? outcome.plan : nil, answer)
                    if !dryRun, deliver, outcome.error == nil {
                        let http = runner.environment.http ?? LazyCurlTransport(config: config.http)
                        await OutboxDelivery(config: config, store: store, http: http, logger: logger).deliverAfterRun()
                    }
                }
                if case .error = answer { throw ExitCode(ExitStatus.jobFailed) }
            } catch let code as ExitCode {
                throw code
            } catch {
                throw ExitStatus.fail(error)
            }
        }

        private func print(plan: Plan?, _ answer: CallAnswer) throws {
            switch format {
            case .json:
                var bytes = Array("{\"plan\": ".utf8)
                if let plan { plan.writeJSON { bytes += $0 } } else { bytes += Array("null".utf8) }
                bytes += Array(",\n\"httpStatus\": \(answer.httpStatus),\n\"answer\": \(JSONWriter.pretty(.object(answer.body)))}\n".utf8)
                emit(bytes: bytes)
            default:
                if let plan { emit(plan.text(limit: 20, color: stdoutIsTTY) + "\n") }
                emit("\(answer.httpStatus) \(answer.code)\n\(JSONWriter.pretty(.object(answer.body)))\n")
            }
        }
    }
}
