/// The jobs Hearth knows, by name. The `Jobs` module builds the registry of compiled-in jobs
/// (`JobCatalog.registry`), which the host never imports; the host adds the config's command
/// jobs to it.
public struct JobRegistry: Sendable {
    public let jobs: [JobDefinition]

    public init(_ jobs: [any Job.Type]) { self.jobs = jobs.map(JobDefinition.init) }

    public init(definitions: [JobDefinition]) { self.jobs = definitions }

    public var descriptors: [JobDescriptor] { jobs.map(\.descriptor) }
    public var names: [String] { jobs.map(\.descriptor.name) }

    public func job(named name: String) -> JobDefinition? {
        jobs.first { $0.descriptor.name == name }
    }

    /// This registry followed by `more` (whose names must be new).
    public func adding(_ more: [JobDefinition]) -> JobRegistry {
        JobRegistry(definitions: jobs + more)
    }
}

/// One registered job: what it declares, and how to build it for a run.
public struct JobDefinition: Sendable {
    public let descriptor: JobDescriptor
    private let factory: @Sendable (JobParameters, JobEnvironment) throws(JobSetupError) -> any RunnableJob

    /// A compiled-in job.
    public init(_ type: any Job.Type) {
        descriptor = type.descriptor
        factory = { (p, e) throws(JobSetupError) in try type.init(parameters: p, environment: e) }
    }

    /// A job whose declaration is known only at run time (a command job from the config).
    public init(descriptor: JobDescriptor, factory: @escaping @Sendable (JobParameters, JobEnvironment) throws(JobSetupError) -> any RunnableJob) {
        self.descriptor = descriptor
        self.factory = factory
    }

    /// Builds the job for one run.
    public func make(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) -> any RunnableJob {
        try factory(parameters, environment)
    }
}

/// `hearth run NAME` for a name nobody registered (exit 64).
public struct UnknownJobError: Error, Sendable, CustomStringConvertible {
    public var name: String
    public var known: [String]
    public init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }
    public var description: String {
        "unknown job \(JSONWriter.quoted(name)); registered jobs: \(known.joined(separator: ", ")) (see `hearth list`)"
    }
}
