/// How callable functions check the `Authorization: Bearer` ID token (`[auth]` in the config,
/// docs/operations/callable-auth.md): where the signing keys come from, and the issuer and
/// audience a token must name.
package struct AuthConfig: Sendable, Equatable {
    /// Where the public keys that sign ID tokens are published.
    package enum KeySource: Sendable, Equatable {
        /// A JSON Web Key Set (`{"keys": [...]}`, RFC 7517) fetched over HTTP.
        case jwksURL(String)
        /// A JSON Web Key Set in a file (absolute path).
        case jwksFile(String)
        /// A map of key ID to PEM X.509 certificate fetched over HTTP: the format Google publishes
        /// Firebase Auth's keys in (``AuthConfig/firebaseCertsURL``).
        case certsURL(String)
    }

    /// Google's certificate map for Firebase Auth ID tokens.
    package static let firebaseCertsURL = "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    package var source: KeySource
    /// The `iss` a token must have; for Firebase Auth `https://securetoken.google.com/PROJECT`.
    package var issuer: String
    /// The `aud` a token must have (or list); for Firebase Auth the project ID.
    package var audience: String
    /// How long keys fetched over HTTP are kept when the response has no `Cache-Control: max-age`.
    package var defaultMaxAge: Duration
    /// The least time between two key fetches caused by a token whose `kid` is not among the keys
    /// (and between retries after a failed fetch).
    package var refetchInterval: Duration
    /// How far `iat` may be ahead of this machine's clock.
    package var issuedAtLeeway: Duration

    package init(
        source: KeySource,
        issuer: String,
        audience: String,
        defaultMaxAge: Duration = .seconds(3600),
        refetchInterval: Duration = .seconds(60),
        issuedAtLeeway: Duration = .seconds(60)
    ) {
        self.source = source
        self.issuer = issuer
        self.audience = audience
        self.defaultMaxAge = defaultMaxAge
        self.refetchInterval = refetchInterval
        self.issuedAtLeeway = issuedAtLeeway
    }

    /// Firebase Auth's ID tokens for `projectID`: Google's certificate map, issuer
    /// `https://securetoken.google.com/PROJECT`, audience `PROJECT`.
    package static func firebase(projectID: String) -> AuthConfig {
        AuthConfig(source: .certsURL(firebaseCertsURL), issuer: "https://securetoken.google.com/\(projectID)", audience: projectID)
    }
}

extension AuthConfig.KeySource {
    /// How the config names it, for messages: `[auth] jwksUrl`, `[auth] jwksFile` or `[auth] certsUrl`.
    package var configKey: String {
        switch self {
        case .jwksURL: "[auth] jwksUrl"
        case .jwksFile: "[auth] jwksFile"
        case .certsURL: "[auth] certsUrl"
        }
    }
}
