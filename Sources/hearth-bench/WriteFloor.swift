import ArgumentParser
import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore

extension HearthBench {
    /// `hearth-bench write-floor DIR`: the write floor of docs/performance.md#read-floor-and-write-floor —
    /// the time to replace N documents crash-safely the cheapest way the committer does it for a
    /// big commit: every file written to a temp file beside it on all cores (no fsync each), one
    /// `syncfs`, the renames over the old files on all cores, one more `syncfs`. No journal, no
    /// JSON, no owner or mode checks: what any program replacing those files durably must pay.
    ///
    /// It rewrites each document with its own bytes (read before the clock starts), so the data
    /// stays the same, but every file gets a new inode and mtime: run it on a benchmark copy.
    struct WriteFloor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write-floor", abstract: "Benchmark floor: replace N documents durably (temp files, syncfs, renames, syncfs).")

        @Argument(help: "Data directory.")
        var directory: String

        @Option(help: "Only these collections (comma-separated); default: all.")
        var collections: String?

        @Option(help: "Replace only the first N documents (in collection, then id order); default: all.")
        var limit: Int?

        func run() async throws {
            do {
                let data = try DataDirectory(root: directory)
                let names: [String]
                if let collections { names = collections.split(separator: ",").map(String.init) } else { names = try data.collections() }
                var found: [String] = []
                for c in names {
                    for id in try data.documentIDs(in: c) { found.append(data.root + "/" + c + "/" + id + ".json") }
                }
                if let limit { found = Array(found.prefix(max(0, limit))) }
                let paths = found
                let contents: [[UInt8]] = concurrentChunks(count: paths.count) { range in
                    range.map { i in ((try? FileIO.readFile(paths[i], limit: StoredDocument.maxSize))??.bytes) ?? [] }
                }
                let bytes = contents.reduce(0) { $0 + $1.count }
                let start = ContinuousClock.now
                let temps: [Result<String, FileIO.Failure>] = concurrentChunks(count: paths.count, chunkSize: 128) { range in
                    range.map { i in Result { () throws(FileIO.Failure) in try FileIO.writeTemporary(for: paths[i], contents[i], sync: false) } }
                }
                let written = try temps.map { try $0.get() }
                try FileIO.syncFileSystem(data.root)
                let failures: [String] = concurrentChunks(count: paths.count, chunkSize: 128) { range in
                    range.compactMap { i in rename(written[i], paths[i]) == 0 ? nil : "rename \(paths[i]): \(String(cString: strerror(errno)))" }
                }
                if let failure = failures.first { throw RenameFailed(description: failure) }
                try FileIO.syncFileSystem(data.root)
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                emit("{\"files\": \(paths.count), \"bytes\": \(bytes), \"seconds\": \(seconds)}\n")
            } catch {
                throw HearthBench.fail(error)
            }
        }
    }
}

/// A rename of ``HearthBench/WriteFloor`` failed.
struct RenameFailed: Error, CustomStringConvertible {
    var description: String
}
