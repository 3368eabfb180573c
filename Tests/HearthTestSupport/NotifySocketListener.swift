import Foundation
import Synchronization
public import Testing

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: bound to a path in a temp
/// directory (or, with `abstract`, to an abstract name, given as `@name`). A thread reads it
/// continuously (as systemd does), so the sender never finds its queue full.
public final class NotifySocketListener: Sendable {
    public let path: String
    private let fd: Int32
    private let directory: String?
    private let state = Mutex<(messages: [String], taken: Int)>(([], 0))
    /// Told of every datagram.
    public let changes = ChangeNotifier()

    public init(abstract: Bool = false) throws {
        if abstract {
            path = "@hearth-test-\(UUID().uuidString.prefix(12))"
            directory = nil
        } else {
            let dir = FileManager.default.temporaryDirectory.path + "/hearth-notify-" + UUID().uuidString.prefix(8)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            directory = dir
            path = dir + "/notify.sock"
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        self.fd = fd
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var name = Array(path.utf8)
        if abstract { name[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in name.enumerated() { raw[i] = b }
        }
        let length = socklen_t((MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + name.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        Thread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                guard let self else { break }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                self.state.withLock { $0.messages.append(text) }
                self.changes.notify()
            }
        }.start()
    }

    /// The datagrams received since the last call, in order.
    public func received() -> [String] {
        state.withLock { s in
            let new = Array(s.messages[s.taken...])
            s.taken = s.messages.count
            return new
        }
    }

    /// Waits (up to `timeout`) until a datagram received since the last call to `received()`
    /// satisfies `predicate`; returns all of them. Throws ``TimedOut`` (naming `what` and
    /// what came) when none does in time.
    public func wait(
        _ what: @autoclosure () -> String = "a datagram", timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation, for predicate: (String) -> Bool
    ) async throws -> [String] {
        var seen: [String] = []
        try await eventually("\(what()) on the notify socket (received: \(seen))", timeout: timeout, wakingOn: changes, sourceLocation: sourceLocation) {
            seen += received()
            return seen.contains(where: predicate)
        }
        return seen
    }

    public func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
