public import Foundation
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

/// One job's settings after merging `[defaults]` and `[jobs.NAME]`.
public struct JobConfig: Sendable {
    public var name: String
    public var schedule: String
    /// The job's own zone, else the config's, else UTC.
    public var timeZone: TimeZone
    public var enabled: Bool
    public var policy: JobPolicy
    /// Parameter values from the config (checked against the job's declared parameters).
    public var params: [String: ParameterValue]
    /// healthchecks.io-style monitoring URL, if any.
    public var pingURL: String?

    public init(name: String, schedule: String, timeZone: TimeZone, enabled: Bool = true, policy: JobPolicy = JobPolicy(), params: [String: ParameterValue] = [:], pingURL: String? = nil) {
        self.name = name
        self.schedule = schedule
        self.timeZone = timeZone
        self.enabled = enabled
        self.policy = policy
        self.params = params
        self.pingURL = pingURL
    }
}
