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

    func waitFor(_ needle: String, timeout: TimeInterval = 10, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        _ = try await Self.first(toPrint: needle, among: [self], timeout: timeout, sourceLocation: sourceLocation)
    }

    /// The index of the first of `collectors` to print `needle`, waiting up to `timeout`; nil
    /// (and a recorded issue showing what each printed) when none did.
    static func first(toPrint needle: String, among collectors: [StderrCollector], timeout: TimeInterval = 10, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int? {
        var found: Int?
        _ = await wait(for: collectors, timeout: timeout) { texts in
            found = texts.firstIndex { $0.contains(needle) }
            return found != nil
        }
        if let found { return found }
        let printed = collectors.count == 1
            ? "on stderr:\n\(collectors[0].text)"
            : "on the stderr of any of \(collectors.count) processes:\n" + collectors.enumerated().map { "[\($0.offset)]\n\($0.element.text)" }.joined(separator: "\n")
        Issue.record("timed out waiting for \"\(needle)\" \(printed)", sourceLocation: sourceLocation)
        return nil
    }

    /// Waits until `condition` holds for what `collectors` (made with one `ChangeNotifier`) have
    /// read so far, checking it now and after every chunk; false when `timeout` passes first.
    static func wait(for collectors: [StderrCollector], timeout: TimeInterval, until condition: ([String]) -> Bool) async -> Bool {
        guard let changes = collectors.first?.changes else { return condition([]) }
        precondition(collectors.allSatisfy { $0.changes === changes }, "collectors waited on together share one ChangeNotifier")
        return await changes.wait(timeout: .seconds(timeout)) { condition(collectors.map(\.text)) }
    }

    /// Waits until the child has closed stderr (it exited), then returns everything it wrote.
    func untilEnd() async throws -> String {
        // No time limit of its own: scripts/test's watchdog ends a test that hangs here.
        while !(await changes.wait(timeout: .seconds(3600), until: { lock.withLock { ended } })) {}
        return text
    }
}
