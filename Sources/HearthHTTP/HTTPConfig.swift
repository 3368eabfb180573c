/// `[http]`: options of the outbound HTTP client.
package struct HTTPConfig: Sendable, Equatable {
    package var caFile: String?
    package var connectTimeout: Duration = .seconds(5)
    package var timeout: Duration = .seconds(15)
    package init() {}
}

extension HTTPClientOptions {
    /// Timeouts and CA from the config's `[http]`.
    package init(_ config: HTTPConfig) {
        self.init(connectTimeout: config.connectTimeout, timeout: config.timeout, caFile: config.caFile)
    }
}
