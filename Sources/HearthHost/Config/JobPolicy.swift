public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound
/// How the scheduler and runner treat a job (`[defaults]`, overridable per job).
public struct JobPolicy: Sendable, Equatable {
    public enum Overlap: String, Sendable, CaseIterable { case skip, queue }
    public enum CatchUp: String, Sendable, CaseIterable { case none, latest, all }

    public var timeout: Duration = .seconds(600)
    /// Extra attempts after a failure.
    public var retries: Int = 2
    public var backoffMin: Duration = .seconds(10)
    public var backoffMax: Duration = .seconds(300)
    public var overlap: Overlap = .skip
    public var catchUp: CatchUp = .latest
    public var catchUpWindow: Duration = .seconds(86_400)
    public var jitter: Duration = .zero
    public var onInvalidDocument: InvalidDocumentPolicy = .skip

    public init() {}
}
