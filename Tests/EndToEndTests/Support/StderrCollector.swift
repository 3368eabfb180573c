import Foundation
import Testing

/// Reads a child's stderr on a background thread so the test can wait for a line.
///
/// `@unchecked Sendable`: `buffer` and `ended` are only touched with `lock` held.
final class StderrCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var ended = false

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty {
                    lock.lock()
                    ended = true
                    lock.unlock()
                    break
                }
                lock.lock()
                buffer.append(chunk)
                lock.unlock()
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
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let i = collectors.firstIndex(where: { $0.text.contains(needle) }) { return i }
            if Date() > deadline {
                let printed = collectors.count == 1
                    ? "on stderr:\n\(collectors[0].text)"
                    : "on the stderr of any of \(collectors.count) processes:\n" + collectors.enumerated().map { "[\($0.offset)]\n\($0.element.text)" }.joined(separator: "\n")
                Issue.record("timed out waiting for \"\(needle)\" \(printed)", sourceLocation: sourceLocation)
                return nil
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until the child has closed stderr (it exited), then returns everything it wrote.
    func untilEnd() async throws -> String {
        while true {
            if lock.withLock({ ended }) { return text }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
