import HearthAuth
import HearthKit
import HearthTOML

extension ConfigLoader {
    /// `[auth]` (docs/operations/callable-auth.md#configuration): exactly one key source
    /// (`jwksUrl`, `jwksFile` or `certsUrl`), and the `issuer` and `audience` every ID token must
    /// name. Keys fetched over plain `http://` could be swapped on the way, so only a loopback
    /// host may be reached that way. nil: no `[auth]`.
    func readAuth(_ r: inout TableReader) throws(ConfigError) -> AuthConfig? {
        guard var t = try r.table("auth") else { return nil }
        var sources: [AuthConfig.KeySource] = []
        if let url = try keyURL(&t, "jwksUrl") { sources.append(.jwksURL(url)) }
        if let path = try t.path("jwksFile") { sources.append(.jwksFile(path)) }
        if let url = try keyURL(&t, "certsUrl") { sources.append(.certsURL(url)) }
        guard let issuer = try t.string("issuer") else {
            throw t.missing("issuer", "the iss every ID token must have; for Firebase Auth \"https://securetoken.google.com/PROJECT\"")
        }
        guard let audience = try t.string("audience") else {
            throw t.missing("audience", "the aud every ID token must have; for Firebase Auth the project ID")
        }
        try t.finish()
        guard sources.count == 1, let source = sources.first else {
            throw ConfigError(
                file: t.file, line: t.table.line,
                "[auth]: set exactly one of jwksUrl (a JSON Web Key Set URL), jwksFile (a JSON Web Key Set file) or certsUrl (a map of key IDs to X.509 certificates; for Firebase Auth \(JSONWriter.quoted(AuthConfig.firebaseCertsURL)))")
        }
        for (key, value) in [("issuer", issuer), ("audience", audience)] where value.isEmpty {
            throw ConfigError(file: t.file, line: t.table[key]?.line, "auth.\(key): must not be empty")
        }
        return AuthConfig(source: source, issuer: issuer, audience: audience)
    }

    /// An `https://` URL, or `http://` to a loopback host.
    private func keyURL(_ t: inout TableReader, _ key: String) throws(ConfigError) -> String? {
        guard let url = try t.url(key) else { return nil }
        if url.hasPrefix("http://") {
            let host = HTTPTransportError.displayURL(url).dropFirst("http://".count)
            let loopback = ["127.0.0.1", "localhost", "[::1]"].contains { host == $0 || host.hasPrefix($0 + ":") }
            guard loopback else {
                throw ConfigError(file: t.file, line: t.table[key]?.line, "auth.\(key): keys fetched over plain http:// could be swapped on the way; use https:// (http:// is accepted for 127.0.0.1, localhost and [::1] only)")
            }
        }
        return url
    }
}
