import Foundation
import Logging
import Hummingbird
import HTTPTypes
import NIOCore
import HearthKit
import HearthStore
import HearthHost

/// The endpoint's handlers. Failures answer 500 with a short fixed text (the details go to
/// the log): no stack, no path leaves the process.
struct StatusRoutes: Sendable {
    let daemon: SchedulerDaemon
    let metrics: DaemonMetrics
    let data: any StorageBackend
    let plans: PlanCache?
    let credentials: Credentials
    let logger: Logger

    static let latestRuns = 30
    static let latestActions = 10

    /// The pages, the health checks and the metrics (`GET`).
    func register(on router: Router<EndpointContext>) {
        router.get("/healthz") { _, _ in healthz() }
        router.get("/readyz") { _, _ in await readyz() }
        router.get("/metrics") { _, _ in await metricsText() }
        router.get("/") { _, context in await index(context) }
        router.get("/jobs/{name}") { _, context in await job(context, name: try context.parameters.require("name")) }
        router.get("/runs/{id}") { _, context in await run(id: try context.parameters.require("id")) }
    }

    /// Who looks at a page: the forms appear for a session with an `operate` token.
    func viewer(_ context: EndpointContext) -> Viewer {
        let who = context.identity
        return Viewer(csrf: who?.role == .operate ? who?.csrf : nil, tokensConfigured: credentials.required, name: who?.name)
    }

    static func response(_ status: HTTPResponse.Status, _ contentType: String, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func html(_ status: HTTPResponse.Status, _ body: String) -> Response {
        response(status, "text/html; charset=utf-8", body)
    }

    func failed(_ what: String, _ error: any Error) -> Response {
        logger.error("HTTP endpoint: \(what) failed: \(error)")
        return Self.response(.internalServerError, "text/plain; charset=utf-8", "internal error (see the daemon's log)\n")
    }

    /// `GET /healthz`: the process answers.
    func healthz() -> Response {
        Self.response(.ok, "application/json", "{\"status\": \"ok\"}\n")
    }

    /// `GET /readyz`: the configuration is loaded (the daemon does not start without it), the
    /// data backend is reachable and the scheduling loop is running; 503 with the reasons
    /// otherwise.
    func readyz() async -> Response {
        let status = await daemon.status(fireCount: 0)
        var reasons: [String] = []
        if !status.alive { reasons.append("the scheduler loop is not running") }
        if status.stopping { reasons.append("the daemon is stopping") }
        if let problem = await Self.backendProblem(data) { reasons.append(problem) }
        let checks = JSONObject([
            ("config", .string("loaded")), ("backend", .string(reasons.contains { $0.hasPrefix("the data backend") } ? "unreachable" : "ok")),
            ("scheduler", .string(status.alive && !status.stopping ? "running" : "not running")),
        ])
        let body = JSONObject([
            ("status", .string(reasons.isEmpty ? "ready" : "not ready")), ("reasons", .array(reasons.map { .string($0) })), ("checks", .object(checks)),
        ])
        return Self.response(reasons.isEmpty ? .ok : .serviceUnavailable, "application/json", JSONWriter.pretty(.object(body)) + "\n")
    }

    /// Whether the backend answers (``StorageBackend/healthProblem()``): for a data directory,
    /// whether it and its state directory can be listed and written; for another backend,
    /// whether a run-history query succeeds.
    static func backendProblem(_ data: any StorageBackend) async -> String? {
        await BlockingIO.run { () -> String? in data.healthProblem() }
    }

    /// The outbox's messages in `folder`, on the data directory or PostgreSQL
    /// (docs/outbox-and-webhooks.md#postgresql).
    static func outboxMessages(_ folder: OutboxFolder, _ data: any OutboxStore) throws -> [OutboxEnvelope] {
        try data.outbox.messages(in: folder)
    }

    /// `GET /metrics`: the gauges set from the daemon and the outbox, then everything.
    func metricsText() async -> Response {
        let status = await daemon.status(fireCount: 1)
        let data = self.data
        do {
            let counts = try await BlockingIO.run { () throws(any Error) -> DaemonMetrics.OutboxCounts in
                var counts = DaemonMetrics.OutboxCounts()
                for e in try Self.outboxMessages(.pending, data) { counts.pending[e.kind?.rawValue ?? "unknown", default: 0] += 1 }
                for e in try Self.outboxMessages(.dead, data) { counts.dead[e.kind?.rawValue ?? "unknown", default: 0] += 1 }
                return counts
            }
            metrics.update(status, outbox: counts)
        } catch {
            return failed("reading the outbox for /metrics", error)
        }
        let bytes = metrics.exposition()
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `GET /`: the status page.
    func index(_ context: EndpointContext) async -> Response {
        let status = await daemon.status(fireCount: 3)
        let data = self.data
        do {
            let (runs, pending, dead, audit) = try await BlockingIO.run { () throws(any Error) in
                (
                    try data.runRecords(job: nil, status: nil, limit: Self.latestRuns),
                    try Self.outboxMessages(.pending, data), try Self.outboxMessages(.dead, data),
                    try data.auditEntries(job: nil, limit: Self.latestActions)
                )
            }
            return Self.html(.ok, StatusPage(status: status, runs: runs, pending: pending, dead: dead, now: Date(), audit: audit, viewer: viewer(context)).render())
        } catch {
            return failed("rendering the status page", error)
        }
    }

    /// `GET /jobs/{name}`: the job page.
    func job(_ context: EndpointContext, name: String) async -> Response {
        let status = await daemon.status(fireCount: 3)
        guard let job = status.jobs.first(where: { $0.name == name }) else {
            return Self.html(.notFound, HTML.page(title: "Not found", refresh: nil, body: "<p><a href=\"/\">← status</a></p><h1>No job \(HTML.escape(name))</h1><p>Configured jobs: \(HTML.escape(status.jobs.map(\.name).joined(separator: ", "))).</p>"))
        }
        let data = self.data
        do {
            let (runs, audit) = try await BlockingIO.run { () throws(any Error) in
                (try data.runRecords(job: name, status: nil, limit: JobPage.runLimit), try data.auditEntries(job: name, limit: Self.latestActions))
            }
            return Self.html(.ok, JobPage(job: job, runs: runs, audit: audit, viewer: viewer(context)).render())
        } catch {
            return failed("rendering a job page", error)
        }
    }

    /// `GET /runs/{id}`.
    func run(id: String) async -> Response {
        let data = self.data
        guard !id.isEmpty, id.utf8.count <= 128 else { return notFound(id) }
        do {
            let record = try await BlockingIO.run { () throws(any Error) in
                try data.runRecord(id: id)
            }
            guard let record else {
                if let pending = await daemon.pendingRun(id) { return Self.html(.ok, RunPage.pending(id: id, job: pending.job, running: pending.running)) }
                return notFound(id)
            }
            return Self.html(.ok, RunPage(record: record, plan: plans?.plan(runID: id)).render())
        } catch {
            return failed("rendering a run page", error)
        }
    }

    func notFound(_ id: String) -> Response {
        Self.html(.notFound, HTML.page(title: "Not found", refresh: nil, body: "<p><a href=\"/\">← status</a></p><h1>No run \(HTML.escape(id))</h1><p>Only the newest <code>historyLimit</code> records of each job are kept.</p>"))
    }
}
