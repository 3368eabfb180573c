#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user, groups and capabilities of this process (for ``FileOwnership``).
package struct ProcessIdentity: Sendable {
    package var euid: UInt32
    package var egid: UInt32
    /// The effective group and the supplementary groups.
    package var groups: Set<UInt32>
    /// Whether the process may give files any owner and group (`CAP_CHOWN`: root, unless a
    /// unit's `CapabilityBoundingSet=` took it away).
    package var canChangeOwner: Bool

    /// `nobody (uid 65534, gid 65534)`, for messages.
    package var described: String {
        "\(Self.userName(euid) ?? String(euid)) (uid \(euid), gid \(egid))"
    }

    static func current() -> ProcessIdentity {
        let euid = geteuid()
        let egid = getegid()
        var groups: Set<UInt32> = [egid]
        let n = getgroups(0, nil)
        if n > 0 {
            var list = [gid_t](repeating: 0, count: Int(n))
            let got = getgroups(n, &list)
            if got > 0 { groups.formUnion(list.prefix(Int(got))) }
        }
        let status = (try? FileIO.readSmallFile("/proc/self/status")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        var capEff: UInt64?
        for line in status.split(separator: "\n") {
            if line.hasPrefix("CapEff:") {
                capEff = UInt64(String(line.dropFirst(7).filter { !$0.isWhitespace }), radix: 16)
            }
        }
        let cap = capEff.map { $0 & 1 != 0 } ?? (euid == 0)  // CAP_CHOWN is capability 0
        return ProcessIdentity(euid: euid, egid: egid, groups: groups, canChangeOwner: cap)
    }

    /// The user name of `uid`, nil when unknown.
    package static func userName(_ uid: UInt32) -> String? {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &pw, &buffer, buffer.count, &result) == 0, result != nil, let name = pw.pw_name else { return nil }
        return String(cString: name)
    }

    /// The group name of `gid`, nil when unknown.
    package static func groupName(_ gid: UInt32) -> String? {
        var gr = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getgrgid_r(gid, &gr, &buffer, buffer.count, &result) == 0, result != nil, let name = gr.gr_name else { return nil }
        return String(cString: name)
    }

    /// The uid of user `name`, nil when unknown.
    package static func uid(ofUser name: String) -> UInt32? {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &pw, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return pw.pw_uid
    }
}
