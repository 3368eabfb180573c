#if canImport(Glibc)
import Glibc

/// One Linux inotify instance and the pipe that wakes its reader: the only file that makes
/// inotify calls (docs/triggers.md#the-change-feed--data-directory).
///
/// Owned by the change feed's thread (``DirectoryChangeFeed``), which blocks in ``wait(into:)``
/// and closes it when it ends; the pipe's write end is the feed's ``DirectoryChangeFeed/Control``'s,
/// so other threads only ever write a byte to it.
struct Inotify {
    /// What a watch reports, and the flags of `inotify_add_watch` (inotify(7)).
    struct Mask: OptionSet, Sendable, Hashable {
        let rawValue: UInt32

        static let closeWrite = Mask(rawValue: UInt32(IN_CLOSE_WRITE))
        static let movedFrom = Mask(rawValue: UInt32(IN_MOVED_FROM))
        static let movedTo = Mask(rawValue: UInt32(IN_MOVED_TO))
        static let create = Mask(rawValue: UInt32(IN_CREATE))
        static let delete = Mask(rawValue: UInt32(IN_DELETE))
        static let deleteSelf = Mask(rawValue: UInt32(IN_DELETE_SELF))
        static let moveSelf = Mask(rawValue: UInt32(IN_MOVE_SELF))
        static let unmount = Mask(rawValue: UInt32(IN_UNMOUNT))
        static let queueOverflow = Mask(rawValue: UInt32(IN_Q_OVERFLOW))
        static let ignored = Mask(rawValue: UInt32(IN_IGNORED))
        static let isDirectory = Mask(rawValue: UInt32(IN_ISDIR))
        static let onlyDirectory = Mask(rawValue: UInt32(IN_ONLYDIR))
        static let dontFollow = Mask(rawValue: UInt32(IN_DONT_FOLLOW))
        static let excludeUnlinked = Mask(rawValue: UInt32(IN_EXCL_UNLINK))
    }

    /// One `struct inotify_event`.
    struct Event: Sendable, Equatable {
        /// The watch it is about; -1 for a queue overflow.
        var watch: Int32
        var mask: Mask
        /// The entry's name inside the watched directory; empty for an event about the
        /// directory itself.
        var name: String
    }

    /// What ``wait(into:)`` returned.
    enum Wake {
        /// The events of one `read(2)`.
        case events([Event])
        /// Bytes written to the wake pipe (``DirectoryChangeFeed/Control``), in order.
        case commands([UInt8])
    }

    /// A failed call, with its errno.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var call: String
        var errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    let descriptor: Int32
    /// The wake pipe's read end (non-blocking).
    let wakeReader: Int32
    /// Its write end, for ``DirectoryChangeFeed/Control``.
    let wakeWriter: Int32

    /// A new instance (close-on-exec, non-blocking) and its wake pipe.
    init() throws(Failure) {
        let fd = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard fd >= 0 else {
            throw Failure(call: "inotify_init1 (at most /proc/sys/fs/inotify/max_user_instances per user)", errno: errno)
        }
        var ends: [Int32] = [0, 0]
        guard linuxPipe2(&ends, O_CLOEXEC | O_NONBLOCK) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw Failure(call: "pipe2", errno: e)
        }
        descriptor = fd
        wakeReader = ends[0]
        wakeWriter = ends[1]
    }

    /// Adds (or, for a directory already watched, replaces) the watch of `path`; its watch
    /// descriptor, or the errno.
    func addWatch(_ path: String, _ mask: Mask) -> Result<Int32, Failure> {
        let wd = inotify_add_watch(descriptor, path, mask.rawValue)
        return wd >= 0 ? .success(wd) : .failure(Failure(call: "inotify_add_watch \(path)", errno: errno))
    }

    func removeWatch(_ wd: Int32) {
        _ = inotify_rm_watch(descriptor, wd)
    }

    /// Blocks (no timeout: nothing runs while nothing happens) until events or a command come.
    /// Commands first: a stop is not kept waiting behind a stream of events.
    func wait(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Wake {
        while true {
            var fds = [pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0), pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, -1)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "poll", errno: errno)
            }
            if fds[0].revents != 0 {
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 64)
                while true {
                    let r = read(wakeReader, &chunk, chunk.count)
                    if r > 0 { bytes += chunk[0..<r]; continue }
                    if r < 0, errno == EINTR { continue }
                    break
                }
                // A closed write end (r == 0, nothing read) means stop: the control is gone.
                return .commands(bytes.isEmpty ? [DirectoryChangeFeed.Control.stopByte] : bytes)
            }
            if fds[1].revents != 0 {
                let r = read(descriptor, buffer.baseAddress, buffer.count)
                if r < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw Failure(call: "read inotify", errno: errno)
                }
                return .events(Self.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<r])))
            }
        }
    }

    /// The `struct inotify_event` records of one read: wd, mask, cookie, len, then `len` bytes
    /// of NUL-padded name.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        var events: [Event] = []
        var at = 0
        let header = 16   // sizeof(struct inotify_event) without its name
        while at + header <= bytes.count {
            let wd = bytes.loadUnaligned(fromByteOffset: at, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self))
            let nameBytes = bytes[(at + header)..<min(bytes.count, at + header + length)]
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            events.append(Event(watch: wd, mask: Mask(rawValue: mask), name: name))
            at += header + length
        }
        return events
    }

    /// Closes the instance (every watch goes with it) and the pipe's read end.
    func close() {
        Glibc.close(descriptor)
        Glibc.close(wakeReader)
    }

    /// Writes `byte` to a wake pipe's write end (never blocks: a full pipe already wakes the
    /// reader).
    static func wake(_ writer: Int32, _ byte: UInt8) {
        var b = byte
        while write(writer, &b, 1) < 0, errno == EINTR {}
    }

    static func closeWriter(_ writer: Int32) {
        Glibc.close(writer)
    }
}

/// glibc's `pipe2(2)`, declared only under `_GNU_SOURCE`, so the Glibc module does not import
/// it; bound directly (both ends close-on-exec from the start).
@_silgen_name("pipe2")
private func linuxPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
#endif
