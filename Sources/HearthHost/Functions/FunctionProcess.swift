import Foundation
import CSpawn
import Synchronization

/// The running executable of a command job: its stdin, stdout and stderr as raw pipes, read
/// and written with blocking system calls (callers run these on `BlockingIO` threads).
///
/// Started with `posix_spawn` in a process group of its own, with every signal unblocked and
/// SIGPIPE, SIGTERM and SIGINT at their defaults (Hearth blocks or ignores some of them for
/// itself), so that a timeout's SIGTERM reaches the function and whatever it started.
final class FunctionProcess: Sendable {
    let pid: pid_t
    private let stdin: Int32
    private let stdout: Int32
    private let stderr: Int32
    private let stdinOpen = Mutex(true)
    private let exit = Mutex<Int32?>(nil)

    struct SpawnError: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }

    /// Starts `executable` with exactly `arguments` and `environment`, in `directory`.
    init(executable: String, arguments: [String], directory: String, environment: [String: String]) throws {
        FunctionProcess.ignoreSIGPIPE
        var pipes: [[Int32]] = []
        defer { if pipes.count < 3 { for p in pipes { close(p[0]); close(p[1]) } } }
        for _ in 0..<3 {
            var fds: [Int32] = [0, 0]
            let rc = hearth_pipe_cloexec(&fds)
            guard rc == 0 else { throw SpawnError(errno: rc) }
            pipes.append(fds)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.keys.sorted().map { strdup("\($0)=\(environment[$0]!)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        let rc = hearth_spawn(&child, executable, argv, envp, directory, [pipes[0][0], pipes[1][1], pipes[2][1]])
        close(pipes[0][0])
        close(pipes[1][1])
        close(pipes[2][1])
        guard rc == 0 else {
            close(pipes[0][1])
            close(pipes[1][0])
            close(pipes[2][0])
            throw SpawnError(errno: rc)
        }
        pid = child
        stdin = pipes[0][1]
        stdout = pipes[1][0]
        stderr = pipes[2][0]
    }

    deinit {
        closeStdin()
        close(stdout)
        close(stderr)
        if exit.withLock({ $0 }) == nil { _ = wait() }
    }

    /// A write to a pipe whose reader has gone must fail with EPIPE, not kill Hearth.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

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
        var quietSince: ContinuousClock.Instant?   // set once the child has exited and nothing came
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
            // exited, stop when nothing more arrives for a short while. (Only asked when a pass
            // brought nothing: while output flows, the child is not waited for.)
            if gotData {
                quietSince = nil
            } else if let since = quietSince {
                if ContinuousClock.now - since > .milliseconds(300) { break }
            } else if !isRunning {
                quietSince = ContinuousClock.now
            }
        }
        flush(0, final: true)
        flush(1, final: true)
    }

    /// Whether the child has not exited yet (it is not reaped here: ``wait()`` does that).
    var isRunning: Bool {
        if exit.withLock({ $0 }) != nil { return false }
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == 0
    }

    /// Waits for the child to exit: its status, or the signal that killed it.
    func wait() -> (status: Int32, signal: Int32?) {
        var status: Int32 = 0
        if let s = exit.withLock({ $0 }) { status = s } else {
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exit.withLock { $0 = status }
        }
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, nil) : (0, signal)
    }

    /// SIGTERM to the function's process group now, SIGKILL after `grace` if the function is
    /// still there.
    func terminate(grace: Duration) {
        guard isRunning else { return }
        Glibc.kill(-pid, SIGTERM)
        let nanos = Int(grace.components.seconds) * 1_000_000_000 + Int(grace.components.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanos)) { [self] in
            if isRunning { Glibc.kill(-pid, SIGKILL) }
        }
    }

    /// SIGKILL to the process group now (after a protocol error: nothing the function does
    /// next matters).
    func kill() {
        guard isRunning else { return }
        Glibc.kill(-pid, SIGKILL)
    }
}
