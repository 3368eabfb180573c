import HearthKit
import HearthHost
import HearthOutbound
import HearthTesting
import Jobs

extension InMemoryStore {
    /// The document's text without a trailing newline (compares with a `"""` literal), as
    /// `TestDataDirectory.documentText` reads a file.
    func documentText(_ path: String) -> String? {
        guard let t = text(path) else { return nil }
        return t.hasSuffix("\n") ? String(t.dropLast()) : t
    }
}

extension JobEnvironment {
    /// What the runner gives a job under the built-in defaults (no config file):
    /// `[notifications] types` and `[push] provider`, as `TestDataDirectory.run` builds it.
    static func hostDefaults() throws -> JobEnvironment {
        let config = try ConfigLoader(jobs: JobCatalog.registry.descriptors, environment: [:]).parse("", file: "test.toml", dataOverride: "/nonexistent")
        return JobEnvironment(notificationTypes: config.notificationTypes, pushProvider: config.push.provider)
    }
}
