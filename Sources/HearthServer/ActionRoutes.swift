import Foundation
import Logging
import Hummingbird
import HTTPTypes
import NIOCore
import HearthKit
import HearthStore
import HearthHost

/// The endpoint's actions (docs/operations/api.md): run now, pause, resume, retry a dead
/// letter, and the browser's sign-in. Each needs an `operate` token (loopback included); a
/// session from `/login` must also echo its CSRF token. Every action an identified caller asks
/// for is written to the audit log with its outcome.
struct ActionRoutes: Sendable {
    let daemon: SchedulerDaemon
    let data: any StorageBackend
    let plans: PlanCache?
    let metrics: DaemonMetrics
    let credentials: Credentials
    let logger: Logger

    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let maxNote = 1000

    // MARK: - Routes

    /// The actions (`POST`, each needing an `operate` token) and the sign-in.
    func register(on router: Router<EndpointContext>) {
        let jobs = router.group("jobs/{name}")
        jobs.post("run") { request, context in await run(request, context, job: try context.parameters.require("name")) }
        jobs.post("pause") { request, context in await pause(request, context, job: try context.parameters.require("name")) }
        jobs.post("resume") { request, context in await resume(request, context, job: try context.parameters.require("name")) }
        router.post("/outbox/{id}/retry") { request, context in await retry(request, context, id: try context.parameters.require("id")) }
        router.get("/login") { _, _ in loginForm() }
        router.post("/login") { request, _ in await login(request) }
        router.post("/logout") { request, _ in logout(request) }
    }

    /// `POST /jobs/{name}/run`: `{"params": {…}, "dryRun": false, "force": false}`; 202 and
    /// `Location: /runs/{id}`, or with `?wait=1` 200 and the report of `hearth run --format json`.
    func run(_ request: Request, _ context: EndpointContext, job: String) async -> Response {
        var request = request
        let query = request.uri.queryParameters["wait"].map(String.init)
        return await act(.run, job: job, &request, context, accepted: ["params", "dryRun", "force", "csrf"]) { body, _ in
            let dryRun = try body.flag("dryRun")
            let force = try body.flag("force")
            let wait = try Self.waitParameter(query)
            let id: String
            do throws(SchedulerDaemon.RunRequestError) {
                id = try await daemon.requestRun(job: job, parameters: body.params, dryRun: dryRun, force: force)
            } catch {
                throw Self.failure(error)
            }
            let note = dryRun ? "dry run" : force ? "forced while paused" : nil
            guard wait else {
                var headers = HTTPFields()
                headers[.location] = "/runs/\(id)"
                let json = JSONObject([("runId", .string(id)), ("job", .string(job)), ("status", .string("queued")), ("location", .string("/runs/\(id)"))])
                return (Outcome(note: note, target: id), body.kind == .form ? Self.seeOther("/runs/\(id)") : Self.json(.accepted, json, headers: headers))
            }
            guard let record = await daemon.waitForRun(id) else {
                throw ActionFailure(.conflict, "run \(id) was dropped before it started (the job was paused or the daemon is stopping)", field: nil, fix: "resume the job, or send \"force\": true")
            }
            if body.kind == .form { return (Outcome(note: note, target: id), Self.seeOther("/runs/\(id)")) }
            return (Outcome(note: note, target: id), Self.report(record, plan: plans?.plan(runID: record.runID)))
        }
    }

    /// `POST /jobs/{name}/pause` `{"note": "…"}`.
    func pause(_ request: Request, _ context: EndpointContext, job: String) async -> Response {
        var request = request
        return await act(.pause, job: job, &request, context, accepted: ["note", "csrf"]) { body, who in
            let note = body.fields["note"].flatMap { $0.isEmpty ? nil : $0 }
            if let note, note.count > Self.maxNote {
                throw ActionFailure(.badRequest, "note is longer than \(Self.maxNote) characters", field: "note", fix: "shorten the note")
            }
            try await self.requireJob(job)
            let changed = try await daemon.pause(job: job, note: note, by: "token \(who.name)")
            var json = JSONObject([("job", .string(job)), ("paused", .bool(true)), ("changed", .bool(changed))])
            json["note"] = note.map { .string($0) } ?? .null
            return (Outcome(note: note, target: nil), body.kind == .form ? Self.seeOther("/jobs/\(job)") : Self.json(.ok, json))
        }
    }

    /// `POST /jobs/{name}/resume`.
    func resume(_ request: Request, _ context: EndpointContext, job: String) async -> Response {
        var request = request
        return await act(.resume, job: job, &request, context, accepted: ["csrf"]) { body, _ in
            try await self.requireJob(job)
            let changed = try await daemon.resume(job: job)
            let json = JSONObject([("job", .string(job)), ("paused", .bool(false)), ("changed", .bool(changed))])
            return (Outcome(note: changed ? nil : "was not paused", target: nil), body.kind == .form ? Self.seeOther("/jobs/\(job)") : Self.json(.ok, json))
        }
    }

