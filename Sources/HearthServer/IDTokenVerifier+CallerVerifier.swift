import HearthAuth
import HearthKit

/// The apps' ID tokens are checked by `[auth]`'s verifier (docs/callables.md#id-tokens).
extension IDTokenVerifier: CallerVerifier {
    func verify(_ token: String) async throws -> (uid: String, claims: JSONObject) {
        let verified: VerifiedIDToken = try await verify(token)
        return (verified.uid, verified.claims)
    }
}
