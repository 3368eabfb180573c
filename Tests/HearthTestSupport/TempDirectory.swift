import Foundation
import HearthKit
import HearthStore
public import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temp dir, removed by `remove()`.
public struct TempDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "hearth") throws {
        let base = FileManager.default.temporaryDirectory.path + "/\(prefix)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = FileIO.realPath(base) ?? base
    }

    public func write(_ relative: String, _ text: String) throws {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try TempDirectory.writeFile(file, text)
    }

    /// Writes `text` to `file` (created or truncated) through a close-on-exec descriptor.
    ///
    /// Not `Data.write(to:)`: Foundation opens the file without `O_CLOEXEC`, so a process
    /// another test spawns meanwhile inherits the descriptor, and the file's last close — its
    /// inotify `IN_CLOSE_WRITE` — comes when that process exits, long after the write. A change
    /// feed test then saw a document written before its watch began, or renamed into place
    /// twice.
    public static func writeFile(_ file: String, _ text: String) throws {
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        try FileIO.writeAll(fd, Array(text.utf8), path: file)
    }

    /// ``write(_:_:)``, returning once the file's last close has happened: when it returns,
    /// no process holds the file open for writing, so renaming it or starting to watch it
    /// brings no late `IN_CLOSE_WRITE` (``LastCloseWatch``). For change-feed tests.
    public func writeClosed(_ relative: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try await BlockingIO.run { () throws(any Error) in try Self.writeFileClosed(file, text, sourceLocation: sourceLocation) }
    }

    /// ``writeFile(_:_:)``, then blocks (call it off the cooperative pool) until the file's
    /// last close has happened (at most 10 s); see ``writeClosed(_:_:sourceLocation:)``.
    public static func writeFileClosed(_ file: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let closes: LastCloseWatch
        do {
            closes = try LastCloseWatch(file)  // while open: its last close is still to come
            try FileIO.writeAll(fd, Array(text.utf8), path: file)
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        _ = try closes.wait(sourceLocation: sourceLocation)
    }

    public func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + relative).map { String(decoding: $0, as: UTF8.self) }
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
