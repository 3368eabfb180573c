package import HearthKit

/// Checks an app user's ID token (the `Authorization: Bearer` of a call) and says who the
/// caller is: the token's `sub` and its claims. Throws for every token it does not accept;
/// the call is then answered `401 UNAUTHENTICATED` and the job never runs. Errors must not
/// carry the token.
package protocol CallerVerifier: Sendable {
    func verify(_ token: String) async throws -> (uid: String, claims: JSONObject)
}
