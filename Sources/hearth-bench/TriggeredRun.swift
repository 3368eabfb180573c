import ArgumentParser
import Foundation
import HearthKit
import HearthHost
import HearthDataDirectory
import HearthStore
import Jobs
import Logging

extension HearthBench {
    /// `hearth-bench triggered-run --config C --now T JOB --changed PATH…`: runs a built-in job
    /// through the same runner as `hearth run`, over the config's data directory, as a run
    /// started by writes to `PATH…` (``JobContext/changes``), and prints per run the documents
    /// read and the CPU and wall time of the run (plan and commit). `--watch COLLECTION` marks
    /// collections as watched, as the daemon's change feed does, so that their field indexes
    /// are used (docs/storage/field-indexes.md); `--runs N` runs it N times in one process (the
    /// first builds the indexes).
    struct TriggeredRun: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "triggered-run", abstract: "Run a built-in job as a run started by writes, and print what it read and cost (benchmark only).")

        @Option(help: "Configuration file.")
        var config: String

        @Option(help: "Logical and start time, ISO-8601.")
        var now: String

        @Option(name: .customLong("changed"), help: "A document written (collection/id); repeat it.")
        var changed: [String] = []

        @Option(name: .customLong("watch"), help: "A collection to treat as watched by a change feed; repeat it.")
        var watch: [String] = []

        @Flag(help: "Run it as a scheduled run is (told nothing: it reads everything), for comparison.")
        var full = false

        @Option(help: "How many runs, one after the other.")
        var runs = 1

        @Argument(help: "The job.")
        var job: String

        func run() async throws {
            do {
                let loaded = try ConfigLoader(jobs: JobCatalog.registry.descriptors).load(path: config)
                guard let at = Timestamp.parseISO8601(now) else { throw ValidationError("--now: expected an ISO-8601 date-time") }
                let paths = try changed.map { text in
                    do { return try DocumentPath(parsing: text) } catch { throw ValidationError("--changed \(text): \(error)") }
                }
                let data = try DataDirectory(root: loaded.dataDir)
                for c in watch { data.fieldIndexes.watching(c, true) }
                let runner = Runner(config: loaded, data: data, registry: JobCatalog.registry, logger: Logger(label: "hearth-bench"))
                for i in 1...max(1, runs) {
                    var options = RunOptions(trigger: full ? .cli : .write, logicalTime: at, startTime: at)
                    if !full {
                        options.changes = ChangedDocuments(paths)
                        options.triggerPaths = changed
                        options.triggerPathCount = changed.count
                    }
                    let cpu0 = Self.cpuSeconds()
                    let wall0 = ContinuousClock.now
                    let outcome = try await runner.run(job, options: options)
                    let wall = ContinuousClock.now - wall0
                    let cpu = Self.cpuSeconds() - cpu0
                    if let error = outcome.error { throw error }
                    let r = outcome.record
                    let ms = Double(wall.components.seconds) * 1000 + Double(wall.components.attoseconds) / 1e15
                    emit(String(format: "{\"run\": %d, \"documentsRead\": %d, \"cpuMs\": %.2f, \"wallMs\": %.2f, \"created\": %d, \"updated\": %d, \"messages\": %d}\n",
                                i, r.documentsRead, cpu * 1000, ms, r.created, r.updated, r.messagesQueued))
                }
            } catch let error as ValidationError {
                throw error
            } catch {
                throw HearthBench.fail(error)
            }
        }

        /// User and system CPU time of the process so far.
        static func cpuSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
            return s(usage.ru_utime) + s(usage.ru_stime)
        }
    }
}
