import Foundation
package import HearthKit
import JWTKit
package import Logging

/// Checks the ID tokens that callable functions receive (`Authorization: Bearer …`,
/// docs/operations/callable-auth.md): RS256 or ES256, signed by a key of ``AuthConfig/source``
/// with the token's `kid`, with the configured `iss` and `aud`, a non-empty `sub`, `exp` in the
/// future and `iat` at most a minute ahead. jwt-kit verifies the signatures; the rest is here.
///
/// Keys fetched over HTTP are kept for their `Cache-Control: max-age` (``AuthConfig/defaultMaxAge``
/// without one); a token whose `kid` is not among them refetches them, at most once per
/// ``AuthConfig/refetchInterval``, and so does a failed fetch. A `jwksFile` is read on first use
/// and reread on an unknown `kid` by the same rule. Verifications that need keys while a fetch is
/// under way wait for that fetch.
///
/// Tokens are never logged; the log gets key fetches and their failures only.
package actor IDTokenVerifier {
    private let config: AuthConfig
    private let http: any HTTPTransport
    private let clock: any HearthClock
    private let logger: Logger

    /// The keys in use (nil: none yet), and until when they are fresh.
    private var keys: VerificationKeys?
    private var keysExpire = Date.distantPast
    /// When the last fetch started, whatever its outcome.
    private var lastFetch: Date?
    /// The last fetch's failure, until a fetch succeeds.
    private var lastFailure: IDTokenError?
    /// The fetch under way, which every verification that needs keys meanwhile waits for.
    private var inFlight: Task<Result<VerificationKeys, IDTokenError>, Never>?

    package init(config: AuthConfig, http: any HTTPTransport, clock: any HearthClock, logger: Logger? = nil) {
        self.config = config
        self.http = http
        self.clock = clock
        self.logger = logger ?? Logger(label: "hearth.auth", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// The token's user and claims when every check passes; otherwise why not (answer 401).
    package func verify(_ token: String) async throws(IDTokenError) -> VerifiedIDToken {
        let jwt = try UnverifiedJWT(token)
        guard let name = jwt.header["alg"]?.stringValue, let alg = VerificationKeys.Algorithm(rawValue: name) else {
            throw IDTokenError(.algorithmNotAccepted(jwt.header["alg"].map { $0.stringValue ?? $0.foundDescription }))
        }
        guard let kid = jwt.header["kid"]?.stringValue, !kid.isEmpty else { throw IDTokenError(.missingKeyID) }
        let keys = try await keys(for: kid)
        guard let keyAlgorithm = keys.algorithms[kid] else { throw IDTokenError(.unknownKeyID(kid)) }
        guard keyAlgorithm == alg else {
            throw IDTokenError(.algorithmDoesNotMatchKey(kid: kid, alg: alg.rawValue, key: keyAlgorithm.rawValue))
        }
        do {
            _ = try await keys.collection.verify(token, as: SignedPayload.self)
        } catch {
            throw IDTokenError(.badSignature(kid: kid))
        }
        let uid = try IDTokenClaims.check(jwt.payload, config: config, now: clock.now())
        return VerifiedIDToken(uid: uid, claims: jwt.payload)
    }

    /// Fetches (or reads) the keys now unless a fetch is under way, and says why none could be
    /// had: for start-up, so that a wrong `[auth]` shows before the first call.
    package func loadKeys() async throws(IDTokenError) {
        _ = try await refresh()
    }

    /// The keys to check a token with `kid` against: the cached ones while fresh and holding
    /// `kid`, else a fetch's (by the rules in the type's comment).
    private func keys(for kid: String) async throws(IDTokenError) -> VerificationKeys {
        let now = clock.now()
        if let keys, now < keysExpire {
            guard keys.algorithms[kid] == nil, mayFetch(at: now) else { return keys }
            logger.info("ID-token key ID not among the keys; fetching them again", metadata: ["kid": "\(IDTokenError.quoted(kid))", "source": "\(config.source.configKey)"])
            return try await refresh()
        }
        if let lastFailure, !mayFetch(at: now) {
            // Stale keys beat none until the next try.
            if let keys { return keys }
            throw lastFailure
        }
        return try await refresh()
    }

    private func mayFetch(at now: Date) -> Bool {
        guard let lastFetch else { return true }
        return now.timeIntervalSince(lastFetch) >= Self.seconds(config.refetchInterval)
    }

    /// The result of the fetch under way, or of a new one; after a failure, the keys from before
    /// when there are any.
    private func refresh() async throws(IDTokenError) -> VerificationKeys {
        let task: Task<Result<VerificationKeys, IDTokenError>, Never>
        if let inFlight {
            task = inFlight
        } else {
            task = Task { await self.fetch() }
            inFlight = task
        }
        switch await task.value {
        case .success(let fetched): return fetched
        case .failure(let error):
            if let keys { return keys }
            throw error
        }
    }

    /// One fetch, its outcome recorded: ``refresh()``'s shared task.
    private func fetch() async -> Result<VerificationKeys, IDTokenError> {
        lastFetch = clock.now()
        defer { inFlight = nil }
        let source = config.source.configKey
        do throws(IDTokenError) {
            let (body, maxAge) = try await load()
            let fetched: VerificationKeys
            do {
                fetched = try await VerificationKeys.parse(body, as: format)
            } catch {
                throw IDTokenError(.keysUnavailable("\(source) (\(sourceLocation)): \(error.description)"))
            }
            let now = clock.now()
            keys = fetched
            keysExpire = maxAge.map { now.addingTimeInterval($0) } ?? .distantFuture
            lastFailure = nil
            let kept = maxAge.map { "\(Int64($0)) s" } ?? "until a token names another kid"
            logger.info("ID-token keys loaded", metadata: ["source": "\(source)", "keys": "\(fetched.algorithms.count)", "kept": "\(kept)"])
            for note in fetched.skipped {
                logger.warning("ID-token key skipped", metadata: ["source": "\(source)", "key": "\(note)"])
            }
            return .success(fetched)
        } catch {
            lastFailure = error
            logger.warning("ID-token keys could not be loaded; tokens are checked against the keys from before, if any", metadata: ["error": "\(error)"])
            return .failure(error)
        }
    }

    private var format: VerificationKeys.Format {
        if case .certsURL = config.source { .certificateMap } else { .jwks }
    }

    /// Where the keys come from, for messages: a URL's scheme, host and port (its path could
    /// carry a secret), or the file's path.
    private var sourceLocation: String {
        switch config.source {
        case .jwksURL(let url), .certsURL(let url): HTTPTransportError.displayURL(url)
        case .jwksFile(let path): path
        }
    }

    /// The key document, and for how many seconds it may be kept (nil: until an unknown kid).
    private func load() async throws(IDTokenError) -> (body: [UInt8], maxAge: TimeInterval?) {
        let source = config.source.configKey
        switch config.source {
        case .jwksURL(let url), .certsURL(let url):
            let response: HTTPResponse
            do {
                response = try await http.send(HTTPRequest(url: url, headers: [("Accept", "application/json")]))
            } catch {
                throw IDTokenError(.keysUnavailable("\(source): \(error)"))
            }
            guard response.status == 200 else {
                throw IDTokenError(.keysUnavailable("\(source) (\(sourceLocation)) answered HTTP \(response.status); check the URL"))
            }
            let maxAge = CacheControl.maxAge(response.header("cache-control")).map(TimeInterval.init) ?? Self.seconds(config.defaultMaxAge)
            return (response.body, maxAge)
        case .jwksFile(let path):
            let bytes = await BlockingIO.run { () -> [UInt8]? in
                (try? Data(contentsOf: URL(fileURLWithPath: path))).map { Array($0) }
            }
            guard let bytes else {
                throw IDTokenError(.keysUnavailable("\(source): cannot read \(path); check that it exists and that hearth may read it"))
            }
            return (bytes, nil)
        }
    }

    private static func seconds(_ d: Duration) -> TimeInterval {
        TimeInterval(d.components.seconds) + TimeInterval(d.components.attoseconds) / 1e18
    }
}

/// What jwt-kit decodes once the signature verifies: nothing. The claims are checked by
/// ``IDTokenClaims`` against the injected clock, on the payload as sent.
private struct SignedPayload: JWTPayload {
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
