package import Crypto
package import CryptoExtras
import Foundation
package import HearthKit

/// Compact JSON Web Tokens (RFC 7519) signed with RS256 (Google service accounts) or ES256
/// (APNs provider tokens): `base64url(header).base64url(claims).base64url(signature)`.
///
/// A minted token is a credential: it is never logged or put into an error message.
package enum JWT {
    /// Why a token could not be signed (the key's bytes are never part of the message).
    package struct SigningError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// An RS256 (RSASSA-PKCS1-v1_5 with SHA-256) token.
    package static func rs256(header extra: [(String, JSONValue)] = [], claims: JSONObject, key: _RSA.Signing.PrivateKey) throws(SigningError) -> String {
        let input = signingInput(header: [("alg", "RS256"), ("typ", "JWT")] + extra, claims: claims)
        do {
            let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
            return input + "." + base64URL(Array(signature.rawRepresentation))
        } catch {
            throw SigningError(description: "RS256 signing failed: \(type(of: error))")
        }
    }

    /// An ES256 (ECDSA P-256 with SHA-256) token; the signature is the 64-byte `r || s`.
    package static func es256(header extra: [(String, JSONValue)] = [], claims: JSONObject, key: P256.Signing.PrivateKey) throws(SigningError) -> String {
        let input = signingInput(header: [("alg", "ES256")] + extra, claims: claims)
        do {
            let signature = try key.signature(for: Data(input.utf8))
            return input + "." + base64URL(Array(signature.rawRepresentation))
        } catch {
            throw SigningError(description: "ES256 signing failed: \(type(of: error))")
        }
    }

    static func signingInput(header: [(String, JSONValue)], claims: JSONObject) -> String {
        base64URL(JSONWriter.compactBytes(.object(JSONObject(header)))) + "." + base64URL(JSONWriter.compactBytes(.object(claims)))
    }

    /// Base64url without padding (RFC 7515 docs/data-directory.md#documents).
    package static func base64URL(_ bytes: [UInt8]) -> String {
        var s = Data(bytes).base64EncodedString()
        s = s.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while s.hasSuffix("=") { s.removeLast() }
        return s
    }
}
