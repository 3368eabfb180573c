import Foundation
import Testing
import HearthTestSupport

/// Reads a child's stderr on a background thread so the test can wait for a line.
///
/// `@unchecked Sendable`: `buffer` and `ended` are only touched with `lock` held.
final class StderrCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var ended = false
    /// Told of every chunk read and of the end. Collectors waited on together
    /// (``wait(for:timeout:until:)``) share one.
    let changes: ChangeNotifier

    init(_ pipe: Pipe, changes: ChangeNotifier = ChangeNotifier()) {
        self.changes = changes
        let handle = pipe.fileHandleForReading
        Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty {
                    lock.lock()
                    ended = true
                    lock.unlock()
                    changes.notify()
                    break
                }
                lock.lock()
                buffer.append(chunk)
                lock.unlock()
                changes.notify()
            }
        }.start()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Waits until the child prints `needle`; fails (``TimedOut``, with what it printed) after
    /// `timeout`.
    func waitFor(_ needle: String, timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await Self.first(toPrint: needle, among: [self], timeout: timeout, sourceLocation: sourceLocation)
    }

    /// The index of the first of `collectors` (made with one `ChangeNotifier`) to print
    /// `needle`, waiting up to `timeout`.
    @discardableResult
    static func first(toPrint needle: String, among collectors: [StderrCollector], timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        try await wait("\"\(needle)\"", for: collectors, timeout: timeout, sourceLocation: sourceLocation) { texts in
            texts.firstIndex { $0.contains(needle) }
        }
    }

    /// Waits until `condition` holds for what the child has printed so far, checking it now
    /// and after every chunk; fails (``TimedOut``, naming `what`, with what it printed) after
    /// `timeout`.
    func wait(_ what: @autoclosure () -> String, timeout: Duration, sourceLocation: SourceLocation = #_sourceLocation, until condition: (String) throws -> Bool) async throws {
        try await Self.wait(what(), for: [self], timeout: timeout, sourceLocation: sourceLocation) { texts in
            try condition(texts[0])
        }
    }

    /// Waits until `check` returns a value for what `collectors` (made with one `ChangeNotifier`)
    /// have read so far, checking it now and after every chunk; fails (``TimedOut``, naming
    /// `what`, with what each printed) after `timeout`.
    @discardableResult
    static func wait<T>(_ what: @autoclosure () -> String, for collectors: [StderrCollector], timeout: Duration, sourceLocation: SourceLocation = #_sourceLocation, _ check: ([String]) throws -> T?) async throws -> T {
        guard let changes = collectors.first?.changes else { preconditionFailure("no collector to wait for") }
        precondition(collectors.allSatisfy { $0.changes === changes }, "collectors waited on together share one ChangeNotifier")
        return try await eventually("\(what()) \(printed(by: collectors))", timeout: timeout, wakingOn: changes, sourceLocation: sourceLocation) {
            try check(collectors.map(\.text))
        }
    }

    /// Waits until `condition` holds for what `collectors` (made with one `ChangeNotifier`) have
    /// read so far, checking it now and after every chunk; fails (``TimedOut``, naming `what`,
    /// with what each printed) after `timeout`.
    static func wait(_ what: @autoclosure () -> String, for collectors: [StderrCollector], timeout: Duration, sourceLocation: SourceLocation = #_sourceLocation, until condition: ([String]) throws -> Bool) async throws {
        try await wait(what(), for: collectors, timeout: timeout, sourceLocation: sourceLocation) { texts in
            try condition(texts) ? () : nil
        }
    }

    /// What `collectors` printed, for a failure's message.
    static func printed(by collectors: [StderrCollector]) -> String {
        collectors.count == 1
            ? "on stderr:\n\(collectors[0].text)"
            : "on the stderr of any of \(collectors.count) processes:\n" + collectors.enumerated().map { "[\($0.offset)]\n\($0.element.text)" }.joined(separator: "\n")
    }

    /// Waits until the child has closed stderr, then returns everything it wrote. For a child
    /// that has exited (or was killed): its stderr closes with it, unless a process it started
    /// still holds a copy — then this fails after a minute.
    func untilEnd(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await eventually("the end of stderr (a process holding it open?); read so far:\n\(text)", timeout: .seconds(60), wakingOn: changes, sourceLocation: sourceLocation) {
            lock.withLock { ended }
        }
        return text
    }
}
