import Foundation
import Glibc

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`, bound to a path in a temp
/// directory. A thread reads it continuously (as systemd does), so the sender never finds its
/// queue full.
final class NotifySocketListener: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let directory: String
    private let lock = NSLock()
    private var messages: [String] = []
    private var taken = 0

    init() throws {
        directory = FileManager.default.temporaryDirectory.path + "/hearth-notify-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/notify.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        self.fd = fd
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in name.enumerated() { raw[i] = b }
        }
        let length = socklen_t((MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + name.count + 1)
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
                self.lock.lock()
                self.messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
                self.lock.unlock()
            }
        }.start()
    }

    /// The datagrams received since the last call, in order.
    func received() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let new = Array(messages[taken...])
        taken = messages.count
        return new
    }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
