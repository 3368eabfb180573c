/// Listings (`list`, `check`, `history`, `next`, `backfill`, `outbox …`) print text or JSON;
/// markdown is only for run reports (`hearth run`, `hearth plan`).
extension OutputFormat {
    /// Throws the usage error (exit 64) every listing gives for `--format markdown`.
    func requireListing() throws(UsageError) {
        guard self != .markdown else {
            throw UsageError("--format markdown: accepted here: text, json (markdown is for the reports of `hearth run` and `hearth plan`)")
        }
    }
}
