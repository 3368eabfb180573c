import ArgumentParser
import Jobs
import HearthKit
import HearthDataDirectory
import HearthStore

extension Hearth {
    /// `hearth seed`: writes a deterministic demo data directory.
    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seed",
            abstract: "Write a deterministic demo data directory (same options → byte-identical files).")

        @Option(help: "Directory to create.")
        var out: String = "demo-data"

        @Option(help: "Number of users (10 transactions, 1 streak, 5 notifications each; 1 gig per 10 users).")
        var users: Int = 1000

        @Option(help: "Random seed.")
        var seed: UInt64 = 1

        @Option(help: "The instant the demo data is current at (timestamps fall before it), ISO-8601.")
        var anchor: String = "2026-11-18T12:00:00Z"

        func run() async throws {
            do {
                guard users >= 1 else { throw UsageError("--users must be at least 1") }
                guard let anchorDate = Timestamp.parseISO8601(anchor) else {
                    throw UsageError("--anchor \(anchor): expected an ISO-8601 date-time with a zone, e.g. 2026-11-18T12:00:00Z")
                }
                if let existing = try FileIO.list(out), existing.contains(where: { !$0.hasPrefix(".") }) {
                    throw UsageError("--out \(out): the directory is not empty; choose a new directory (seed never mixes into existing data)")
                }
                let tty = stderrIsTTY
                let writer = try DirectoryWriter(root: out)
                let n = try DemoData(users: users, seed: seed, anchor: anchorDate).write(progress: { count in
                    if tty { emitError("\r\u{1B}[Kwrote \(count) documents") }
                }, into: writer.put)
                if tty { emitError("\r\u{1B}[K") }
                emit("Wrote \(n) documents for \(users) users to \(out) (seed \(seed)).\n")
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
