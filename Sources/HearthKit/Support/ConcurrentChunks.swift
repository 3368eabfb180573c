import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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

/// Runs `body` over `lanes` (groups of indices, e.g. the files of one directory each) on all
/// cores, `chunkSize` indices at a time, keeping threads in different lanes while more than one
/// lane has work: a thread takes its next chunk from the free lane with the most work left.
/// Creating or renaming a file holds its directory's lock throughout, so a second thread in
/// the same directory mostly spins waiting for it (docs/performance.md, "Threads kept in separate
/// directories"). Within a lane, chunks start in order and never run two at once, unless
/// `share` lets a thread that finds no free lane join the busy one with the most left (for work
/// that holds the lock only part of the time, such as writing a temp file, where that beats
/// waiting). Returns the results of each lane's chunks in order, lanes in the order given.
public func concurrentLanes<T: Sendable>(
    _ lanes: [[Int]], chunkSize: Int = 128, share: Bool, _ body: @Sendable (ArraySlice<Int>) -> [T]
) -> [T] {
    let total = lanes.reduce(0) { $0 + $1.count }
    if total == 0 { return [] }
    let state = Mutex((lanes: lanes.map { _ in LaneProgress<T>() }, left: total))
    let take: @Sendable () -> LaneTake = {
        state.withLock { s in
            guard s.left > 0 else { return .done }
            var free: (lane: Int, left: Int)?
            var busy: (lane: Int, left: Int)?
            for i in s.lanes.indices {
                let left = lanes[i].count - s.lanes[i].next
                guard left > 0 else { continue }
                if s.lanes[i].busy == 0 {
                    if left > free?.left ?? 0 { free = (i, left) }
                } else if left > busy?.left ?? 0 {
                    busy = (i, left)
                }
            }
            guard let lane = free?.lane ?? (share ? busy?.lane : nil) else { return .wait }
            let start = s.lanes[lane].next
            let end = min(start + chunkSize, lanes[lane].count)
            s.lanes[lane].next = end
            s.lanes[lane].busy += 1
            s.left -= end - start
            return .chunk(lane: lane, range: start..<end)
        }
    }
    let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    DispatchQueue.concurrentPerform(iterations: min(cores, (total + chunkSize - 1) / chunkSize)) { _ in
        while true {
            switch take() {
            case .done: return
            case .wait: usleep(200)  // every lane with work left is busy; one frees within a chunk
            case .chunk(let lane, let range):
                let part = body(lanes[lane][range])
                state.withLock { s in
                    s.lanes[lane].busy -= 1
                    s.lanes[lane].results[range.lowerBound] = part
                }
            }
        }
    }
    return state.withLock { s in
        var out: [T] = []
        for i in s.lanes.indices {
            for start in s.lanes[i].results.keys.sorted() { out.append(contentsOf: s.lanes[i].results[start] ?? []) }
        }
        return out
    }
}

/// Where one lane of ``concurrentLanes(_:chunkSize:share:_:)`` stands.
private struct LaneProgress<T: Sendable>: Sendable {
    /// The index (into the lane) of its next chunk.
    var next = 0
    /// Threads running one of its chunks.
    var busy = 0
    /// Each chunk's results, by its first index.
    var results: [Int: [T]] = [:]
}

/// What a thread of ``concurrentLanes(_:chunkSize:share:_:)`` does next.
private enum LaneTake {
    case chunk(lane: Int, range: Range<Int>)
    case wait
    case done
}

/// Like ``concurrentChunks(count:chunkSize:_:)``, on `threads` threads of its own instead of one
/// per core: for work that mostly waits on the disk (files out of the page cache, where reads
/// in flight, not cores, set the pace). Results in index order.
package func concurrentChunks<T: Sendable>(count: Int, chunkSize: Int, threads: Int, _ body: @escaping @Sendable (Range<Int>) -> [T]) -> [T] {
    let chunks = (count + chunkSize - 1) / chunkSize
    if chunks <= 1 { return count == 0 ? [] : body(0..<count) }
    let shared = ChunkResults<T>()
    let done = DispatchGroup()
    for _ in 0..<min(threads, chunks) {
        done.enter()
        Thread.detachNewThread {
            while true {
                let c = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
                if c >= chunks { break }
                let part = body((c * chunkSize)..<min((c + 1) * chunkSize, count))
                shared.parts.withLock { $0[c] = part }
            }
            done.leave()
        }
    }
    done.wait()
    return shared.parts.withLock { dict in
        var out: [T] = []
        out.reserveCapacity(dict.values.reduce(0) { $0 + $1.count })
        for c in 0..<chunks { out.append(contentsOf: dict.removeValue(forKey: c) ?? []) }
        return out
    }
}

/// What the threads of ``concurrentChunks(count:chunkSize:threads:_:)`` share: the next chunk to
/// take and the parts done.
private final class ChunkResults<T: Sendable>: Sendable {
    let next = Atomic<Int>(0)
    let parts = Mutex<[Int: [T]]>([:])
}
