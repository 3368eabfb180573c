import Foundation
import Glibc

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: bound to a path in a temp
/// directory (or, with `abstract`, to an abstract name, given as `@name`).
final class NotifySocketListener: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let directory: String?

    init(abstract: Bool = false) throws {
        if abstract {
            path = "@hearth-test-\(UUID().uuidString.prefix(12))"
            directory = nil
        } else {
            let dir = FileManager.default.temporaryDirectory.path + "/hearth-notify-" + UUID().uuidString.prefix(8)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            directory = dir
            path = dir + "/notify.sock"
        }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
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
    }

    /// Every datagram received so far, in order.
    func received() -> [String] {
        var out: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out.append(String(decoding: buffer[0..<n], as: UTF8.self))
        }
        return out
    }

    func close() {
        Glibc.close(fd)
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
