import ArgumentParser
import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore

extension HearthBench {
    /// `hearth-bench read-floor DIR`: the benchmark floor of docs/performance.md#read-floor-and-write-floor — the time to merely read every
    /// document's bytes under a data directory, with the same file reader the jobs use (no
    /// parsing). One thread by default: the floor is a single-thread loop that
    /// only reads the files (the job has every core; parsing is its only extra work).
    /// `--threads 0` (or any value but 1) reads on every core instead (the stricter floor earlier tables used).
    struct ReadFloor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read-floor", abstract: "Benchmark floor: read every document's bytes (no parsing).")

        @Argument(help: "Data directory.")
        var directory: String

        @Option(help: "Only these collections (comma-separated); default: all.")
        var collections: String?

        @Option(help: "Reading threads: 1 (default) is the single-thread floor; any other value reads on every core.")
        var threads: Int = 1

        @Flag(help: "Only stat every file (what a scan with a reject memo pays for a file it remembers; docs/storage/reject-memos.md).")
        var statOnly = false

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
                let statOnly = self.statOnly
                let readRange: @Sendable (Range<Int>) -> [Int] = { range in
                    if statOnly { return [range.reduce(0) { sum, i in sum + ((try? FileIO.lstatPath(paths[i]))??.size ?? 0) }] }
                    return [range.reduce(0) { sum, i in sum + ((try? FileIO.readFile(paths[i], limit: StoredDocument.maxSize))??.bytes.count ?? 0) }]
                }
                let sizes = threads == 1 ? readRange(0..<paths.count) : concurrentChunks(count: paths.count, readRange)
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                emit("{\"files\": \(paths.count), \"bytes\": \(sizes.reduce(0, +)), \"seconds\": \(seconds), \"threads\": \(threads == 1 ? "1" : "\"all\"")}\n")
            } catch {
                throw HearthBench.fail(error)
            }
        }
    }
}
