import ArgumentParser

extension Hearth {
    /// `hearth export …`: configuration for other tools.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export the configuration for other tools.",
            subcommands: [ExportSystemd.self])
    }
}
