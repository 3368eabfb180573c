import Dispatch

/// `CLOCK_MONOTONIC` in microseconds, as systemd's `MONOTONIC_USEC=` wants it with
/// `RELOADING=1`: on Linux, libdispatch's uptime (`DispatchTime.now()`) reads that clock. Not
/// `clock_gettime` with a `timespec`: in a module that imports Foundation too, a release build
/// takes `timespec` for CoreFoundation's and `MemberImportVisibility` rejects its fields.
enum MonotonicTime {
    static func microseconds() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds / 1000
    }
}
