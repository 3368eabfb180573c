#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HearthKit
package import HearthStore

/// The data directory's audit log, `.hearth/audit.jsonl` (docs/operations/monitoring.md#the-audit-log):
/// one JSON line per action, appended with `O_APPEND` in one `write` (lines from several
/// processes never interleave), created with mode 0640, fsynced.
package struct AuditLogFile: Sendable {
    package let path: String
    let root: String
    let stateDirectory: String

    package init(data: DataDirectory) {
        path = data.stateDirectory + "/audit.jsonl"
        root = data.root
        stateDirectory = data.stateDirectory
    }

    package func append(_ entry: AuditEntry) throws(FileIO.Failure) {
        try FileIO.makeDirectories(stateDirectory, within: root)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode_t(0o640))
        guard fd >= 0 else { throw FileIO.Failure(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        // The mode whatever the umask: the log names users and notes, not for everyone.
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size == 0 { _ = fchmod(fd, mode_t(0o640)) }
        try FileIO.writeAll(fd, Array(JSONWriter.compact(.object(entry.json)).utf8) + [0x0A], path: path)
        if fsync(fd) != 0 { throw FileIO.Failure(path: path, operation: "fsync", errno: errno) }
    }

    /// Newest first; lines that do not parse are skipped.
    package func entries(job: String?, limit: Int?) throws(FileIO.Failure) -> [AuditEntry] {
        guard let read = try FileIO.readFile(path, limit: 1 << 30) else { return [] }
        var out: [AuditEntry] = []
        for line in read.bytes.split(separator: 0x0A).reversed() {
            guard case .object(let o)? = try? JSONParser.parse(Array(line)), let e = AuditEntry(json: o) else { continue }
            if let job, e.job != job { continue }
            out.append(e)
            if let limit, out.count >= limit { break }
        }
        return out
    }
}
