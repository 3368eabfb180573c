import ArgumentParser
import Foundation
import HearthKit
import HearthStore

extension HearthBench {
    /// `hearth read-floor DIR`: the benchmark floor of docs/performance.md#the-jobs-at-1k-10k-and-100k-users — the time to merely read every
    /// document's bytes under a data directory on all cores, with the same file reader the
    /// jobs use (no parsing). Hidden: it exists for `scripts/bench.py`.
    struct ReadFloor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read-floor", abstract: "Benchmark floor: read every document's bytes (no parsing).")

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
                let sizes: [Int] = concurrentChunks(count: paths.count) { range in
                    [range.reduce(0) { sum, i in sum + ((try? FileIO.readFile(paths[i], limit: DataDirectory.maxDocumentSize))??.bytes.count ?? 0) }]
                }
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                emit("{\"files\": \(paths.count), \"bytes\": \(sizes.reduce(0, +)), \"seconds\": \(seconds)}\n")
            } catch {
                throw HearthBench.fail(error)
            }
        }
    }
}
