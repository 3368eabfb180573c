import Logging
import Synchronization

/// A swift-log handler that keeps every line (message and metadata) for inspection.
struct CapturingLogHandler: LogHandler {
    /// The lines logged through every handler made from one store.
    final class Store: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
        var text: String { all.joined(separator: "\n") }
    }

    let store: Store
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let m = event.metadata { all.merge(m) { $1 } }
        let meta = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        store.append("\(event.level) \(event.message) \(meta)")
    }

    /// A logger writing into a fresh store.
    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in CapturingLogHandler(store: store) }, store)
    }
}
