import Foundation
import HearthKit
import HearthHost
import Synchronization

/// A job for scheduler tests: by default it creates `marks/<logical time>.json`; a test can
/// give it its own behaviour under a scenario name (the `scenario` parameter), so tests that
/// run in parallel do not share state.
struct ProbeJob: Job {
    static let scenarioParameter = Parameter.string("scenario", default: "", help: "behaviour key")
    static let descriptor = JobDescriptor(
        name: "probe", summary: "scheduler test job", defaultSchedule: "*/15 * * * *",
        parameters: [scenarioParameter],
        reads: ["marks"], writes: ["marks"])

    static let registry = JobRegistry([ProbeJob.self])

    typealias Behaviour = @Sendable (JobContext) async throws -> Void
    private static let behaviours = Mutex<[String: Behaviour]>([:])

    /// Registers a behaviour; returns the scenario name to put in the job's params.
    static func scenario(_ behaviour: @escaping Behaviour) -> String {
        let name = UUID().uuidString
        behaviours.withLock { $0[name] = behaviour }
        return name
    }

    /// The default behaviour: one document per logical time.
    static func mark(_ ctx: JobContext) throws {
        let id = Timestamp.format(ctx.logicalTime).replacingOccurrences(of: ":", with: "-")
        ctx.create(try DocumentPath("marks", id), JSONObject([("logicalTime", Timestamp.json(ctx.logicalTime))]))
    }

    let scenario: String

    init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        scenario = parameters[Self.scenarioParameter]
    }

    func run(_ context: JobContext) async throws {
        if let behaviour = Self.behaviours.withLock({ $0[scenario] }) {
            try await behaviour(context)
        } else {
            try Self.mark(context)
        }
    }
}
