import ArgumentParser
import Jobs
import HearthKit
import HearthStore
import HearthSchedule
import HearthHost

extension Hearth {
    /// `hearth backfill`: runs every slot of a job's schedule in a range, in order.
    struct Backfill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backfill",
            abstract: "Run every slot of a job's schedule in [--from, --to], in order, each with its own logical time.",
            discussion: """
                Each run is recorded with trigger `backfill`. The first failing slot stops the backfill \
                (exit as for `hearth run`); the message says how to resume. With --dry-run every slot is \
                planned against the current data (earlier slots are not applied), nothing is committed.
                """)

        static let maximumSlots = 10_000

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The job (see `hearth list`).")
        var job: String

        @Option(help: "First instant, ISO-8601 (a slot exactly at it is included).")
        var from: String

        @Option(help: "Last instant, ISO-8601 (a slot exactly at it is included).")
        var to: String

        @Flag(help: "Plan every slot; commit nothing, send nothing.")
        var dryRun = false

        @Option(help: "Output format: text or json (JSON: the run records, or the plans with --dry-run).")
        var format: ListingOutputFormat = .text

        func run() async throws {
            let code = await execute()
            if code != .success { throw code }
        }

        func execute() async -> ExitCode {
            do {
                let logger = try global.bootstrap()
                guard let start = Timestamp.parseISO8601(from) else {
                    throw UsageError("--from \(from): expected an ISO-8601 date-time with a zone, e.g. 2026-11-16T00:00:00Z")
                }
                guard let end = Timestamp.parseISO8601(to) else {
                    throw UsageError("--to \(to): expected an ISO-8601 date-time with a zone, e.g. 2026-11-18T00:00:00Z")
                }
                guard start <= end else { throw UsageError("--from \(from) is after --to \(to)") }
                let config = try global.loadConfig(logger: logger)
                guard let jc = config.jobs[job] else { throw UsageError("unknown job \(JSONWriter.quoted(job)); registered jobs: \(global.registry(config, logger: logger).names.joined(separator: ", ")) (see `hearth list`)") }
                let schedule: Schedule
                do { schedule = try Schedule.configured(jc.schedule, allowSeconds: config.allowSecondIntervals) } catch {
                    throw ConfigError(file: config.file ?? "(built-in defaults)", "[jobs.\(job)] schedule: \(error)")
                }
                let slots = schedule.slots(from: start, through: end, in: jc.timeZone, limit: Self.maximumSlots + 1)
                guard slots.count <= Self.maximumSlots else {
                    throw UsageError("--from \(from) --to \(to) holds more than \(Self.maximumSlots) slots of \"\(jc.schedule)\"; backfill a shorter range at a time")
                }
                let store = try global.openStore(config)
                let runner = Runner(config: config, data: store, registry: JobCatalog.registry, logger: logger)
                _ = try runner.prepare(job, parameters: [:])
                let range = "\(Timestamp.format(start)) to \(Timestamp.format(end)), \(slots.count) slot(s)\(dryRun ? ", dry run" : "")"
                if slots.isEmpty {
                    CLIAudit.record(store, .backfill, job: job, note: range, outcome: "ok: no slots in the range")
                    if format == .json { emit("[]\n") } else {
                        emit("No slots of \"\(jc.schedule)\" (\(jc.timeZone.ianaName)) between \(Timestamp.format(start)) and \(Timestamp.format(end)).\n")
                    }
                    return .success
                }
                if format == .text {
                    emit("\(dryRun ? "Planning" : "Backfilling") \(job): \(slots.count) slot(s) of \"\(jc.schedule)\" (\(jc.timeZone.ianaName)) from \(Timestamp.format(slots[0])) to \(Timestamp.format(slots[slots.count - 1]))\(dryRun ? "; each against the current data" : "").\n")
                }
                var json: [JSONValue] = []
                for (i, slot) in slots.enumerated() {
                    let outcome = try await runner.run(job, options: RunOptions(trigger: .backfill, logicalTime: slot, dryRun: dryRun))
                    if format == .json {
                        json.append(dryRun && outcome.error == nil ? outcome.plan.json : .object(outcome.record.json))
                    } else {
                        let result = outcome.error == nil ? outcome.plan.summaryLine : outcome.record.status.rawValue
                        emit("[\(i + 1)/\(slots.count)] \(Timestamp.format(slot))  \(result)\n")
                        for w in outcome.plan.warnings { emitError("warning: \(w)\n") }
                    }
                    if let error = outcome.error {
                        if format == .json { emit(JSONWriter.pretty(.array(json)) + "\n") }
                        CLIAudit.record(store, .backfill, job: job, note: range, outcome: "failed: stopped at \(Timestamp.format(slot)) (\(i) of \(slots.count) slots done)")
                        emitError("hearth: backfill stopped at \(Timestamp.format(slot)) (\(i) of \(slots.count) slots done); fix the problem and resume with --from \(Timestamp.format(slot)) --to \(to)\n")
                        return ExitStatus.fail(error)
                    }
                }
                CLIAudit.record(store, .backfill, job: job, note: range)
                if format == .json { emit(JSONWriter.pretty(.array(json)) + "\n") }
                else { emit("\(dryRun ? "Planned" : "Backfilled") \(slots.count) slot(s).\n") }
                return .success
            } catch {
                return ExitStatus.fail(error)
            }
        }
    }
}
