import ArgumentParser
import Jobs
import HearthKit
import HearthSchedule
import HearthHost

extension Hearth {
    /// `hearth check`: validates the configuration, every schedule, and every document the
    /// jobs read (by running each job as a dry run that records nothing); lists each job's
    /// triggers (docs/triggers.md).
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate the configuration and every document the jobs read (exit 65 if a document is invalid, 77 if Hearth cannot keep the owner of documents the jobs write).")

        @OptionGroup var global: GlobalOptions

        @OptionGroup var listing: ListingFormat

        /// The callable jobs that need an ID token while `[auth]` is absent: every call to them is
        /// answered `401 UNAUTHENTICATED` (docs/callables.md#id-tokens). Nil: none.
        static func callsWithoutKeys(_ config: HearthConfig) -> String? {
            guard config.auth == nil else { return nil }
            let names = config.jobs.values.filter { $0.callable && $0.enabled && $0.callAuth == .required }.map(\.name).sorted()
            guard !names.isEmpty else { return nil }
            return "no [auth]: calls to \(names.joined(separator: ", ")) are answered 401 UNAUTHENTICATED until [auth] names where the apps' ID-token keys are (docs/callables.md#id-tokens)"
        }

        func run() async throws {
            try await global.withStore(listing: listing) { logger, config, data in
                for (name, jc) in config.jobs.sorted(by: { $0.key < $1.key }) {
                    do { _ = try Schedule.configured(jc.schedule, allowSeconds: config.allowSecondIntervals) } catch {
                        throw ConfigError(file: config.file ?? "config", "[jobs.\(name)] schedule: \(error)")
                    }
                }
                let report = try await DataCheck(config: config, data: data, registry: JobCatalog.registry, logger: logger).run()
                let jobs = config.jobs.sorted { $0.key < $1.key }
                switch listing.format {
                case .json:
                    var o = report.json.objectValue ?? JSONObject()
                    o["triggers"] = .object(JSONObject(jobs.map { name, jc in
                        (name, .object(JSONObject([
                            ("collections", .array(jc.triggers.map { .string($0) })), ("triggerDelay", .string(DurationFormat.format(jc.triggerDelay))),
                        ])))
                    }))
                    o["callable"] = .object(JSONObject(jobs.filter { $0.value.callable }.map { name, jc in (name, .object(JSONObject([("auth", .string(jc.callAuth.rawValue))]))) }))
                    emit(JSONWriter.pretty(.object(o)) + "\n")
                default:
                    let triggers = jobs.map { name, jc in
                        "triggers: \(name): " + (jc.triggers.isEmpty ? "none" : "\(jc.triggers.joined(separator: ", ")) (triggerDelay \(DurationFormat.format(jc.triggerDelay)))") + "\n"
                    }
                    var calls = jobs.filter { $0.value.callable }.map { name, jc in "calls: \(name): auth \(jc.callAuth.rawValue)\n" }
                    if let unchecked = Self.callsWithoutKeys(config) { calls.append("calls: \(unchecked)\n") }
                    emit(triggers.joined() + calls.joined() + report.text)
                }
                if !report.issues.isEmpty { throw ExitCode(ExitStatus.dataError) }
                if !report.unkeepable.isEmpty { throw ExitCode(ExitStatus.noPermission) }
            }
        }
    }
}
