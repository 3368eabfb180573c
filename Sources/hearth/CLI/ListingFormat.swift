import ArgumentParser

/// `--format text|json` of the commands that print a listing or report (`list`, `check`,
/// `history`, `next`, `backfill`, `outbox …`); markdown is refused with exit 64 (it is for the
/// reports of `hearth run` and `hearth plan`).
struct ListingFormat: ParsableArguments {
    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text
}
