import ArgumentParser
import HearthKit
import HearthStore
import HearthHTTP
import HearthSchedule
import HearthOutbound
import HearthHost

/// `--format` for listings and reports.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, markdown
}
