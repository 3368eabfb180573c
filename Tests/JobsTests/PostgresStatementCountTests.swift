import Foundation
import HearthKit
import HearthStore
import HearthPostgres
import HearthHost
import HearthOutbound
import Jobs
import Logging
import Testing
import HearthTestSupport

/// No job sends PostgreSQL one statement per document it reads (docs/storage/postgres.md#reads):
/// every job's dry run over the demo data of 240 users sends about as many statements as over
/// 60 users, though it reads four times the documents. A job that looks documents up one at a
/// time (as streak-reset looks up each streak's user) would send one more statement per
/// document; reads by collection, by batch of paths, or single reads in id order (a snapshot
/// reads ahead) do not grow with the documents. Real server.
@Suite("statements per run on PostgreSQL")
struct PostgresStatementCountTests {
    static let now = "2026-11-18T12:00:00Z"
    static let small = 60
    static let large = 240

    /// A migrated database holding `DemoData(users:seed: 7)`, imported as `hearth data import` does.
    static func backend(users: Int) async throws -> PostgresBackend {
        let url = try await PostgresServer.shared().database()
        let dir = try TempDirectory("hearth-statements")
        defer { dir.remove() }
        try DemoData(users: users, seed: 7).write(to: dir.path + "/data")
        let data = dir.path + "/data"
        return try await BlockingIO.run { () throws(any Error) -> PostgresBackend in
            _ = try PostgresSchema.migrate(PostgresConnection(url: url))
            _ = try PostgresTransfer.importDirectory(data, into: PostgresBackend(url: url), replace: false)
            return try PostgresBackend(url: url)
        }
    }

    /// The statements `job`'s dry run at `now` sends, and the documents it reads.
    static func dryRun(_ job: String, on backend: PostgresBackend, state: String, dryRun: Bool = true) async throws -> (statements: Int, read: Int) {
        let config = try ConfigLoader(jobs: JobCatalog.registry.descriptors, environment: [:]).parse("", file: "test.toml", dataOverride: state)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let runner = Runner(
            config: config, data: backend, registry: JobCatalog.registry,
            environment: JobEnvironment(notificationTypes: config.notificationTypes, pushProvider: config.push.provider), logger: logger)
        let date = try #require(Timestamp.parseISO8601(now))
        let before = backend.statements.total
        let outcome = try await runner.run(job, options: RunOptions(trigger: .cli, logicalTime: date, startTime: date, dryRun: dryRun))
        #expect(outcome.error == nil, "\(job): \(String(describing: outcome.error))")
        return (backend.statements.total - before, outcome.record.documentsRead)
    }

    @Test func noJobSendsAStatementPerDocumentItReads() async throws {
        let small = try await Self.backend(users: Self.small)
        let large = try await Self.backend(users: Self.large)
        let state = try TempDirectory("hearth-statements-state")
        defer { state.remove() }
        for job in JobCatalog.registry.descriptors.filter({ !$0.callable }).map(\.name) {
            let few = try await Self.dryRun(job, on: small, state: state.path)
            let many = try await Self.dryRun(job, on: large, state: state.path)
            // Reads go by chunks of 512 documents: a few more statements for four times the data.
            let allowed = 2 + (many.read - few.read) / 256
            #expect(
                many.statements - few.statements <= allowed,
                "\(job): \(few.statements) statements reading \(few.read) documents, \(many.statements) reading \(many.read)")
        }
    }

    /// A run's steps — its lock, its snapshot, its commit, its run record — take turns on the
    /// backend's pooled connections (docs/storage/postgres.md#connections). Dry runs read on the
    /// backend's first connection (its schema check); a real run's lock holds one, its snapshot
    /// another, which its commit reuses. So seven runs, four of them real, open one connection
    /// in all, or up to three when a decoding thread lets go of a snapshot a moment after its
    /// commit began. Before the pool they opened 18 (three per real run, two per dry run, each
    /// beside the backend's own).
    @Test func runsReuseTheConnectionsOfTheRunsBefore() async throws {
        let backend = try await Self.backend(users: Self.small)
        let state = try TempDirectory("hearth-connections-state")
        defer { state.remove() }
        var opened: [Int] = []
        for (job, dry) in [("gift-settle", false), ("xp-leaderboard", true), ("gift-settle", true), ("gift-settle", false), ("friend-notify", false), ("xp-leaderboard", true), ("gift-settle", false)] {
            let before = backend.statements.connections
            _ = try await Self.dryRun(job, on: backend, state: state.path, dryRun: dry)
            opened.append(backend.statements.connections - before)
        }
        #expect(opened.reduce(0, +) <= 3, "connections opened by each run: \(opened)")
    }
}
