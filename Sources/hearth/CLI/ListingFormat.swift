import ArgumentParser

/// `--format text|json` of the commands that print a listing or report (`list`, `check`,
/// `history`, `next`, `backfill`, `audit`, `outbox …`). Markdown is for the reports of
/// `hearth run` and `hearth plan` only, so it is neither offered nor accepted here.
struct ListingFormat: ParsableArguments {
    @Option(help: "Output format: text or json.")
    var format: ListingOutputFormat = .text
}

/// The formats a listing prints.
enum ListingOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
