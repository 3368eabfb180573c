import Dispatch
import Synchronization

/// Splits `0..<count` into chunks, runs `body` on each chunk on all cores, and returns the
/// results concatenated in index order. The one place Hearth fans file work out to threads
/// (reading collections, decoding them, the benchmark floor).
public func concurrentChunks<T: Sendable>(count: Int, chunkSize: Int = 512, _ body: @Sendable (Range<Int>) -> [T]) -> [T] {
    let chunks = (count + chunkSize - 1) / chunkSize
    if chunks <= 1 { return count == 0 ? [] : body(0..<count) }
    let parts = Mutex<[Int: [T]]>([:])
    DispatchQueue.concurrentPerform(iterations: chunks) { c in
        let part = body((c * chunkSize)..<min((c + 1) * chunkSize, count))
        parts.withLock { $0[c] = part }
    }
    return parts.withLock { dict in
        var out: [T] = []
        // What the parts hold, not `count`: a part may be one value for a whole chunk (a
        // million documents decoded in chunks of 512 are 2,000 values, not a million).
        out.reserveCapacity(dict.values.reduce(0) { $0 + $1.count })
        // Each part is freed once copied: the results are in memory once, not twice.
        for c in 0..<chunks { out.append(contentsOf: dict.removeValue(forKey: c) ?? []) }
        return out
    }
}
