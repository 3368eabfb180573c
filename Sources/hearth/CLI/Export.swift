import ArgumentParser
import HearthKit
import HearthStore
import HearthHTTP
import HearthSchedule
import HearthOutbound
import HearthHost

extension Hearth {
    /// `hearth export …`: configuration for other tools.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export the configuration for other tools.",
            subcommands: [ExportSystemd.self])
    }
}
