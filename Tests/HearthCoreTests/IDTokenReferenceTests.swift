import Foundation
import HearthAuth
import HearthKit
import JWTKit
import Testing

/// Hearth's verifier against Firebase's own (PyPI firebase-admin's `auth.verify_id_token`, run by
/// `Tests/Servers/firebase_token_reference.py`): the same tokens, the same certificate map served
/// in Google's format from one local server, the same clock; the decisions must be the same but
/// for the differences listed here, each a rule of Hearth's `[auth]` contract that Firebase's
/// verifier does not share.
@Suite("ID-token verifier against firebase-admin")
struct IDTokenReferenceTests {
    let now = IDTokenFixture.start

    /// One token each for the cases the reference decides on.
    func cases(_ key: TestSigningKey) async throws -> [(name: String, token: String)] {
        let seconds = Int64(now.timeIntervalSince1970)
        func with(_ change: (inout TestClaims) -> Void) async throws -> String {
            var claims = TestClaims(now: now)
            change(&claims)
            return try await key.sign(claims)
        }
        let genuine = try await key.sign(TestClaims(now: now)).split(separator: ".")
        let forged = try await with { $0.sub = "admin" }.split(separator: ".")
        let none = JWTKeyCollection()
        await none.addUnsecuredNone(kid: JWKIdentifier(string: key.kid))
        let hmac = JWTKeyCollection()
        await hmac.add(hmac: HMACKey(from: try key.modulus()), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
        let noKid = JWTKeyCollection()
        await noKid.add(rsa: try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM), digestAlgorithm: .sha256)
        return [
            ("valid", try await with { _ in }),
            ("unknown kid", try await TestSigningKey.rsa("stranger").sign(TestClaims(now: now))),
            ("no kid", try await noKid.sign(TestClaims(now: now))),
            ("alg none", try await none.sign(TestClaims(now: now), kid: JWKIdentifier(string: key.kid))),
            ("HS256 keyed with the modulus", try await hmac.sign(TestClaims(now: now), kid: JWKIdentifier(string: key.kid))),
            ("altered payload", "\(genuine[0]).\(forged[1]).\(genuine[2])"),
            ("another key under the kid", try await TestSigningKey.rsa(key.kid).sign(TestClaims(now: now))),
            ("expired an hour ago", try await with { $0.iat = seconds - 7200; $0.exp = seconds - 3600 }),
            ("expired 30 s ago", try await with { $0.iat = seconds - 3630; $0.exp = seconds - 30 }),
            ("expires this second", try await with { $0.iat = seconds - 3600; $0.exp = seconds }),
            ("iat 59 s ahead", try await with { $0.iat = seconds + 59 }),
            ("iat 61 s ahead", try await with { $0.iat = seconds + 61 }),
            ("wrong iss", try await with { $0.iss = "https://securetoken.google.com/other" }),
            ("wrong aud", try await with { $0.aud = .one("other") }),
            ("aud list naming the project", try await with { $0.aud = .many([IDTokenFixture.project, "other"]) }),
            ("empty sub", try await with { $0.sub = "" }),
            ("no sub", try await with { $0.sub = nil }),
            ("sub of 129 characters", try await with { $0.sub = String(repeating: "u", count: 129) }),
            ("no exp", try await with { $0.exp = nil }),
            ("garbage", "garbage.garbage.garbage"),
        ]
    }

    /// `firebase_token_reference.py`'s decisions at `skew` and Hearth's on the same tokens; the
    /// cases where they differ, as "name: Hearth's decision, firebase-admin's decision".
    func differences(skew: Int) async throws -> [String] {
        let fixture = try await IDTokenFixture.start()
        defer { fixture.stop() }
        let key = try TestSigningKey.rsa("firebase-key-1")
        try fixture.publish("x509", try await fixture.certificateMap([key]), cacheControl: "public, max-age=22187")
        let verifier = fixture.verifier(.certsURL(fixture.url("x509")), clock: SteppedClock(now))
        let cases = try await cases(key)

        let output = try await LocalServers.runScript(
            "firebase_token_reference.py",
            ["--certs-url", fixture.url("x509"), "--project", IDTokenFixture.project, "--now", String(Int64(now.timeIntervalSince1970)), "--skew", String(skew)],
            input: cases.map(\.token).joined(separator: "\n") + "\n")
        let reference = output.split(separator: "\n").map { $0.hasPrefix("accept ") ? String($0) : "reject" }
        try #require(reference.count == cases.count, "firebase_token_reference.py printed \(output)")
        #expect(reference[0] == "accept user-1", "the reference accepts a valid token: \(output)")

        var differences: [String] = []
        for (i, (name, token)) in cases.enumerated() {
            let hearth: String
            do {
                hearth = "accept " + (try await verifier.verify(token)).uid
            } catch {
                hearth = "reject"
            }
            if hearth != reference[i] {
                differences.append("\(name): Hearth \(hearth.prefix(6)), firebase-admin \(reference[i].prefix(6))")
            }
        }
        return differences
    }

    /// At firebase-admin's default `clock_skew_seconds=0` its iat rule allows no minute; at 60 its
    /// iat rule is Hearth's, and its exp rule then allows a minute too. Either way it refuses
    /// lists in `aud` and a `sub` over 128 characters, and accepts a token in its `exp` second.
    @Test(arguments: [
        (0, ["expires this second: Hearth reject, firebase-admin accept",
             "iat 59 s ahead: Hearth accept, firebase-admin reject"]),
        (60, ["expired 30 s ago: Hearth reject, firebase-admin accept",
              "expires this second: Hearth reject, firebase-admin accept"]),
    ])
    func firebaseAdminDecidesLikeHearthButForTheListedRules(skew: Int, clockDifferences: [String]) async throws {
        try #require(LocalServers.pythonHasModules(["firebase_admin", "cryptography"]), "needs PyPI firebase-admin and cryptography: run scripts/install-deps test")
        #expect(try await differences(skew: skew) == clockDifferences + [
            "aud list naming the project: Hearth accept, firebase-admin reject",
            "sub of 129 characters: Hearth accept, firebase-admin reject",
        ])
    }
}
