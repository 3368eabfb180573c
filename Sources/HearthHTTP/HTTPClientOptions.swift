/// Settings for a ``CurlHTTPClient``, fixed for the client's lifetime.
package struct HTTPClientOptions: Sendable {
    /// Default limit for establishing a connection (TCP and TLS) when a request sets none.
    package var connectTimeout: Duration
    /// Default limit for a whole exchange when a request sets none.
    package var timeout: Duration
    /// A PEM file of CA certificates to trust instead of the system store (a private or test CA).
    /// Certificate and host-name verification are always on; there is no way to turn them off.
    package var caFile: String?
    /// At most this many connections to one host at once; further requests wait their turn.
    /// Over HTTP/2 one connection carries many requests, so this mostly limits HTTP/1.1.
    package var maxConnectionsPerHost: Int
    /// At most this many connections at once over all hosts.
    package var maxTotalConnections: Int
    /// `CURLOPT_CONNECT_TO` entries, `"host:port:connect-host:connect-port"`: requests for
    /// `host:port` connect to `connect-host:connect-port` instead while keeping the URL's host
    /// name for TLS (SNI, certificate check) and the `Host`/`:authority` header. Tests use this
    /// to reach a local server under a production host name.
    package var connectTo: [String]
    /// The `User-Agent` header sent unless a request sets its own.
    package var userAgent: String

    package init(
        connectTimeout: Duration = .seconds(5),
        timeout: Duration = .seconds(15),
        caFile: String? = nil,
        maxConnectionsPerHost: Int = 16,
        maxTotalConnections: Int = 128,
        connectTo: [String] = [],
        userAgent: String = "Hearth"
    ) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.caFile = caFile
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxTotalConnections = maxTotalConnections
        self.connectTo = connectTo
        self.userAgent = userAgent
    }
}
