import ArgumentParser

/// `--format` for listings and reports.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, markdown
}
