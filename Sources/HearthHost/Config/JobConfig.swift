package import Foundation
package import HearthKit

/// One job's settings after merging `[defaults]` and `[jobs.NAME]`.
package struct JobConfig: Sendable {
    package var name: String
    package var schedule: String
    /// The job's own zone, else the config's, else UTC.
    package var timeZone: TimeZone
    package var enabled: Bool
    package var policy: JobPolicy
    /// Parameter values from the config (checked against the job's declared parameters).
    package var params: [String: ParameterValue]
    /// healthchecks.io-style monitoring URL, if any.
    package var pingURL: String?
    /// The collections whose writes start a run (docs/triggers.md): `[jobs.NAME] triggers`,
    /// else the job's declared defaults; each one the job reads. Empty: only the schedule.
    package var triggers: [String]
    /// Writes that arrive within this long of the first one start one run (`triggerDelay`).
    package var triggerDelay: Duration
    /// Whether apps can call the job (`[jobs.NAME] callable`, else the job's declared default;
    /// docs/callables.md), and whether a call needs an ID token (`auth`).
    package var callable = false
    package var callAuth: CallAuth = .required

    package init(
        name: String, schedule: String, timeZone: TimeZone, enabled: Bool = true, policy: JobPolicy = JobPolicy(), params: [String: ParameterValue] = [:], pingURL: String? = nil,
        triggers: [String] = [], triggerDelay: Duration = JobConfig.defaultTriggerDelay
    ) {
        self.name = name
        self.schedule = schedule
        self.timeZone = timeZone
        self.enabled = enabled
        self.policy = policy
        self.params = params
        self.pingURL = pingURL
        self.triggers = triggers
        self.triggerDelay = triggerDelay
    }

    /// `triggerDelay` when the config does not set it.
    package static let defaultTriggerDelay: Duration = .milliseconds(20)
}
