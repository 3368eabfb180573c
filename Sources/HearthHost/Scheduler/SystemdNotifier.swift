#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The `sd_notify` protocol without libsystemd: one datagram per state change
/// (`READY=1`, `STOPPING=1`, `RELOADING=1`, `STATUS=…`) to the `AF_UNIX` socket named by
/// `$NOTIFY_SOCKET`. A name starting with `@` is an abstract socket.
package struct SystemdNotifier: Sendable {
    package let socketPath: String

    /// nil when `NOTIFY_SOCKET` is unset or empty (not started by systemd as `Type=notify`).
    package init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        self.socketPath = path
    }

    package init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends `state` (e.g. `"READY=1"`, or several `KEY=value` lines). Returns false when
    /// it could not be sent (systemd then times out or ignores it; nothing else to do).
    ///
    /// Never blocks: if the receiver's queue is full the datagram is dropped rather than
    /// stalling the scheduler (a datagram socket holds only a few unread messages).
    @discardableResult
    package func notify(_ state: String) -> Bool {
        var name = Array(socketPath.utf8)
        let abstract = name.first == UInt8(ascii: "@")
        if abstract { name[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path needs room for its terminating NUL; an abstract name does not have one.
        guard !name.isEmpty, name.count <= capacity - (abstract ? 0 : 1) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in name.enumerated() { raw[i] = byte }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        let length = socklen_t(pathOffset + name.count + (abstract ? 0 : 1))

        #if canImport(Glibc)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), sa, length)
                }
            }
        }
        return sent == bytes.count
    }
}
