import Foundation
import HearthKit
import JWTKit

/// The public keys of one fetch (or read) of the key source, by `kid`, each fixed to the one
/// algorithm it verifies: RSA keys RS256 only, P-256 keys ES256 only. jwt-kit holds the keys
/// and checks the signatures; which `kid`s exist and what each is for is kept beside it, so a
/// token naming no key, or another algorithm, never reaches it.
struct VerificationKeys: Sendable {
    /// The two algorithms an ID token may use.
    enum Algorithm: String, Sendable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    /// How the key document is written.
    enum Format: Sendable {
        /// `{"keys": [JWK, …]}` (RFC 7517).
        case jwks
        /// `{"kid": "-----BEGIN CERTIFICATE-----…", …}`: Google's x509 map.
        case certificateMap
    }

    let collection: JWTKeyCollection
    let algorithms: [String: Algorithm]
    /// Keys this document has that cannot verify an ID token (another type, use or algorithm,
    /// too short, unreadable), one note each, for the log.
    let skipped: [String]

    private enum Key {
        case rsa(Insecure.RSA.PublicKey)
        case es256(ES256PublicKey)
    }

    /// Reads `body`; throws a description of what is wrong when it holds no usable key.
    static func parse(_ body: [UInt8], as format: Format) async throws(KeyDocumentError) -> VerificationKeys {
        guard let document = (try? JSONParser.parse(body))?.objectValue else {
            throw KeyDocumentError(format == .jwks ? "not a JSON Web Key Set: expected a JSON object with a \"keys\" array" : "not a certificate map: expected a JSON object of key IDs to PEM certificates")
        }
        var keys: [(kid: String, key: Key)] = []
        var skipped: [String] = []
        switch format {
        case .jwks:
            guard let list = document["keys"]?.arrayValue else {
                throw KeyDocumentError("not a JSON Web Key Set: expected a JSON object with a \"keys\" array")
            }
            for (i, item) in list.enumerated() {
                do throws(KeyDocumentError) {
                    keys.append(try jwk(item, at: i))
                } catch {
                    skipped.append(error.description)
                }
            }
        case .certificateMap:
            for (kid, value) in document {
                guard let pem = value.stringValue else {
                    skipped.append("kid \(IDTokenError.quoted(kid)): not a PEM certificate string")
                    continue
                }
                if let rsa = try? Insecure.RSA.PublicKey(certificatePEM: pem) {
                    keys.append((kid, .rsa(rsa)))
                } else if let ec = try? ES256PublicKey(certificate: pem) {
                    keys.append((kid, .es256(ec)))
                } else {
                    skipped.append("kid \(IDTokenError.quoted(kid)): not a certificate of an RSA key (2048 bits or more) or a P-256 key")
                }
            }
        }
        let collection = JWTKeyCollection()
        var algorithms: [String: Algorithm] = [:]
        for (kid, key) in keys {
            guard algorithms[kid] == nil else {
                skipped.append("kid \(IDTokenError.quoted(kid)): listed twice; the first is used")
                continue
            }
            switch key {
            case .rsa(let k):
                await collection.add(rsa: k, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
                algorithms[kid] = .rs256
            case .es256(let k):
                await collection.add(ecdsa: k, kid: JWKIdentifier(string: kid))
                algorithms[kid] = .es256
            }
        }
        guard !algorithms.isEmpty else {
            throw KeyDocumentError("it has no RS256 or ES256 key" + (skipped.isEmpty ? "" : " (\(skipped.joined(separator: "; ")))"))
        }
        return VerificationKeys(collection: collection, algorithms: algorithms, skipped: skipped)
    }

    /// One JWK: an RSA key (`alg` absent or RS256) or a P-256 key (`alg` absent or ES256), with a
    /// `kid`, and `use` absent or `sig`.
    private static func jwk(_ item: JSONValue, at i: Int) throws(KeyDocumentError) -> (kid: String, key: Key) {
        guard let o = item.objectValue else { throw KeyDocumentError("keys[\(i)]: not an object") }
        guard let kid = o["kid"]?.stringValue, !kid.isEmpty else { throw KeyDocumentError("keys[\(i)]: no kid") }
        let name = "kid \(IDTokenError.quoted(kid))"
        if let use = o["use"]?.stringValue, use != "sig" {
            throw KeyDocumentError("\(name): use \(IDTokenError.quoted(use)), not a signing key")
        }
        let alg = o["alg"]?.stringValue
        switch o["kty"]?.stringValue {
        case "RSA":
            guard alg == nil || alg == Algorithm.rs256.rawValue else { throw KeyDocumentError("\(name): alg \(IDTokenError.quoted(alg ?? "")) is not RS256") }
            guard let n = o["n"]?.stringValue, let e = o["e"]?.stringValue, let key = try? Insecure.RSA.PublicKey(modulus: n, exponent: e) else {
                throw KeyDocumentError("\(name): not a usable RSA public key (n and e, 2048 bits or more)")
            }
            return (kid, .rsa(key))
        case "EC":
            guard alg == nil || alg == Algorithm.es256.rawValue else { throw KeyDocumentError("\(name): alg \(IDTokenError.quoted(alg ?? "")) is not ES256") }
            guard o["crv"]?.stringValue == "P-256", let x = o["x"]?.stringValue, let y = o["y"]?.stringValue,
                let key = try? ES256PublicKey(parameters: (x: x, y: y))
            else {
                throw KeyDocumentError("\(name): not a usable P-256 public key (crv \"P-256\", x and y)")
            }
            return (kid, .es256(key))
        case let kty:
            throw KeyDocumentError("\(name): key type \(kty.map { IDTokenError.quoted($0) } ?? "(none)") is not RSA or EC")
        }
    }
}

/// What is wrong with a key document, or with one key in it.
struct KeyDocumentError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
