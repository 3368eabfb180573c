import Foundation
import HearthKit
import Synchronization
package import HearthStore

/// The data directory's change feed (docs/triggers.md#the-change-feed--data-directory): Linux
/// inotify on the requested collections' folders, read on a thread of its own that blocks in
/// `poll(2)` with no timeout, so nothing runs while nothing is written.
///
/// The thread is neither the cooperative pool's nor ``BlockingIO``'s: it blocks for the
/// feed's whole life. It ends, closing the inotify instance, when the stream's consumer
/// stops (``Control/stop()`` from `onTermination`).
package enum DirectoryChangeFeed {
    /// Starts watching `collections` (top-level collection names) of `data`; watching has
    /// started when it returns. Throws when inotify cannot be set up (the per-user instance
    /// limit, a data root that cannot be watched).
    package static func start(data: DataDirectory, collections: Set<String>) throws -> (events: AsyncStream<ChangeFeedEvent>, control: Control) {
        for c in collections.sorted() where !DocumentPath.isValid(name: c) {
            throw StoreError("the change feed cannot watch \(JSONWriter.quoted(c)): not a top-level collection name")
        }
        #if canImport(Glibc)
        let inotify: Inotify
        do { inotify = try Inotify() } catch { throw StoreError("cannot watch the data directory \(data.root) for writes: \(error)") }
        var watcher = DirectoryWatcher(inotify: inotify, data: data, collections: collections)
        let first: DirectoryWatcher.Output
        do { first = try watcher.setUp() } catch {
            watcher.tearDown()
            inotify.close()
            Inotify.closeWriter(inotify.wakeWriter)
            throw StoreError("cannot watch the data directory \(data.root) for writes: \(error)")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeFeedEvent.self, bufferingPolicy: .unbounded)
        for event in first.events { continuation.yield(event) }
        let control = Control(writer: inotify.wakeWriter)
        continuation.onTermination = { _ in control.stop() }
        let ready = watcher
        let thread = Thread {
            run(ready, continuation: continuation, control: control)
        }
        thread.name = "hearth.change-feed"
        thread.stackSize = 1 << 20
        thread.start()
        return (stream, control)
        #else
        throw StoreError("the data directory's change feed needs Linux (inotify)")
        #endif
    }

    #if canImport(Glibc)
    /// The feed's thread: wait, turn events into batches, deliver; until stopped.
    private static func run(_ watcher: DirectoryWatcher, continuation: AsyncStream<ChangeFeedEvent>.Continuation, control: Control) {
        var watcher = watcher
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: MemoryLayout<Int32>.alignment)
        defer {
            buffer.deallocate()
            watcher.tearDown()
            control.closeWriter()
            watcher.inotify.close()
            control.finished()
            continuation.finish()
        }
        while true {
            let output: DirectoryWatcher.Output
            do {
                switch try watcher.inotify.wait(into: buffer) {
                case .events(let events):
                    output = watcher.handle(events)
                case .commands(let bytes):
                    if bytes.contains(Control.stopByte) { return }
                    // The test hook: as if the kernel had reported an overflow.
                    output = watcher.handle(bytes.filter { $0 == Control.overflowByte }.map { _ in
                        Inotify.Event(watch: -1, mask: .queueOverflow, name: "")
                    })
                }
            } catch {
                continuation.yield(.lost(collections: watcher.requested, reason: "the change feed stopped: \(error)"))
                return
            }
            for event in output.events { continuation.yield(event) }
        }
    }

    #endif

    /// Stops a feed's thread; and for tests, simulates an inotify queue overflow and waits
    /// for the thread's end.
    package final class Control: Sendable {
        static let stopByte = UInt8(ascii: "s")
        static let overflowByte = UInt8(ascii: "o")

        private struct State {
            /// The wake pipe's write end; nil once the thread closed it.
            var writer: Int32?
            var finished = false
            var waiting: [CheckedContinuation<Void, Never>] = []
        }

        private let state: Mutex<State>

        init(writer: Int32) { state = Mutex(State(writer: writer)) }

        /// Asks the thread to stop (the stream's consumer ended); it closes the inotify
        /// instance and ends the stream.
        package func stop() { send(Self.stopByte) }

        /// Makes the feed behave as after an inotify queue overflow (a test hook: the kernel's
        /// queue cannot be made small without root).
        package func simulateOverflow() { send(Self.overflowByte) }

        /// Returns once the thread has ended and closed its descriptors.
        package func waitUntilFinished() async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s in
                    if s.finished { return true }
                    s.waiting.append(c)
                    return false
                }
                if resumeNow { c.resume() }
            }
        }

        private func send(_ byte: UInt8) {
            #if canImport(Glibc)
            state.withLock { s in
                if let w = s.writer { Inotify.wake(w, byte) }
            }
            #endif
        }

        func closeWriter() {
            #if canImport(Glibc)
            state.withLock { s in
                if let w = s.writer { Inotify.closeWriter(w) }
                s.writer = nil
            }
            #endif
        }

        func finished() {
            let waiting = state.withLock { s in
                s.finished = true
                defer { s.waiting = [] }
                return s.waiting
            }
            for c in waiting { c.resume() }
        }
    }
}
