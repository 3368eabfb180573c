package import Foundation
package import Logging
package import HearthKit
package import HearthStore

/// `hearth check`: runs every job over the data as a dry run that records nothing, collecting
/// every invalid document exactly as the jobs would see it, plus files Hearth ignores.
package struct DataCheck: Sendable {
    package let config: HearthConfig
    package let data: any StorageBackend
    package let registry: JobRegistry
    package let logger: Logger

    package init(config: HearthConfig, data: any StorageBackend, registry: JobRegistry, logger: Logger) {
        self.config = config
        self.data = data
        self.registry = registry
        self.logger = logger
    }

    package struct Report: Sendable {
        package var issues: [DocumentIssue] = []
        package var ignored: [String] = []
        package var collections: [String] = []
        package var documents = 0
        package var jobErrors: [String] = []
        /// Documents in collections the jobs write whose owner or group Hearth, running as
        /// ``runningAs``, could not keep when rewriting them (a run over them fails, exit 77).
        package var unkeepable: [(file: String, owner: String)] = []
        package var runningAs = ""

        package var text: String {
            var out = ""
            for i in issues { out += "invalid: \(i)\n" }
            for f in ignored { out += "ignored: \(f) (not a .json document)\n" }
            for u in unkeepable { out += "cannot keep owner: \(u.file) is owned by \(u.owner)\n" }
            for e in jobErrors { out += "job error: \(e)\n" }
            out += "Checked \(documents) documents in \(collections.count) collections: \(issues.isEmpty ? "all valid" : "\(issues.count) invalid").\n"
            if !unkeepable.isEmpty {
                out += "\(unkeepable.count) document(s) in collections the jobs write belong to another user: Hearth, running as \(runningAs), "
                    + "cannot rewrite them keeping their owner, so runs that change them fail (exit 77). "
                    + "Run Hearth as the user that owns the data (`User=` in the systemd unit, `hearth export systemd --user NAME`).\n"
            }
            return out
        }

        package var json: JSONValue {
            .object(JSONObject([
                ("valid", .bool(issues.isEmpty)), ("documents", .int(Int64(documents))),
                ("collections", .array(collections.map { .string($0) })),
                ("invalid", .array(issues.map { i in
                    .object(JSONObject([("file", .string(i.file)), ("field", i.field.map { .string($0) } ?? .null), ("message", .string(i.message)), ("text", .string(i.description))]))
                })),
                ("ignored", .array(ignored.map { .string($0) })),
                ("cannotKeepOwner", .array(unkeepable.map { .object(JSONObject([("file", .string($0.file)), ("owner", .string($0.owner))])) })),
                ("jobErrors", .array(jobErrors.map { .string($0) })),
            ]))
        }
    }

    package func run(now: Date = Date()) async throws -> Report {
        var report = Report()
        var seen = Set<DocumentIssue>()
        let runner = Runner(config: config, data: data, registry: registry, logger: logger)
        var collections = Set<String>()
        var written = Set<String>()
        for definition in runner.registry.jobs {
            let d = definition.descriptor
            collections.formUnion(d.reads)
            if config.jobs[d.name]?.enabled == true { written.formUnion(d.writes) }
            guard let jc = config.jobs[d.name] else { continue }
            let job: any RunnableJob
            let parameters: JobParameters
            do { (job, _, _, parameters) = try runner.prepare(d.name, parameters: [:]) } catch {
                report.jobErrors.append("\(d.name): \(error)")
                continue
            }
            let ctx = JobContext(
                jobName: d.name, isDryRun: true, logicalTime: now, startTime: now, timeZone: jc.timeZone,
                parameters: parameters, store: data, policy: .skip)
            do { try await job.run(ctx) } catch is CallError where jc.callable {
                // A job that answers calls only refuses a run with no call: not an error here.
            } catch {
                report.jobErrors.append("\(d.name): \(error)")
            }
            for i in ctx.issues where seen.insert(i).inserted { report.issues.append(i) }
        }
        let inspection = try data.inspect(collections: collections, written: written)
        report.collections = inspection.collections
        report.documents = inspection.documents
        report.ignored = inspection.ignored
        report.unkeepable = inspection.unkeepable
        let me = FileOwnership.process
        report.runningAs = me.described
        report.issues.sort { $0.file < $1.file }
        return report
    }
}
