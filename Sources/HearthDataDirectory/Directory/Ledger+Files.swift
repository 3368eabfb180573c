package import Foundation
import HearthKit
package import HearthStore

/// The ledger's files read from a data directory.
extension Ledger {
    /// The entries of `namespace` whose hour lies within `[from, to]` (by UTC hour), read from
    /// the data directory at `stateDirectory` (`<data>/.hearth`). Unreadable files are skipped.
    package static func entries(namespace: String, from: Date, to: Date, stateDirectory: String) throws(FileIO.Failure) -> [String: String] {
        let dir = stateDirectory + "/ledger/" + namespace
        let lo = hourStamp(from)
        let hi = hourStamp(to)
        var out: [String: String] = [:]
        for name in (try FileIO.list(dir) ?? []).sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let hour = String(name.prefix(11))
            guard hour >= lo, hour <= hi else { continue }
            guard let bytes = try FileIO.readSmallFile(dir + "/" + name), let o = (try? JSONParser.parse(bytes))?.objectValue,
                let entries = o["entries"]?.objectValue
            else { continue }
            for (k, v) in entries { if let s = v.stringValue { out[k] = s } }
        }
        return out
    }

    /// Relative paths of the files of `namespace` whose hour is before `date`'s hour.
    package static func files(namespace: String, before date: Date, stateDirectory: String) throws(FileIO.Failure) -> [String] {
        let cutoff = hourStamp(date)
        return (try FileIO.list(stateDirectory + "/ledger/" + namespace) ?? []).sorted()
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") && String($0.prefix(11)) < cutoff }
            .map { relativeDirectory(namespace) + "/" + $0 }
    }
}
