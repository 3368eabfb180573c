import ArgumentParser
import Foundation
import Jobs
import HearthKit
import HearthSchedule
import HearthHost

extension Hearth {
    /// `hearth next`: upcoming fire times.
    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "next",
            abstract: "Show upcoming fire times (strictly after --from, default now) in the job's zone and in UTC.",
            discussion: """
                JSON: [{"job": NAME, "timeZone": ZONE, "times": ["2026-11-23T06:05:00.000Z", …]}] \
                (times in UTC). Without JOB: every enabled job.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Only this job (also when it is disabled).")
        var job: String?

        @Option(help: "How many fire times per job.")
        var count: Int = 5

        @Option(help: "Times strictly after this ISO-8601 instant (default: now), e.g. 2026-11-18T12:00:00Z.")
        var from: String?

        @OptionGroup var listing: ListingFormat

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                guard (1...10_000).contains(count) else { throw UsageError("--count \(count): expected 1 to 10000") }
                var start = Date()
                if let from {
                    guard let d = Timestamp.parseISO8601(from) else {
                        throw UsageError("--from \(from): expected an ISO-8601 date-time with a zone, e.g. 2026-11-18T12:00:00Z")
                    }
                    start = d
                }
                let config = try global.loadConfig(logger: logger)
                let registry = global.registry(config, logger: logger)
                var names = registry.names.filter { config.jobs[$0]?.enabled == true }
                if let job {
                    guard config.jobs[job] != nil else { throw UsageError("unknown job \(JSONWriter.quoted(job)); registered jobs: \(registry.names.joined(separator: ", ")) (see `hearth list`)") }
                    names = [job]
                }
                var json: [JSONValue] = []
                var text = ""
                for name in names {
                    guard let jc = config.jobs[name] else { continue }
                    let schedule: Schedule
                    do { schedule = try Schedule.configured(jc.schedule, allowSeconds: config.allowSecondIntervals) } catch {
                        throw ConfigError(file: config.file ?? "(built-in defaults)", "[jobs.\(name)] schedule: \(error)")
                    }
                    let times = schedule.fireTimes(after: start, in: jc.timeZone, count: count)
                    json.append(.object(JSONObject([
                        ("job", .string(name)), ("timeZone", .string(jc.timeZone.ianaName)),
                        ("times", .array(times.map(Timestamp.json))),
                    ])))
                    if !text.isEmpty { text += "\n" }
                    text += "\(name): \(jc.schedule) in \(jc.timeZone.ianaName)\(jc.enabled ? "" : " (disabled: the daemon does not run it)")\n"
                    if times.isEmpty { text += "  no fire time within 50 years\n" }
                    for t in times { text += "  \(LocalTime.format(t, in: jc.timeZone))   \(Timestamp.format(t))\n" }
                }
                emit(listing.format == .json ? JSONWriter.pretty(.array(json)) + "\n" : text)
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
