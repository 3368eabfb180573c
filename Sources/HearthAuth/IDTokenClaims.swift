import Foundation
import HearthKit

/// The claim checks of an ID token whose signature has verified (docs/operations/callable-auth.md#what-is-rejected).
enum IDTokenClaims {
    /// Checks `iss`, `aud`, `sub`, `exp` and `iat` against `config` at `now`; returns the `sub`.
    static func check(_ claims: JSONObject, config: AuthConfig, now: Date) throws(IDTokenError) -> String {
        guard claims["iss"]?.stringValue == config.issuer else {
            throw IDTokenError(.wrongIssuer(found: shown(claims["iss"]), expected: config.issuer))
        }
        guard names(config.audience, claims["aud"]) else {
            throw IDTokenError(.wrongAudience(found: shown(claims["aud"]), expected: config.audience))
        }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else {
            throw IDTokenError(.invalidSubject(found: claims["sub"]?.foundDescription))
        }
        let seconds = now.timeIntervalSince1970
        let exp = try time("exp", claims)
        guard exp > seconds else {
            throw IDTokenError(.expired(secondsAgo: Int64((seconds - exp).rounded(.down))))
        }
        let iat = try time("iat", claims)
        let leeway = Double(config.issuedAtLeeway.components.seconds)
        guard iat - seconds <= leeway else {
            throw IDTokenError(.issuedInFuture(secondsAhead: Int64((iat - seconds).rounded(.up)), leeway: Int64(leeway)))
        }
        return sub
    }

    /// `aud` is `audience`, or an array of strings with `audience` among them.
    private static func names(_ audience: String, _ aud: JSONValue?) -> Bool {
        switch aud {
        case .string(let s): s == audience
        case .array(let items): items.contains { $0.stringValue == audience }
        default: false
        }
    }

    private static func time(_ claim: String, _ claims: JSONObject) throws(IDTokenError) -> Double {
        guard let value = claims[claim] else { throw IDTokenError(.invalidTime(claim: claim, found: nil)) }
        guard let seconds = value.numberValue, seconds.isFinite else {
            throw IDTokenError(.invalidTime(claim: claim, found: value.foundDescription))
        }
        return seconds
    }

    private static func shown(_ value: JSONValue?) -> String {
        value?.foundDescription ?? "missing"
    }
}
