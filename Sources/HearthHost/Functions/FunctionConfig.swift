package import HearthKit

/// A command job ("a function in any language", docs/functions.md): an executable named in
/// `[jobs.NAME] command = [...]`, run once per run with the protocol of docs/functions.md.
package struct FunctionConfig: Sendable, Equatable {
    package var name: String
    /// argv: `command[0]` is a path relative to the config file's directory when it contains a
    /// `/`, else looked up on `PATH`. No shell is involved.
    package var command: [String]
    /// The config file's directory: the function's working directory.
    package var directory: String
    package var summary: String
    /// Collections streamed to the function (whole collections, in id order).
    package var reads: [String]
    /// Collections the function may write (`users`, `users/*/badges`).
    package var writes: [String]
    /// Names of Hearth's environment variables the function gets (nothing else is passed
    /// but the run's context).
    package var environment: [String]
    /// After the run's timeout: SIGTERM, then SIGKILL after this long.
    package var killGrace: Duration

    package init(name: String, command: [String], directory: String, summary: String = "", reads: [String] = [], writes: [String] = [], environment: [String] = [], killGrace: Duration = .seconds(5)) {
        self.name = name
        self.command = command
        self.directory = directory
        self.summary = summary
        self.reads = reads
        self.writes = writes
        self.environment = environment
        self.killGrace = killGrace
    }

    /// The descriptor `hearth list` and the runner see: the config's `params` become the
    /// job's parameters, each with its config value as default and its type as the kind. A
    /// command job has no default triggers: only `[jobs.NAME] triggers` (among its `reads`)
    /// gives it some (docs/triggers.md#configuration).
    package func descriptor(schedule: String, params: [String: ParameterValue]) -> JobDescriptor {
        var d = JobDescriptor(
            name: name, summary: summary.isEmpty ? "command: " + command.joined(separator: " ") : summary,
            defaultSchedule: schedule, reads: reads, writes: writes, triggers: [])
        d.parameters = params.keys.sorted().map { key in
            let value = params[key]!
            let kind: ParameterKind
            switch value {
            case .integer: kind = .integer()
            case .string: kind = .string()
            case .stringList: kind = .stringList()
            case .duration: kind = .duration
            case .boolean: kind = .boolean
            }
            return ParameterSpec(key, kind, default: value, help: "from [jobs.\(name).params]")
        }
        return d
    }
}
