import ArgumentParser
import Dispatch
import Foundation
import HearthCore
import Synchronization

extension Hearth {
    /// `hearth read-floor DIR`: the benchmark floor of SPEC §11 — the time to merely read every
    /// document's bytes under a data directory on all cores, with the same file reader the
    /// jobs use (no parsing). Hidden: it exists for `scripts/bench.py`.
    struct ReadFloor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read-floor", abstract: "Benchmark floor: read every document's bytes (no parsing).", shouldDisplay: false)

        @Argument(help: "Data directory.")
        var directory: String

        @Option(help: "Only these collections (comma-separated); default: all.")
        var collections: String?

        func run() async throws {
            do {
                let data = try DataDirectory(root: directory)
                let names: [String]
                if let collections { names = collections.split(separator: ",").map(String.init) } else { names = try data.collections() }
                var found: [String] = []
                for c in names {
                    for id in try data.documentIDs(in: c) { found.append(data.root + "/" + c + "/" + id + ".json") }
                }
                let paths = found
                let start = ContinuousClock.now
                let total = Mutex(0)
                let chunk = 512
                let chunks = (paths.count + chunk - 1) / chunk
                DispatchQueue.concurrentPerform(iterations: chunks) { c in
                    var bytes = 0
                    for i in (c * chunk)..<min((c + 1) * chunk, paths.count) {
                        bytes += (try? FileIO.readFile(paths[i], limit: DataDirectory.maxDocumentSize))??.bytes.count ?? 0
                    }
                    total.withLock { $0 += bytes }
                }
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                emit("{\"files\": \(paths.count), \"bytes\": \(total.withLock { $0 }), \"seconds\": \(seconds)}\n")
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