    /// `POST /outbox/{id}/retry`: a dead letter back to pending, due now.
    func retry(_ request: Request, _ context: EndpointContext, id: String) async -> Response {
        var request = request
        return await act(.outboxRetry, job: nil, target: id, &request, context, accepted: ["csrf"]) { body, _ in
            let queue = data.outbox
            let moved = try await BlockingIO.run { () throws(any Error) in try queue.retry(id: id, now: Date()) }
            guard moved else {
                let pending = try await BlockingIO.run { () throws(any Error) in try queue.messages(in: .pending).contains { $0.id == id } }
                if pending {
                    throw ActionFailure(.conflict, "\(id) is not a dead letter: it is still pending", field: nil, fix: "wait for its next attempt (see the status page)")
                }
                throw ActionFailure(.notFound, "no dead letter has the id \(JSONWriter.quoted(id))", field: nil, fix: "see the dead letters on the status page or `hearth outbox dead`")
            }
            await daemon.outboxChanged()
            let json = JSONObject([("id", .string(id)), ("state", .string("pending"))])
            return (Outcome(note: nil, target: id), body.kind == .form ? Self.seeOther("/#outbox") : Self.json(.ok, json))
        }
    }

    /// `GET /login`: the sign-in form.
    func loginForm(error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        var body = "<h1>Sign in</h1>"
        if !credentials.required {
            body += "<p>No token is configured: the pages are open, and actions need an <code>operate</code> token (<code>[[server.tokens]]</code>, docs/operations/monitoring.md).</p>"
        }
        if let error { body += "<p class=\"bad\">\(HTML.escape(error))</p>" }
        body += """
            <form method="post" action="/login"><p><label>Token <input type="password" name="token" autocomplete="current-password" required></label>
            <button type="submit">Sign in</button></p></form>
            """
        return StatusRoutes.html(status, HTML.page(title: "Sign in", refresh: nil, body: body))
    }

    /// `POST /login` (a form with `token`): a session cookie, `HttpOnly; SameSite=Strict`.
    func login(_ request: Request) async -> Response {
        var request = request
        guard let body = try? await ActionRequest.read(&request, accepted: []), body.kind == .form, let token = body.fields["token"] else {
            return loginForm(error: "Send the form with the token.", status: .badRequest)
        }
        guard let who = credentials.token(matching: Array(token.trimmingCharacters(in: .whitespacesAndNewlines).utf8)) else {
            logger.notice("HTTP endpoint: a sign-in with a wrong token")
            return loginForm(error: "That token is not configured.", status: .unauthorized)
        }
        let session = credentials.signIn(who)
        var response = Self.seeOther("/")
        response.headers[.setCookie] = "\(Credentials.cookieName)=\(session); Path=/; Max-Age=\(Int(Credentials.sessionLifetime)); HttpOnly; SameSite=Strict"
        logger.notice("HTTP endpoint: signed in", metadata: ["token": "\(who.name)"])
        return response
    }

    /// `POST /logout`.
    func logout(_ request: Request) -> Response {
        credentials.signOut(cookie: request.headers[.cookie])
        var response = Self.seeOther("/login")
        response.headers[.setCookie] = "\(Credentials.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        return response
    }

    // MARK: - The common part

    struct Outcome {
        var note: String?
        var target: String?
    }

