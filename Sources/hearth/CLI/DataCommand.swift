import ArgumentParser

extension Hearth {
    /// `hearth data`: move documents between the PostgreSQL store and a data directory.
    struct DataCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "data",
            abstract: "Copy every document between the PostgreSQL store and a data directory.",
            subcommands: [DataExport.self, DataImport.self])
    }
}
