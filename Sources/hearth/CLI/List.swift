import ArgumentParser
import Foundation
import Jobs
import HearthKit
import HearthStore
import HearthSchedule
import HearthHost

extension Hearth {
    /// `hearth list`: the registered jobs with schedule, zone, next run, last result and the
    /// collections whose writes start a run (docs/triggers.md).
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List jobs: name, schedule, time zone, next run (or paused), last result, triggers.")

        @OptionGroup var global: GlobalOptions

        @OptionGroup var listing: ListingFormat

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                let store = try? global.openStore(config)
                let pauses = (try? store?.pauses()) ?? [:]
                let now = Date()
                var rows: [[String]] = []
                var json: [JSONValue] = []
                for d in global.registry(config, logger: logger).descriptors {
                    guard let jc = config.jobs[d.name] else { continue }
                    let schedule = try? Schedule.configured(jc.schedule, allowSeconds: config.allowSecondIntervals)
                    let next = jc.enabled ? schedule?.nextFire(after: now, in: jc.timeZone) : nil
                    // The last real run: a dry run changes nothing, so it is never the last result.
                    let last = try store?.runRecords(job: d.name, status: nil, limit: nil).first { !$0.dryRun }
                    let lastText = last.map { "\($0.status.rawValue) at \(Timestamp.format($0.end))" } ?? "never run"
                    let pause = pauses[d.name]
                    let nextText = !jc.enabled ? "disabled" : pause != nil ? "paused" + (pause?.note.map { ": \($0)" } ?? "") : (next.map(Timestamp.format) ?? "—")
                    let calls = jc.callable ? "auth \(jc.callAuth.rawValue)" : "no"
                    rows.append([d.name, jc.schedule.isEmpty ? "none" : jc.schedule, jc.timeZone.ianaName, nextText, lastText, jc.triggers.isEmpty ? "none" : jc.triggers.joined(separator: ", "), calls])
                    var o = JSONObject([
                        ("job", .string(d.name)), ("schedule", .string(jc.schedule)), ("timeZone", .string(jc.timeZone.ianaName)),
                        ("enabled", .bool(jc.enabled)), ("summary", .string(d.summary)),
                        ("reads", .array(d.reads.map { .string($0) })), ("writes", .array(d.writes.map { .string($0) })),
                        ("triggers", .array(jc.triggers.map { .string($0) })), ("triggerDelay", .string(DurationFormat.format(jc.triggerDelay))),
                    ])
                    o["callable"] = .bool(jc.callable)
                    o["auth"] = jc.callable ? .string(jc.callAuth.rawValue) : .null
                    o["nextRun"] = next.map(Timestamp.json) ?? .null
                    o["lastRun"] = last.map { .object($0.json) } ?? .null
                    o["paused"] = pause.map { .object($0.json) } ?? .null
                    json.append(.object(o))
                }
                switch listing.format {
                case .json: emit(JSONWriter.pretty(.array(json)) + "\n")
                default: emit(Table.render(header: ["JOB", "SCHEDULE", "TIME ZONE", "NEXT RUN", "LAST RESULT", "TRIGGERS", "CALLS"], rows: rows))
                }
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
