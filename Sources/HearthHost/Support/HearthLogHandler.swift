package import Logging
import Foundation
import Synchronization
import HearthKit

/// Logs to stderr as text (`2026-11-21T09:30:00.000Z warning hearth: message key=value`)
/// or JSON lines (for journald and log shippers).
package struct HearthLogHandler: LogHandler {
    package enum Format: String, Sendable, CaseIterable { case text, json }

    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package let label: String
    package let format: Format

    package init(label: String, level: Logger.Level, format: Format) {
        self.label = label
        self.logLevel = level
        self.format = format
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    private static let lock = Mutex(())

    package func log(event: LogEvent) {
        var all = metadata
        if let m = event.metadata { all.merge(m) { $1 } }
        let ts = Timestamp.format(Date())
        let line: String
        switch format {
        case .text:
            let meta = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            line = "\(ts) \(event.level) \(label): \(event.message)\(meta.isEmpty ? "" : " " + meta)\n"
        case .json:
            var o = JSONObject([("time", .string(ts)), ("level", .string(event.level.rawValue)), ("logger", .string(label)), ("message", .string("\(event.message)"))])
            for (k, v) in all.sorted(by: { $0.key < $1.key }) { o[k] = .string("\(v)") }
            line = JSONWriter.compact(.object(o)) + "\n"
        }
        Self.lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }
}
