import Dispatch

/// Runs blocking work — waiting for a lock, writing and syncing a commit, reading and decoding
/// a collection on all cores — on threads outside Swift's cooperative pool, and resumes the
/// calling task with the result.
///
/// The cooperative pool has one thread per core (two here); a task that blocks one of them in
/// `flock`, `fsync` or `concurrentPerform` stalls every other task, including the daemon's
/// timers and the libcurl completions. So every async caller of blocking file work goes through
/// this one function (see docs/architecture.md#blocking-work). The queue is a concurrent
/// Dispatch queue, whose threads are created on demand and are not the cooperative pool's.
/// Cancellation is not forwarded: the work runs to its end (lock waits have a timeout).
public enum BlockingIO {
    private static let queue = DispatchQueue(label: "hearth.blocking-io", qos: .userInitiated, attributes: .concurrent)

    public static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
        }
        return try result.get()
    }
}
