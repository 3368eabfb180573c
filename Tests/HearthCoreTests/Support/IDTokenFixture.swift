import Crypto
import CryptoExtras
import Foundation
import HearthAuth
import HearthHTTP
import HearthKit
import HearthOutbound
import JWTKit
import Synchronization

/// A clock that moves only when the test says so.
final class SteppedClock: HearthClock {
    private let date: Mutex<Date>

    init(_ start: Date) { date = Mutex(start) }

    func now() -> Date { date.withLock { $0 } }

    func advance(_ seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// The claims a test token carries; nil leaves a claim out. Defaults: a valid Firebase ID
/// token of ``IDTokenFixture/project`` for user `user-1`, issued at `now`, expiring an hour later.
struct TestClaims: JWTPayload {
    enum Audience: Codable, Sendable {
        case one(String)
        case many([String])

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) { self = .one(s) } else { self = .many(try c.decode([String].self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .one(let s): try c.encode(s)
            case .many(let l): try c.encode(l)
            }
        }
    }

    var iss: String? = IDTokenFixture.issuer
    var aud: Audience? = .one(IDTokenFixture.project)
    var sub: String? = "user-1"
    var exp: Int64?
    var iat: Int64?
    var name: String? = "Ada"

    init(now: Date) {
        iat = Int64(now.timeIntervalSince1970)
        exp = Int64(now.timeIntervalSince1970) + 3600
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A private key that signs test tokens (through jwt-kit), and how its public half is published.
struct TestSigningKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    let kid: String
    let material: Material

    static func rsa(_ kid: String) throws -> TestSigningKey {
        TestSigningKey(kid: kid, material: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
    }

    static func p256(_ kid: String) -> TestSigningKey {
        TestSigningKey(kid: kid, material: .p256(P256.Signing.PrivateKey()))
    }

    /// The public key as a JWK (RFC 7517) JSON object.
    func jwk() throws -> String {
        switch material {
        case .rsa(let key):
            let (n, e) = try Insecure.RSA.PublicKey(backing: key.publicKey).getKeyPrimitives()
            return #"{"kty":"RSA","use":"sig","alg":"RS256","kid":"\#(kid)","n":"\#(JWT.base64URL(Array(n)))","e":"\#(JWT.base64URL(Array(e)))"}"#
        case .p256(let key):
            let xy = Array(key.publicKey.rawRepresentation)
            return #"{"kty":"EC","use":"sig","alg":"ES256","crv":"P-256","kid":"\#(kid)","x":"\#(JWT.base64URL(Array(xy[0..<32])))","y":"\#(JWT.base64URL(Array(xy[32...])))"}"#
        }
    }

    var privateKeyPEM: String {
        switch material {
        case .rsa(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        }
    }

    /// The RSA modulus, big-endian: what the classic algorithm-confusion attack uses as an HMAC secret.
    func modulus() throws -> [UInt8] {
        guard case .rsa(let key) = material else { return [] }
        return Array(try Insecure.RSA.PublicKey(backing: key.publicKey).getKeyPrimitives().modulus)
    }

    /// `claims` signed by this key with jwt-kit (RS256 or ES256), `kid` in the header (this key's
    /// unless given).
    func sign(_ claims: TestClaims, kid: String? = nil) async throws -> String {
        let keys = JWTKeyCollection()
        let id = JWKIdentifier(string: kid ?? self.kid)
        switch material {
        case .rsa(let key): await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: key), digestAlgorithm: .sha256, kid: id)
        case .p256(let key): await keys.add(ecdsa: try ES256PrivateKey(backing: key), kid: id)
        }
        return try await keys.sign(claims, kid: id)
    }

    /// A JWKS document of `keys`.
    static func jwks(_ keys: [TestSigningKey]) throws -> String {
        #"{"keys":["# + (try keys.map { try $0.jwk() }).joined(separator: ",") + "]}"
    }
}

/// A local server (`Tests/Servers/key_server.py`) publishing key documents from a temporary
/// directory and counting their fetches, the real libcurl transport to reach it, and the
/// verifier settings of a Firebase project.
final class IDTokenFixture: Sendable {
    static let project = "demo-hearth"
    static let issuer = "https://securetoken.google.com/demo-hearth"
    /// The tests' "now" (2027-01-15), whole seconds so that claim arithmetic is exact.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    let directory: URL
    let server: LocalServer
    let http: LazyCurlTransport

    private init(directory: URL, server: LocalServer) {
        self.directory = directory
        self.server = server
        self.http = LazyCurlTransport(options: HTTPClientOptions())
    }

    static func start() async throws -> IDTokenFixture {
        let directory = try LocalServers.temporaryDirectory("hearth-keys")
        do {
            let server = try await LocalServer.start(script: "key_server.py", arguments: ["--dir", directory.path], scheme: "http")
            return IDTokenFixture(directory: directory, server: server)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func url(_ name: String) -> String { "\(server.baseURL)/\(name)" }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Publishes `document` as `name` (nil: takes it away, so fetching it is a 404), with a
    /// `Cache-Control` header and an answer delay when given.
    func publish(_ name: String, _ document: String?, cacheControl: String? = nil, delayMilliseconds: Int? = nil) throws {
        for (suffix, content) in [("", document), (".cache-control", cacheControl), (".delay-ms", delayMilliseconds.map(String.init))] {
            let file = path(name + suffix)
            if let content {
                try content.write(toFile: file, atomically: true, encoding: .utf8)
            } else {
                try? FileManager.default.removeItem(atPath: file)
            }
        }
    }

    /// Google's format: key ID to the PEM certificate of its public key (self-signed, made by
    /// `Tests/Servers/make_key_certificate.py`).
    func certificateMap(_ keys: [TestSigningKey]) async throws -> String {
        var entries: [(String, JSONValue)] = []
        for key in keys {
            let keyFile = path("\(key.kid).key.pem")
            try key.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            entries.append((key.kid, .string(try await LocalServers.runScript("make_key_certificate.py", [keyFile]))))
        }
        return String(decoding: JSONWriter.compactBytes(.object(JSONObject(entries))), as: UTF8.self)
    }

    /// How many times the server has answered a fetch of `name`.
    func fetches(_ name: String) async throws -> Int {
        let response = try await http.send(HTTPRequest(url: url("_fetches/\(name)")))
        return Int(String(decoding: response.body, as: UTF8.self)) ?? -1
    }

    func verifier(_ source: AuthConfig.KeySource, clock: SteppedClock) -> IDTokenVerifier {
        IDTokenVerifier(config: AuthConfig(source: source, issuer: Self.issuer, audience: Self.project), http: http, clock: clock)
    }
}
