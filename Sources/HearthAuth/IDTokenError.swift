import HearthKit

/// Why an ID token was not accepted: the caller answers `401 UNAUTHENTICATED` and runs nothing.
///
/// The message names the reason, and at most the token's `kid`, `alg` or a claim's short
/// rendering; never the token, its signature or its payload, so it can go to a log as it is.
package struct IDTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// Not three base64url parts with JSON objects in the first two; the detail says which.
        case malformed(String)
        /// The header's `alg` is not RS256 or ES256 (nil: it has none).
        case algorithmNotAccepted(String?)
        /// The header has no `kid` (or not a non-empty string).
        case missingKeyID
        /// No key with this `kid` among the keys (after the refetch it may cause).
        case unknownKeyID(String)
        /// The key with this `kid` is for `key`'s algorithm, the header says `alg`.
        case algorithmDoesNotMatchKey(kid: String, alg: String, key: String)
        /// The signature does not verify with the key with this `kid`.
        case badSignature(kid: String)
        /// `iss` is not ``AuthConfig/issuer``; `found` renders what it is.
        case wrongIssuer(found: String, expected: String)
        /// `aud` neither is nor lists ``AuthConfig/audience``; `found` renders what it is.
        case wrongAudience(found: String, expected: String)
        /// `sub` is missing, or not a non-empty string; `found` renders it (nil: missing).
        case invalidSubject(found: String?)
        /// `exp` or `iat` is missing or not a number; `found` renders it (nil: missing).
        case invalidTime(claim: String, found: String?)
        /// `exp` is not after now: it passed this many whole seconds ago (0: this second).
        case expired(secondsAgo: Int64)
        /// `iat` is more than ``AuthConfig/issuedAtLeeway`` ahead of now, by this many seconds.
        case issuedInFuture(secondsAhead: Int64, leeway: Int64)
        /// No keys could be had from the key source (and none were kept from before).
        case keysUnavailable(String)
    }

    package var reason: Reason

    package init(_ reason: Reason) {
        self.reason = reason
    }

    /// Whether the fault is on this side (no keys could be fetched or read) rather than the token's.
    package var isKeySourceFailure: Bool {
        if case .keysUnavailable = reason { true } else { false }
    }

    package var description: String {
        switch reason {
        case .malformed(let detail):
            "the ID token is malformed: \(detail); the client must send the ID token its auth SDK gives (getIdToken()) as it is"
        case .algorithmNotAccepted(let alg?):
            "the ID token's algorithm is \(Self.quoted(alg)); only RS256 and ES256 tokens signed by one of [auth]'s keys are accepted"
        case .algorithmNotAccepted(nil):
            "the ID token's header has no alg; only RS256 and ES256 tokens signed by one of [auth]'s keys are accepted"
        case .missingKeyID:
            "the ID token's header has no kid, so no key can be chosen to check it; tokens from the configured issuer always name their key"
        case .unknownKeyID(let kid):
            "no key with kid \(Self.quoted(kid)) among [auth]'s keys: the token was signed by another issuer, or by a key newer than the keys fetched (an unknown kid refetches them at most once a minute)"
        case .algorithmDoesNotMatchKey(let kid, let alg, let key):
            "the ID token says \(alg), but the key with kid \(Self.quoted(kid)) is an \(key) key"
        case .badSignature(let kid):
            "the ID token's signature does not verify with the key with kid \(Self.quoted(kid)): the token was altered, or not signed by the configured issuer"
        case .wrongIssuer(let found, let expected):
            "the ID token's iss is \(found), expected \(JSONWriter.quoted(expected)) ([auth] issuer): it was issued for another project or by another provider"
        case .wrongAudience(let found, let expected):
            "the ID token's aud is \(found), expected \(JSONWriter.quoted(expected)) ([auth] audience): it was issued for another project or app"
        case .invalidSubject(let found?):
            "the ID token's sub is \(found); it must be a non-empty string (the user's ID)"
        case .invalidSubject(nil):
            "the ID token has no sub; it must be a non-empty string (the user's ID)"
        case .invalidTime(let claim, let found?):
            "the ID token's \(claim) is \(found); it must be a number of seconds since 1970"
        case .invalidTime(let claim, nil):
            "the ID token has no \(claim); it must be a number of seconds since 1970"
        case .expired(let seconds):
            "the ID token expired \(seconds) s ago (exp); the client must get a fresh one (Firebase SDKs refresh theirs every hour)"
        case .issuedInFuture(let ahead, let leeway):
            "the ID token was issued \(ahead) s in the future (iat; at most \(leeway) s is allowed for clock differences): check this machine's clock"
        case .keysUnavailable(let detail):
            "no keys to check ID tokens with: \(detail)"
        }
    }

    /// `"kid"`, JSON-quoted (control characters escaped), cut at 40 characters: it comes from the token.
    static func quoted(_ s: String) -> String {
        JSONWriter.quoted(s.count > 40 ? String(s.prefix(40)) + "…" : s)
    }
}
