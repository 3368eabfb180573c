import Foundation
import HearthKit
import Logging
import Synchronization

/// Applies a command job's output lines to its run's context as they arrive, and keeps what
/// the run needs afterwards: the first protocol error and the last lines of stderr.
final class FunctionOutput: Sendable {
    private struct State {
        var line = 0
        var failure: FunctionError?
        var stderrTail: [String] = []
        var refusal: CallError?
    }

    private let job: FunctionJob
    private let context: JobContext
    /// The version of every document streamed to the function.
    private let versions = Mutex<[DocumentPath: DocumentVersion]>([:])
    private let process: FunctionProcess
    private let state = Mutex(State())
    static let stderrTailLines = 10

    init(job: FunctionJob, context: JobContext, process: FunctionProcess) {
        self.job = job
        self.context = context
        self.process = process
    }

    /// Remembers the versions of documents written to the function's stdin.
    func streamed(_ documents: [(DocumentPath, DocumentVersion)]) {
        versions.withLock { v in for (p, version) in documents { v[p] = version } }
    }

    var streamedCount: Int { versions.withLock { $0.count } }

    var failure: FunctionError? { state.withLock { $0.failure } }
    /// The call's refusal, when the function answered one (`{"op": "error"}`).
    var refusal: CallError? { state.withLock { $0.refusal } }
    var stderrTail: String { state.withLock { $0.stderrTail.joined(separator: "\n") } }

    /// Reads the function's stdout and stderr to their end (blocking).
    func readAll() {
        process.readLines(onStdout: handle, onStderr: { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            self.state.withLock { s in
                s.stderrTail.append(text)
                if s.stderrTail.count > Self.stderrTailLines { s.stderrTail.removeFirst() }
            }
            self.job.logger.info("\(text)", metadata: ["job": "\(self.job.config.name)", "stream": "stderr"])
        })
    }

    private func handle(_ bytes: [UInt8]) {
        let n: Int? = state.withLock { s in
            guard s.failure == nil else { return nil }
            s.line += 1
            return s.line
        }
        guard let n else { return }
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return }   // blank lines are allowed
        do throws(FunctionAction.LineError) {
            let action = try FunctionAction.parse(bytes, writes: job.config.writes, notificationTypes: job.environment.notificationTypes)
            try apply(action)
        } catch {
            state.withLock { $0.failure = .badLine(job: job.config.name, line: n, message: error.message) }
            process.kill()
        }
    }

    /// The document as this run sees it: as read now, with the version the function was
    /// streamed (so the commit's version check covers what the function decided on).
    private func current(_ path: DocumentPath, _ op: String) throws(FunctionAction.LineError) -> Document? {
        let d: Document?
        do { d = try context.document(path) } catch {
            throw FunctionAction.LineError("\(op) \(path): \(error)")
        }
        guard let d else { return nil }
        guard let streamed = versions.withLock({ $0[path] }) else { return d }
        return Document(path: d.path, object: d.object, version: streamed)
    }

    private func apply(_ action: FunctionAction) throws(FunctionAction.LineError) {
        switch action {
        case .create(let path, let data):
            if context.isInvalid(path) { return }
            guard try current(path, "create") == nil else {
                throw FunctionAction.LineError("create \(path): the document exists; use \"update\" (or check for it before creating)")
            }
            context.create(path, data)
        case .replace(let path, let data):
            guard let d = try current(path, "update") else {
                throw FunctionAction.LineError("update \(path): no such document; use \"create\"")
            }
            context.update(d, to: data)
        case .merge(let path, let set, let remove):
            guard let d = try current(path, "update") else {
                throw FunctionAction.LineError("update \(path): no such document; use \"create\"")
            }
            context.update(d) { o in
                for (k, v) in set { o[k] = v }
                for k in remove { o[k] = nil }
            }
        case .delete(let path):
            guard let d = try current(path, "delete") else {
                throw FunctionAction.LineError("delete \(path): no such document")
            }
            context.delete(d)
        case .push(let id, let userID, let title, let body, let data, let badge):
            // Tokens come from the user document when the run happens, as for the built-in
            // jobs' pushes; a user without tokens gets no message.
            guard let userPath = try? DocumentPath("users", userID), let user = try current(userPath, "push") else {
                context.warn("push \(id): users/\(userID) does not exist; no push queued")
                return
            }
            let tokens = DeviceTokens(of: user, provider: job.environment.pushProvider).tokens
            guard !tokens.isEmpty else { return }
            context.queue(.push(id: "push-\(job.config.name)-\(id)", userID: userID, tokens: tokens, title: title, body: body, data: data, badge: badge))
        case .webhook(let id, let event, let data):
            context.queue(.event(event, id: "event-\(job.config.name)-\(id)", data: data))
        case .warn(let message):
            context.warn(message)
        case .log(let level, let message):
            job.logger.log(level: level, "\(message)", metadata: ["job": "\(job.config.name)"])
        case .result(let value):
            // Outside a call (a schedule, `hearth run`), nobody reads it.
            context.answer(value)
        case .refuse(let error):
            // Outside a call, the run fails with it, as a compiled-in job's `requireCall()`.
            state.withLock { $0.refusal = error }
        }
    }
}
