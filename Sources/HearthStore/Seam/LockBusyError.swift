import HearthKit

/// Another process holds a lock past the timeout (exit 75).
package struct LockBusyError: Error, Sendable, CustomStringConvertible {
    package var what: String
    package var lockFile: String
    package var holder: String
    package var waited: Duration

    package init(what: String, lockFile: String, holder: String, waited: Duration) {
        self.what = what
        self.lockFile = lockFile
        self.holder = holder
        self.waited = waited
    }

    package var description: String {
        let who = holder.isEmpty ? "another process" : "another process (\(holder))"
        return "\(what) is locked by \(who); waited \(DurationFormat.format(waited)) (lockTimeout). Try again when it has finished, or raise lockTimeout. Lock file: \(lockFile)"
    }
}
