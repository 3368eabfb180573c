import Foundation
import ArgumentParser
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth recover`: finishes a commit interrupted by a crash, discards uncommitted ones.
    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Finish commits interrupted by a crash (redo committed journals, discard uncommitted ones).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                let data = try global.openData(config)
                let r = try await data.recoverInterruptedCommits(holder: "pid=\(getpid()) command=recover", timeout: config.lockTimeout)
                if r.finished.isEmpty && r.discarded.isEmpty {
                    emit("Nothing to recover.\n")
                } else {
                    for id in r.finished { emit("finished committed run \(id)\n") }
                    for name in r.discarded { emit("discarded uncommitted journal \(name)\n") }
                }
            } catch {
                throw ExitStatus.fail(error)
            }
        }
    }
}
