import ArgumentParser
import Foundation

/// `hearth-bench`: the benchmark-only commands, kept out of the `hearth` CLI. The scripts in
/// `scripts/bench.py` runs them; docs/performance.md has the figures.
@main
struct HearthBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-bench",
        abstract: "Benchmarks for Hearth: the read and write floors of a data directory, the push provider alone, a command job's compiled-in twin, a run started by writes.",
        subcommands: [ReadFloor.self, WriteFloor.self, BenchPush.self, RunTwin.self, TriggeredRun.self]
    )

    /// Reports `error` on stderr and exits 1.
    static func fail(_ error: any Error) -> ExitCode {
        FileHandle.standardError.write(Data("hearth-bench: error: \(error)\n".utf8))
        return ExitCode.failure
    }
}

/// Writes to stdout.
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