    /// Identifies the caller (401), checks the role (403), reads the body (400), checks the
    /// CSRF token of a session (403), runs `body`, and records the action with its outcome.
    func act(
        _ action: AuditEntry.Action, job: String?, target: String? = nil, _ request: inout Request, _ context: EndpointContext, accepted: [String],
        _ perform: (ActionRequest, Credentials.Identity) async throws -> (Outcome, Response)
    ) async -> Response {
        // A form is a browser's (its answers are pages and redirects); a client with a bearer
        // token gets JSON whatever it sends (urllib, for one, labels any body as a form).
        let isForm = request.headers[.authorization] == nil
            && request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        guard let who = context.identity else {
            let failure = credentials.required
                ? ActionFailure(.unauthorized, "this action needs a token of role operate", field: nil, fix: "send Authorization: Bearer <token>, or sign in at /login")
                : ActionFailure(.unauthorized, "actions need a token of role operate, and none is configured", field: nil, fix: "add [[server.tokens]] with role = \"operate\" to the configuration and restart the daemon")
            return Self.failed(failure, form: isForm)
        }
        var note: String?
        do {
            guard who.role == .operate else {
                throw ActionFailure(.forbidden, "token \(who.name) has the role read; this action needs operate", field: nil, fix: "use a token with role = \"operate\"")
            }
            var body = try await ActionRequest.read(&request, accepted: accepted)
            if !isForm { body.kind = .json }
            note = body.fields["note"]
            if let csrf = who.csrf {
                let given = body.fields["csrf"] ?? request.headers[Self.csrfHeader] ?? ""
                guard Credentials.constantTimeEqual(given, csrf) else {
                    throw ActionFailure(.forbidden, "the form's CSRF token is missing or wrong", field: "csrf", fix: "reload the page and submit the form again")
                }
            }
            let (outcome, response) = try await perform(body, who)
            await record(action, job: job, note: outcome.note ?? note, outcome: "ok", who: who, peer: context.peer, target: outcome.target ?? target)
            metrics.actionTaken(action)
            return response
        } catch let failure as ActionFailure {
            await record(action, job: job, note: note, outcome: "refused: \(failure.message)", who: who, peer: context.peer, target: target)
            return Self.failed(failure, form: isForm)
        } catch {
            logger.error("HTTP endpoint: \(action.rawValue) failed: \(error)")
            await record(action, job: job, note: note, outcome: "failed: \(error)", who: who, peer: context.peer, target: target)
            return Self.failed(ActionFailure(.internalServerError, "the action failed (see the daemon's log)", field: nil, fix: nil), form: isForm)
        }
    }

    func record(_ action: AuditEntry.Action, job: String?, note: String?, outcome: String, who: Credentials.Identity, peer: String, target: String?) async {
        let entry = AuditEntry(time: Date(), action: action, job: job, note: note, outcome: outcome, via: .http, token: who.name, peer: peer, target: target)
        let data = self.data
        do { try await BlockingIO.run { () throws(any Error) in try data.appendAudit(entry) } } catch {
            logger.error("HTTP endpoint: cannot write the audit log: \(error)", metadata: ["action": "\(action.rawValue)"])
        }
    }

    func requireJob(_ job: String) async throws {
        let known = await daemon.config.jobs.keys.sorted()
        guard known.contains(job) else {
            throw ActionFailure(.notFound, "unknown job \(JSONWriter.quoted(job))", field: nil, fix: "configured jobs: \(known.joined(separator: ", "))")
        }
    }

    static func waitParameter(_ value: String?) throws -> Bool {
        guard let w = value else { return false }
        switch w {
        case "1", "true": return true
        case "0", "false": return false
        default: throw ActionFailure(.badRequest, "wait=\(w) is not accepted", field: "wait", fix: "use ?wait=1 (answer when the run ends) or leave it out")
        }
    }

    static func failure(_ error: SchedulerDaemon.RunRequestError) -> ActionFailure {
        switch error {
        case .unknownJob(let name, let known):
            return ActionFailure(.notFound, "unknown job \(JSONWriter.quoted(name))", field: nil, fix: "configured jobs: \(known.joined(separator: ", "))")
        case .disabled: return ActionFailure(.conflict, error.description, field: nil, fix: "set enabled = true and reload the daemon")
        case .paused(let pause): return ActionFailure(.conflict, "\(pause.job) is paused\(pause.note.map { " (\($0))" } ?? "")", field: "force", fix: "resume it, or send \"force\": true to run it once anyway")
        case .stopping: return ActionFailure(.serviceUnavailable, error.description, field: nil, fix: "try again once the daemon is back")
        case .invalid(let field, let message): return ActionFailure(.badRequest, message, field: field, fix: "see the job's parameters with `hearth list --format json` or docs/jobs")
        }
    }

    // MARK: - Responses

    /// What `hearth run --format json` prints: the plan of a run that succeeded, else its record.
    static func report(_ record: RunRecord, plan: Plan?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        if let plan, !record.status.isFailure {
            var bytes: [UInt8] = []
            plan.writeJSON { bytes += $0 }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter.pretty(.object(record.json)) + "\n")))
    }

    static func json(_ status: HTTPResponse.Status, _ o: JSONObject, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter.pretty(.object(o)) + "\n")))
    }

    static func seeOther(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    static func failed(_ f: ActionFailure, form: Bool) -> Response {
        guard form else { return f.jsonResponse() }
        var body = "<p><a href=\"/\">← status</a></p><h1>\(f.status.code) \(HTML.escape(f.status.reasonPhrase))</h1><p class=\"bad\">\(HTML.escape(f.message))</p>"
        if let fix = f.fix { body += "<p>\(HTML.escape(fix))</p>" }
        if f.status == .unauthorized { body += "<p><a href=\"/login\">Sign in</a></p>" }
        return StatusRoutes.html(f.status, HTML.page(title: "\(f.status.code)", refresh: nil, body: body))
    }
}
