package import HearthKit
package import Logging

extension JobRegistry {
    /// This registry plus the config's command jobs (docs/functions.md), in name order.
    package func including(_ config: HearthConfig, logger: Logger) -> JobRegistry {
        adding(config.functions.keys.sorted().compactMap { name in
            guard let f = config.functions[name], let jc = config.jobs[name] else { return nil }
            return JobDefinition(descriptor: f.descriptor(schedule: jc.schedule, params: jc.params)) { (parameters, environment) throws(JobSetupError) in
                try FunctionJob(config: f, parameters: parameters, environment: environment, logger: logger)
            }
        })
    }
}
