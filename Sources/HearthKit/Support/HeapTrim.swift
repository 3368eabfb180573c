#if canImport(Glibc)
import Glibc
#endif

/// Hands the free pages of every malloc arena back to the system (glibc's `malloc_trim(0)`).
///
/// glibc keeps memory a run has freed (the documents a job decoded and dropped) resident in
/// its arenas, so the commit's own allocations would add to it instead of reusing it; a real
/// run calls this between the job and the commit (docs/performance.md#peak-memory-issue-17).
/// `malloc_trim` is looked up at run time because the Glibc module does not declare it; where
/// it is absent (another C library) this does nothing.
package enum HeapTrim {
    package static func releaseFreePages() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
