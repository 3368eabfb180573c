import HearthKit

/// Why a command job's run failed (docs/functions.md#failures). Nothing is committed in
/// any of these cases; the message names the job and what to change.
package enum FunctionError: Error, Sendable, CustomStringConvertible {
    /// A line of the function's stdout broke the protocol.
    case badLine(job: String, line: Int, message: String)
    /// The function exited with a status other than 0.
    case exited(job: String, status: Int32, stderrTail: String)
    /// The function was killed by a signal (not by Hearth's timeout).
    case killed(job: String, signal: Int32, stderrTail: String)
    /// The executable could not be started.
    case spawn(job: String, command: String, reason: String)

    package var description: String {
        switch self {
        case .badLine(let job, let line, let message):
            return "function \(job): output line \(line): \(message); nothing was committed (see docs/functions.md#output)"
        case .exited(let job, let status, let tail):
            return "function \(job) exited with status \(status); nothing was committed" + Self.tail(tail)
        case .killed(let job, let signal, let tail):
            return "function \(job) was killed by signal \(signal); nothing was committed" + Self.tail(tail)
        case .spawn(let job, let command, let reason):
            return "function \(job): cannot start \(JSONWriter.quoted(command)): \(reason); fix `command` in [jobs.\(job)]"
        }
    }

    private static func tail(_ text: String) -> String {
        text.isEmpty ? "" : "; its last stderr lines:\n" + text
    }
}
