/// Something the runner can run once: reads documents through a ``JobContext`` and records
/// the writes it wants; the runner commits them atomically or shows them as a plan.
///
/// Built fresh for every run from its validated parameters, so `run` may keep no state
/// between runs. Compiled-in jobs conform through ``Job``; the host's command jobs (an
/// executable named in the config) conform directly, with a descriptor from the config.
public protocol RunnableJob: Sendable {
    /// Runs over the data. Must call no `Date()`: use `context.logicalTime` (windows) and
    /// `context.startTime` (audit timestamps).
    func run(_ context: JobContext) async throws
}

/// A job compiled into Hearth, registered with its static ``descriptor``.
public protocol Job: RunnableJob {
    /// Name, schedule, parameters and the collections the job touches.
    static var descriptor: JobDescriptor { get }

    /// Builds the job for one run; throws ``JobSetupError`` for a configuration the job
    /// cannot work with (it is reported before anything runs).
    init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError)
}

/// What a job learns about the host at set-up time.
public struct JobEnvironment: Sendable {
    /// `[notifications].types`: the notification types the apps can decode.
    public var notificationTypes: [String]
    /// Outbound HTTP (for jobs that call out, e.g. an external scorer).
    public var http: (any HTTPTransport)?
    /// `[push] provider`: which device tokens a queued push carries (see `PushMessages` in Jobs).
    public var pushProvider: PushProviderKind

    public init(notificationTypes: [String] = [], http: (any HTTPTransport)? = nil, pushProvider: PushProviderKind = .none) {
        self.notificationTypes = notificationTypes
        self.http = http
        self.pushProvider = pushProvider
    }
}

/// A job cannot start with its configuration; the message says why and what to change.
public struct JobSetupError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The static facts about a job.
public struct JobDescriptor: Sendable {
    public var name: String
    public var summary: String
    public var defaultSchedule: String
    public var parameters: [ParameterSpec]
    public var reads: [String]
    public var writes: [String]
    /// The collections whose writes start a run of the job by default (docs/triggers.md), each
    /// one of ``reads``; `[jobs.NAME] triggers` replaces them. Empty for jobs about time (a
    /// leaderboard, a weekly bonus), which only their schedule starts.
    public var triggers: [String]
    /// Whether the job's rule is an order across the documents it takes (gift-settle settles
    /// pending gifts in `createdAt` order, each on the balances the earlier ones left). On a store
    /// several daemons share, such a job's triggered run reads everything it would read on its
    /// schedule, not only the writes its daemon claimed: a write another daemon claimed and has
    /// not run yet is never overtaken by a later one (docs/operations/high-availability.md#jobs-whose-rule-is-an-order).
    public var ordered: Bool
    /// Whether apps can call the job (docs/callables.md) unless `[jobs.NAME] callable` says
    /// otherwise, and whether a call needs an ID token.
    public var callable: Bool
    public var callAuth: CallAuth

    /// - Parameter defaultSchedule: a cron expression or interval; `""` for a job with no
    ///   schedule (a callable one), which only calls, writes and `hearth run` start.
    public init(
        name: String, summary: String, defaultSchedule: String, parameters: [any ParameterDeclaration] = [], reads: [String], writes: [String],
        triggers: [String] = [], ordered: Bool = false, callable: Bool = false, callAuth: CallAuth = .required
    ) {
        self.ordered = ordered
        self.callable = callable
        self.callAuth = callAuth
        self.name = name
        self.summary = summary
        self.defaultSchedule = defaultSchedule
        self.parameters = parameters.map(\.spec)
        self.reads = reads
        self.writes = writes
        self.triggers = triggers
    }
}
