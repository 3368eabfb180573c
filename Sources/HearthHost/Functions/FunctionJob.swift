import Foundation
package import HearthKit
package import Logging
import Synchronization

/// A command job's run (docs/functions.md): starts the executable, streams it the run's
/// context and the documents of its `reads`, and turns each line it prints into the same
/// changeset, outbox messages and warnings a compiled-in job would record. The runner then
/// plans or commits that changeset as for any job; a protocol error, a non-zero exit or the
/// timeout fails the run before anything is committed.
package struct FunctionJob: RunnableJob {
    package static let protocolVersion = "hearth-function/1"
    /// Documents per chunk read, encoded and written to the function's stdin.
    static let chunkSize = 1024

    let config: FunctionConfig
    let executable: String
    let parameters: JobParameters
    let environment: JobEnvironment
    let logger: Logger
    /// Hearth's own environment, from which only the names in `config.environment` pass.
    let hostEnvironment: [String: String]

    package init(config: FunctionConfig, parameters: JobParameters, environment: JobEnvironment, hostEnvironment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) throws(JobSetupError) {
        self.config = config
        self.parameters = parameters
        self.environment = environment
        self.hostEnvironment = hostEnvironment
        self.logger = logger
        guard let first = config.command.first, !first.isEmpty else {
            throw JobSetupError("[jobs.\(config.name)] command is empty; give the executable and its arguments, e.g. [\"python3\", \"functions/x.py\"]")
        }
        guard let path = Self.resolve(first, directory: config.directory, path: hostEnvironment["PATH"]) else {
            throw JobSetupError("[jobs.\(config.name)] command: \(JSONWriter.quoted(first)) is not an executable file" + (first.contains("/") ? " (relative to \(config.directory))" : " on PATH") + "; fix `command`")
        }
        executable = path
    }

    /// `name` relative to `directory` when it has a `/`, else the first match on `path`.
    static func resolve(_ name: String, directory: String, path: String?) -> String? {
        if name.contains("/") {
            let full = name.hasPrefix("/") ? name : directory + "/" + name
            return FileManager.default.isExecutableFile(atPath: full) ? full : nil
        }
        for dir in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let full = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: full) { return full }
        }
        return nil
    }

    /// The function's whole environment: the names the config lists, then the context.
    func childEnvironment(_ context: JobContext) -> [String: String] {
        var env: [String: String] = ["PATH": "/usr/local/bin:/usr/bin:/bin"]
        for name in config.environment { if let v = hostEnvironment[name] { env[name] = v } }
        env["HEARTH_PROTOCOL"] = Self.protocolVersion
        env["HEARTH_JOB"] = context.jobName
        env["HEARTH_RUN_ID"] = context.runID
        env["HEARTH_LOGICAL_TIME"] = Timestamp.format(context.logicalTime)
        env["HEARTH_START_TIME"] = Timestamp.format(context.startTime)
        env["HEARTH_TIME_ZONE"] = context.timeZone.ianaName
        env["HEARTH_DRY_RUN"] = context.isDryRun ? "1" : "0"
        return env
    }

    /// The first line on stdin: the run's context.
    func contextLine(_ context: JobContext) -> [UInt8] {
        var params: [(String, JSONValue)] = []
        for key in parameters.values.keys.sorted() {
            let v: JSONValue
            switch parameters.values[key]! {
            case .integer(let i): v = .int(i)
            case .string(let s): v = .string(s)
            case .stringList(let l): v = .array(l.map { .string($0) })
            case .duration(let d): v = .string(DurationFormat.format(d))
            case .boolean(let b): v = .bool(b)
            }
            params.append((key, v))
        }
        var o = JSONObject([
            ("protocol", .string(Self.protocolVersion)), ("job", .string(context.jobName)), ("runId", .string(context.runID)),
            ("logicalTime", .string(Timestamp.format(context.logicalTime))), ("startTime", .string(Timestamp.format(context.startTime))),
            ("timeZone", .string(context.timeZone.ianaName)), ("dryRun", .bool(context.isDryRun)), ("params", .object(JSONObject(params))),
            ("reads", .array(config.reads.map { .string($0) })), ("writes", .array(config.writes.map { .string($0) })),
        ])
        if let call = context.call {
            o["call"] = .object(JSONObject([("data", call.data), ("uid", call.uid.map { .string($0) } ?? .null), ("claims", .object(call.claims))]))
        }
        return Array((JSONWriter.compact(.object(o)) + "\n").utf8)
    }

    /// One document line: `{"path", "version", "data"}`.
    static func documentLine(_ d: Document) -> [UInt8] {
        var line = Array(#"{"path":"#.utf8)
        line += JSONWriter.quoted(d.path.description).utf8
        line += #","version":"#.utf8
        line += JSONWriter.quoted(String(d.version.hash, radix: 16) + "-" + String(d.version.size)).utf8
        line += #","data":"#.utf8
        JSONWriter.writeCompact(.object(d.object), into: &line)
        line += "}\n".utf8
        return line
    }

    package func run(_ context: JobContext) async throws {
        let process: FunctionProcess
        do {
            process = try FunctionProcess(executable: executable, arguments: Array(config.command.dropFirst()), directory: config.directory, environment: childEnvironment(context))
        } catch {
            throw FunctionError.spawn(job: config.name, command: config.command[0], reason: "\(error)")
        }
        let output = FunctionOutput(job: self, context: context, process: process)
        let grace = config.killGrace
        try await withTaskCancellationHandler {
            async let streamed: (any Error)? = stream(context, to: process, output: output)
            await BlockingIO.run { output.readAll() }
            let inputFailure = await streamed
            let (status, signal) = await BlockingIO.run { process.wait() }
            try Task.checkCancellation()
            if let failure = output.failure { throw failure }
            if let inputFailure { throw inputFailure }
            if let signal { throw FunctionError.killed(job: config.name, signal: signal, stderrTail: output.stderrTail) }
            if status != 0 { throw FunctionError.exited(job: config.name, status: status, stderrTail: output.stderrTail) }
            if let refusal = output.refusal { throw refusal }
        } onCancel: {
            process.terminate(grace: grace)
        }
    }

    /// Writes the context line, every document of every `reads` collection and the end line,
    /// then closes stdin. Returns the error that stopped the input (invalid input under
    /// `onInvalidDocument = "fail"`, a store failure); a function that stops reading early is
    /// not an error.
    private func stream(_ context: JobContext, to process: FunctionProcess, output: FunctionOutput) async -> (any Error)? {
        defer { process.closeStdin() }
        let open = Mutex(process.write(contextLine(context)))
        do {
            for collection in config.reads {
                guard open.withLock({ $0 }) else { break }
                try await context.decode(collection, chunkSize: Self.chunkSize, { d throws(FieldError) -> (DocumentPath, DocumentVersion, [UInt8])? in
                    (d.path, d.version, Self.documentLine(d))
                }, into: { chunk in
                    output.streamed(chunk.map { ($0.0, $0.1) })
                    guard open.withLock({ $0 }) else { return }
                    let bytes = chunk.reduce(into: [UInt8]()) { $0 += $1.2 }
                    if !process.write(bytes) { open.withLock { $0 = false } }
                })
            }
        } catch {
            process.kill()
            return error
        }
        _ = process.write(Array((JSONWriter.compact(.object(JSONObject([("end", .bool(true)), ("documents", .int(Int64(output.streamedCount)))]))) + "\n").utf8))
        return nil
    }
}
