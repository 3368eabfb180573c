import Foundation
import Synchronization

/// The running executable of a command job: its stdin, stdout and stderr as raw pipes, read
/// and written with blocking system calls (callers run these on `BlockingIO` threads).
///
/// Foundation's `Process` starts and reaps the child; the pipes are used directly (`write`,
/// `poll`, `read`) so that a child that exits, or is killed, never leaves Hearth blocked on a
/// pipe that a grandchild still holds open.
final class FunctionProcess: Sendable {
    // `Process` is a class Foundation documents as usable across threads for `isRunning`,
    // `terminate` and `waitUntilExit`; it is only started by `init`.
    private let process: Process
    private let stdin: Int32
    private let stdout: Int32
    private let stderr: Int32
    private let stdinOpen = Mutex(true)
    private let signalled = Mutex(false)

    /// Starts `executable` with exactly `arguments` and `environment`, in `directory`.
    init(executable: String, arguments: [String], directory: String, environment: [String: String]) throws {
        FunctionProcess.ignoreSIGPIPE
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        let i = Pipe(), o = Pipe(), e = Pipe()
        p.standardInput = i
        p.standardOutput = o
        p.standardError = e
        try p.run()
        process = p
        // Our own descriptors (dup'ed, so Foundation's handles closing theirs cannot race ours).
        stdin = dup(i.fileHandleForWriting.fileDescriptor)
        stdout = dup(o.fileHandleForReading.fileDescriptor)
        stderr = dup(e.fileHandleForReading.fileDescriptor)
        try? i.fileHandleForWriting.close()
        try? o.fileHandleForReading.close()
        try? e.fileHandleForReading.close()
    }

    deinit {
        closeStdin()
        close(stdout)
        close(stderr)
    }

    /// A write to a pipe whose reader has gone must fail with EPIPE, not kill Hearth.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    var pid: Int32 { process.processIdentifier }

    /// Writes all of `bytes` to the child's stdin. Returns false when the child no longer
    /// reads it (it exited or closed stdin): the rest of the input is not needed.
    func write(_ bytes: [UInt8]) -> Bool {
        guard stdinOpen.withLock({ $0 }) else { return false }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(stdin, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Ends the child's input (EOF on its stdin).
    func closeStdin() {
        stdinOpen.withLock { open in
            if open { close(stdin) }
            open = false
        }
    }

    /// Reads stdout and stderr until both end, or until the child has exited and what it
    /// wrote has been drained, handing each complete line (without the newline) to `onStdout`
    /// / `onStderr`. A last line without a newline is handed over too.
    func readLines(onStdout: ([UInt8]) -> Void, onStderr: ([UInt8]) -> Void) {
        var fds = [pollfd(fd: stdout, events: Int16(POLLIN), revents: 0), pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)]
        var buffers: [[UInt8]] = [[], []]
        var open = [true, true]
        var chunk = [UInt8](repeating: 0, count: 65536)
        var exitedAt: ContinuousClock.Instant?
        func flush(_ i: Int, final: Bool) {
            var start = 0
            let b = buffers[i]
            while let nl = b[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(b[start..<nl])
                if i == 0 { onStdout(line) } else { onStderr(line) }
                start = nl + 1
            }
            buffers[i].removeFirst(start)
            if final, !buffers[i].isEmpty {
                if i == 0 { onStdout(buffers[i]) } else { onStderr(buffers[i]) }
                buffers[i] = []
            }
        }
        while open[0] || open[1] {
            for i in 0..<2 { fds[i].fd = open[i] ? (i == 0 ? stdout : stderr) : -1; fds[i].revents = 0 }
            let ready = poll(&fds, 2, 100)
            if ready < 0 && errno != EINTR { break }
            var gotData = false
            for i in 0..<2 where open[i] && fds[i].revents != 0 {
                let n = chunk.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress!, $0.count) }
                if n > 0 {
                    buffers[i].append(contentsOf: chunk[0..<n])
                    flush(i, final: false)
                    gotData = true
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    open[i] = false
                }
            }
            // A grandchild may keep a pipe open after the child is gone: once the child has
            // exited, stop when nothing more arrives for a short while.
            if !process.isRunning {
                let now = ContinuousClock.now
                if gotData { exitedAt = now } else if let t = exitedAt, now - t > .milliseconds(300) { break } else if exitedAt == nil { exitedAt = now }
            }
        }
        flush(0, final: true)
        flush(1, final: true)
    }

    /// Waits for the child to exit: its status, or the signal that killed it.
    func wait() -> (status: Int32, signal: Int32?) {
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? (0, process.terminationStatus) : (process.terminationStatus, nil)
    }

    /// SIGTERM now, SIGKILL after `grace` if the child is still there.
    func terminate(grace: Duration) {
        guard process.isRunning else { return }
        signalled.withLock { $0 = true }
        Glibc.kill(pid, SIGTERM)
        let p = process
        let nanos = Int(grace.components.seconds) * 1_000_000_000 + Int(grace.components.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanos)) {
            if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        }
    }

    /// SIGKILL now (after a protocol error: nothing the function does next matters).
    func kill() {
        guard process.isRunning else { return }
        signalled.withLock { $0 = true }
        Glibc.kill(pid, SIGKILL)
    }

    /// Whether Hearth itself signalled the child.
    var wasSignalled: Bool { signalled.withLock { $0 } }
}
