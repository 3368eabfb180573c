#if canImport(Glibc)
import Glibc
#endif

/// Hands the free pages of every malloc arena back to the system (glibc's `malloc_trim(0)`).
///
/// glibc keeps memory a run has freed (the documents a job decoded and dropped) resident in
/// its arenas, so the commit's own allocations would add to it instead of reusing it; a real
/// run calls this between the job and the commit (docs/performance.md#peak-memory).
/// `malloc_trim` is looked up at run time because the Glibc module does not declare it; where
/// it is absent (another C library) this does nothing.
package enum HeapTrim {
    /// Caps glibc's malloc arenas at `count` (`mallopt(M_ARENA_MAX, count)`; glibc's default is 8
    /// per core). A long-lived daemon whose runs decode on many threads otherwise keeps a
    /// fragmented arena per thread that ran one: at 100,000 users on PostgreSQL, 25 MiB of
    /// anonymous memory after the start-up runs and their trim instead of 6
    /// (docs/performance.md#daemon-idle-cost). Looked up at run time like `malloc_trim`.
    package static func limitArenas(to count: Int) {
        mallopt(-8, Int32(max(1, count)))  // M_ARENA_MAX in <malloc.h>
    }

    /// Fixes glibc's mmap and trim thresholds at 4 MiB and 128 KiB (`mallopt(M_MMAP_THRESHOLD)`,
    /// `mallopt(M_TRIM_THRESHOLD)`), turning off their growth. Left dynamic, each big block
    /// freed raises them (up to 32 and 64 MiB), so later big blocks come from the arenas, and an
    /// arena other than the main one keeps its top resident: `malloc_trim` shrinks only the main
    /// one's. After start-up runs at 100,000 users whose commit the daemon's own change feed then
    /// reads (about 100,000 paths), a data-directory daemon kept 28.1 MiB anonymous with dynamic
    /// thresholds and 8.1 MiB with fixed ones (docs/performance.md#daemon-idle-cost). Blocks
    /// over 4 MiB are mapped and unmapped each time; with 256 KiB, the page faults of that made
    /// a burst of 10,000 triggered gifts settle 1.97 s after the last write instead of 1.84 s.
    package static func fixThresholds() {
        mallopt(-3, 4 * 1024 * 1024)  // M_MMAP_THRESHOLD in <malloc.h>
        mallopt(-1, 128 * 1024)  // M_TRIM_THRESHOLD
    }

    /// glibc's `mallopt(option, value)`, looked up at run time like `malloc_trim`.
    private static func mallopt(_ option: Int32, _ value: Int32) {
        #if canImport(Glibc)
        typealias Option = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Option.self)(option, value)
        #endif
    }

    package static func releaseFreePages() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
