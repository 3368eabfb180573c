package import HearthKit

/// An ID token that passed every check of ``IDTokenVerifier/verify(_:)``.
package struct VerifiedIDToken: Sendable {
    /// The user: the token's `sub` (a Firebase Auth user's UID).
    package var uid: String
    /// Every claim of the token's payload, as sent (`iss`, `aud`, `sub`, `exp`, `iat`, and for
    /// Firebase `auth_time`, `email`, `firebase`, …).
    package var claims: JSONObject

    package init(uid: String, claims: JSONObject) {
        self.uid = uid
        self.claims = claims
    }
}
