package import Crypto
package import Foundation
import Synchronization
import HearthKit

/// The APNs provider authentication token (a JWT: header `alg` ES256 and `kid` = key id,
/// claims `iss` = team id and `iat`), signed with the `.p8` key from the Apple developer
/// account.
///
/// Apple wants one token reused for 20 to 60 minutes (refreshing more often than every 20
/// minutes gets `TooManyProviderTokenUpdates`; older than an hour gets
/// `ExpiredProviderToken`), so a token is re-signed after ``maxAge`` (50 minutes), or when
/// APNs called it expired or invalid. Shared by all sends; guarded by a mutex because
/// signing is local and quick.
package final class APNsProviderToken: Sendable {
    package static let maxAge: TimeInterval = 50 * 60

    private struct Current {
        var value: String
        var issuedAt: Date
    }

    /// The key's raw scalar: `P256.Signing.PrivateKey` is not `Sendable`, its bytes are; the key
    /// is rebuilt for each signature (every 50 minutes).
    private let keyBytes: [UInt8]
    package let keyID: String
    package let teamID: String
    private let now: @Sendable () -> Date
    private let state = Mutex<Current?>(nil)
    private let mints = Atomic<Int>(0)

    package init(key: P256.Signing.PrivateKey, keyID: String, teamID: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.keyBytes = Array(key.rawRepresentation)
        self.keyID = keyID
        self.teamID = teamID
        self.now = now
    }

    /// Number of tokens signed so far.
    package var mintCount: Int { mints.load(ordering: .relaxed) }

    /// The current token, signed anew when it is older than ``maxAge`` or was invalidated.
    package func token() throws(JWT.SigningError) -> String {
        let t = now()
        return try state.withLock { (current: inout Current?) throws(JWT.SigningError) -> String in
            if let c = current, t.timeIntervalSince(c.issuedAt) < Self.maxAge, t >= c.issuedAt { return c.value }
            let iat = Int64(t.timeIntervalSince1970.rounded(.down))
            let key: P256.Signing.PrivateKey
            do { key = try P256.Signing.PrivateKey(rawRepresentation: keyBytes) } catch {
                throw JWT.SigningError(description: "the APNs key cannot be loaded")
            }
            let value = try JWT.es256(header: [("kid", .string(keyID))], claims: JSONObject([("iss", .string(teamID)), ("iat", .int(iat))]), key: key)
            current = Current(value: value, issuedAt: t)
            mints.add(1, ordering: .relaxed)
            return value
        }
    }

    /// Forgets `token` after APNs refused it; a token already replaced is left alone.
    package func invalidate(_ token: String) {
        state.withLock { current in
            if current?.value == token { current = nil }
        }
    }
}
