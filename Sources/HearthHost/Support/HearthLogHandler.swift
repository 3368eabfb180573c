public import Logging
import Foundation
import Synchronization
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

/// Logs to stderr as text (`2026-11-21T09:30:00.000Z warning hearth: message key=value`)
/// or JSON lines (for journald and log shippers).
public struct HearthLogHandler: LogHandler {
    public enum Format: String, Sendable, CaseIterable { case text, json }

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public let label: String
    public let format: Format

    public init(label: String, level: Logger.Level, format: Format) {
        self.label = label
        self.logLevel = level
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    private static let lock = Mutex(())

    public func log(event: LogEvent) {
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
