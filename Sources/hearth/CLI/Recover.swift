import Foundation
import ArgumentParser
import HearthKit
import HearthStore
import HearthHost

extension Hearth {
    /// `hearth recover`: finishes a commit interrupted by a crash, discards uncommitted ones. On
    /// PostgreSQL (a commit is one transaction, nothing to replay) it lists the slots whose
    /// daemon died mid-run (docs/storage/postgres.md#recover).
    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recover",
            abstract: "Finish commits interrupted by a crash (redo committed journals, discard uncommitted ones).",
            discussion: """
                On PostgreSQL a commit is one transaction, so there is nothing to replay; recover \
                then lists the slots whose daemon stopped before their run was recorded (their \
                claim's lease expired): the next daemon to reach the job runs them.
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            do {
                let logger = try global.bootstrap()
                let config = try global.loadConfig(logger: logger)
                let store = try global.openStore(config)
                guard store.features.contains(.commitJournal) else {
                    emit(try await Self.expiredClaims(store, config: config))
                    return
                }
                let r = try await store.recoverInterruptedCommits(holder: "pid=\(getpid()) command=recover", timeout: config.lockTimeout)
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

        /// What `recover` says on a store whose commits are transactions: nothing to replay, and
        /// every expired slot claim.
        static func expiredClaims(_ store: any RunClaims, config: HearthConfig) async throws -> String {
            var text = "Nothing to recover: on PostgreSQL every commit is one transaction (docs/storage/postgres.md#recover).\n"
            var expired: [(String, Date)] = []
            for job in config.jobs.keys.sorted() {
                expired += try await store.expiredSlotClaims(job: job).map { (job, $0) }
            }
            if expired.isEmpty {
                text += "No slot claim has expired.\n"
            }
            for (job, slot) in expired {
                text += "\(job) \(Timestamp.format(slot)): its daemon stopped before the run was recorded (lease expired); the next daemon to reach \(job) runs it\n"
            }
            return text
        }
    }
}
