/// The jobs Hearth knows, by name. The `Jobs` module builds the one registry
/// (`Jobs.registry`); HearthCore never imports it.
public struct JobRegistry: Sendable {
    public let jobs: [any Job.Type]

    public init(_ jobs: [any Job.Type]) { self.jobs = jobs }

    public var descriptors: [JobDescriptor] { jobs.map { $0.descriptor } }
    public var names: [String] { jobs.map { $0.descriptor.name } }

    public func job(named name: String) -> (any Job.Type)? {
        jobs.first { $0.descriptor.name == name }
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
