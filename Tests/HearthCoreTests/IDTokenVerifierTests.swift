import Foundation
import HearthAuth
import HearthKit
import JWTKit
import Testing

/// ID-token verification for callable functions (docs/operations/callable-auth.md): test keys made
/// here, tokens signed with jwt-kit, the keys served by a real local HTTP server
/// (`Tests/Servers/key_server.py`) and fetched with the real libcurl transport; the clock is
/// moved by hand.
@Suite("ID-token verifier")
struct IDTokenVerifierTests {
    let now = IDTokenFixture.start

    /// A fixture with `keys` published as a JWKS at `jwks.json`, a clock at ``now``, and a verifier reading it.
    func withJWKS(
        _ keys: [TestSigningKey], cacheControl: String? = "public, max-age=3600",
        _ body: (IDTokenFixture, IDTokenVerifier, SteppedClock) async throws -> Void
    ) async throws {
        let fixture = try await IDTokenFixture.start()
        defer { fixture.stop() }
        try fixture.publish("jwks.json", try TestSigningKey.jwks(keys), cacheControl: cacheControl)
        let clock = SteppedClock(now)
        try await body(fixture, fixture.verifier(.jwksURL(fixture.url("jwks.json")), clock: clock), clock)
    }

    /// The reason `verifier` refuses `token` (nil: it accepted it).
    func refusal(_ verifier: IDTokenVerifier, _ token: String) async -> IDTokenError.Reason? {
        do throws(IDTokenError) {
            _ = try await verifier.verify(token)
            return nil
        } catch {
            return error.reason
        }
    }

    // MARK: Accepted

    @Test func anRS256TokenSignedByAKeyOfTheJWKSGivesItsUserAndClaims() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            let verified = try await verifier.verify(try await key.sign(TestClaims(now: now)))
            #expect(verified.uid == "user-1")
            #expect(verified.claims["name"] == .string("Ada"))
            #expect(verified.claims["iss"] == .string(IDTokenFixture.issuer))
            #expect(verified.claims["aud"] == .string(IDTokenFixture.project))
            #expect(verified.claims["exp"]?.intValue == Int64(now.timeIntervalSince1970) + 3600)
        }
    }

    @Test func anES256TokenSignedByAP256KeyOfTheJWKSIsAccepted() async throws {
        let rsa = try TestSigningKey.rsa("rsa-1")
        let ec = TestSigningKey.p256("ec-1")
        try await withJWKS([rsa, ec]) { _, verifier, _ async throws in
            #expect(try await verifier.verify(try await ec.sign(TestClaims(now: now))).uid == "user-1")
        }
    }

    @Test func aTokenSignedByAKeyOfGooglesCertificateMapIsAccepted() async throws {
        let fixture = try await IDTokenFixture.start()
        defer { fixture.stop() }
        let rsa = try TestSigningKey.rsa("f1b2c3")
        let ec = TestSigningKey.p256("ec-cert")
        try fixture.publish("x509", try await fixture.certificateMap([rsa, ec]), cacheControl: "public, max-age=22187, must-revalidate, no-transform")
        let verifier = fixture.verifier(.certsURL(fixture.url("x509")), clock: SteppedClock(now))
        #expect(try await verifier.verify(try await rsa.sign(TestClaims(now: now))).uid == "user-1")
        #expect(try await verifier.verify(try await ec.sign(TestClaims(now: now))).uid == "user-1")
        #expect(try await fixture.fetches("x509") == 1)
    }

    @Test func aJWKSFileIsReadOnFirstUseAndReadAgainForAnUnknownKidAtMostOnceAMinute() async throws {
        let fixture = try await IDTokenFixture.start()
        defer { fixture.stop() }
        let old = try TestSigningKey.rsa("old")
        let new = try TestSigningKey.rsa("new")
        try fixture.publish("keys.json", try TestSigningKey.jwks([old]))
        let clock = SteppedClock(now)
        let verifier = fixture.verifier(.jwksFile(fixture.path("keys.json")), clock: clock)
        #expect(try await verifier.verify(try await old.sign(TestClaims(now: now))).uid == "user-1")

        try fixture.publish("keys.json", try TestSigningKey.jwks([new]))   // the file rotated
        clock.advance(30)
        #expect(await refusal(verifier, try await new.sign(TestClaims(now: clock.now()))) == .unknownKeyID("new"))
        clock.advance(30)
        #expect(try await verifier.verify(try await new.sign(TestClaims(now: clock.now()))).uid == "user-1")
        // Read once more: the old key is gone with the old file.
        #expect(await refusal(verifier, try await old.sign(TestClaims(now: clock.now()))) == .unknownKeyID("old"))
    }

    @Test func anAudienceListThatNamesTheProjectIsAccepted() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            var claims = TestClaims(now: now)
            claims.aud = .many(["other-app", IDTokenFixture.project])
            #expect(try await verifier.verify(try await key.sign(claims)).uid == "user-1")
        }
    }

    @Test func issuedAtUpToAMinuteAheadIsAcceptedAndLaterIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            for (ahead, expected) in [(59, nil), (60, nil), (61, IDTokenError.Reason.issuedInFuture(secondsAhead: 61, leeway: 60))] {
                var claims = TestClaims(now: now)
                claims.iat = Int64(now.timeIntervalSince1970) + Int64(ahead)
                #expect(await refusal(verifier, try await key.sign(claims)) == expected, "iat \(ahead) s ahead")
            }
        }
    }

    // MARK: Refused

    @Test func aTokenWhoseKidIsNotAmongTheKeysIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        let stranger = try TestSigningKey.rsa("stranger")
        try await withJWKS([key]) { _, verifier, _ async throws in
            #expect(await refusal(verifier, try await stranger.sign(TestClaims(now: now))) == .unknownKeyID("stranger"))
        }
    }

    @Test func aTokenWithoutKidIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            let signer = JWTKeyCollection()
            await signer.add(rsa: try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM), digestAlgorithm: .sha256)
            #expect(await refusal(verifier, try await signer.sign(TestClaims(now: now))) == .missingKeyID)
        }
    }

    @Test func anUnsignedAlgNoneTokenIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            let signer = JWTKeyCollection()
            await signer.addUnsecuredNone(kid: JWKIdentifier(string: "rsa-1"))
            let token = try await signer.sign(TestClaims(now: now), kid: JWKIdentifier(string: "rsa-1"))
            #expect(token.hasSuffix("."))
            #expect(await refusal(verifier, token) == .algorithmNotAccepted("none"))
        }
    }

    /// The classic confusion: HS256 keyed with the RSA key's public modulus, for a verifier that
    /// would take the header's word for the algorithm.
    @Test func anHS256TokenKeyedWithThePublishedModulusIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            let signer = JWTKeyCollection()
            await signer.add(hmac: HMACKey(from: try key.modulus()), digestAlgorithm: .sha256, kid: JWKIdentifier(string: "rsa-1"))
            let token = try await signer.sign(TestClaims(now: now), kid: JWKIdentifier(string: "rsa-1"))
            #expect(await refusal(verifier, token) == .algorithmNotAccepted("HS256"))
        }
    }

    @Test func anES256TokenNamingAnRSAKeyIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        let ec = TestSigningKey.p256("ec-1")
        try await withJWKS([key, ec]) { _, verifier, _ async throws in
            let token = try await ec.sign(TestClaims(now: now), kid: "rsa-1")
            #expect(await refusal(verifier, token) == .algorithmDoesNotMatchKey(kid: "rsa-1", alg: "ES256", key: "RS256"))
        }
    }

    @Test func aTokenWithAlteredClaimsOrSignedByAnotherKeyUnderAPublishedKidIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        let impostor = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            let genuine = try await key.sign(TestClaims(now: now)).split(separator: ".")
            var other = TestClaims(now: now)
            other.sub = "admin"
            let forged = try await key.sign(other).split(separator: ".")
            // The genuine header and signature around another payload.
            #expect(await refusal(verifier, "\(genuine[0]).\(forged[1]).\(genuine[2])") == .badSignature(kid: "rsa-1"))
            #expect(await refusal(verifier, try await impostor.sign(TestClaims(now: now))) == .badSignature(kid: "rsa-1"))
            #expect(await refusal(verifier, "\(genuine[0]).\(genuine[1]).") == .badSignature(kid: "rsa-1"))
        }
    }

    @Test func anExpiredTokenIsRefusedFromItsExpiryOn() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, clock async throws in
            let token = try await key.sign(TestClaims(now: now))
            clock.advance(3599)
            #expect(await refusal(verifier, token) == nil)
            clock.advance(1)
            #expect(await refusal(verifier, token) == .expired(secondsAgo: 0))
            clock.advance(42)
            #expect(await refusal(verifier, token) == .expired(secondsAgo: 42))
        }
    }

    @Test func wrongIssuerOrAudienceIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            var claims = TestClaims(now: now)
            claims.iss = "https://securetoken.google.com/other"
            #expect(await refusal(verifier, try await key.sign(claims)) == .wrongIssuer(found: #"string "https://securetoken.google.com/other""#, expected: IDTokenFixture.issuer))
            claims = TestClaims(now: now)
            claims.iss = nil
            #expect(await refusal(verifier, try await key.sign(claims)) == .wrongIssuer(found: "missing", expected: IDTokenFixture.issuer))
            claims = TestClaims(now: now)
            claims.aud = .one("other")
            #expect(await refusal(verifier, try await key.sign(claims)) == .wrongAudience(found: #"string "other""#, expected: IDTokenFixture.project))
            claims.aud = .many(["other", "another"])
            #expect(await refusal(verifier, try await key.sign(claims)) == .wrongAudience(found: "array of 2", expected: IDTokenFixture.project))
        }
    }

    @Test func anEmptyOrMissingSubjectIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            var claims = TestClaims(now: now)
            claims.sub = ""
            #expect(await refusal(verifier, try await key.sign(claims)) == .invalidSubject(found: #"string """#))
            claims.sub = nil
            #expect(await refusal(verifier, try await key.sign(claims)) == .invalidSubject(found: nil))
        }
    }

    @Test func aMissingExpiryOrIssueTimeIsRefused() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            var claims = TestClaims(now: now)
            claims.exp = nil
            #expect(await refusal(verifier, try await key.sign(claims)) == .invalidTime(claim: "exp", found: nil))
            claims = TestClaims(now: now)
            claims.iat = nil
            #expect(await refusal(verifier, try await key.sign(claims)) == .invalidTime(claim: "iat", found: nil))
        }
    }

    @Test func garbageIsRefusedAsMalformedWithoutFetchingKeys() async throws {
        try await withJWKS([try TestSigningKey.rsa("rsa-1")]) { fixture, verifier, _ async throws in
            let parts = "a JWT is three base64url parts separated by dots"
            let cases: [(String, IDTokenError.Reason)] = [
                ("", .malformed(parts)),
                ("garbage", .malformed(parts)),
                ("a.b", .malformed(parts)),
                ("a.b.c.d", .malformed(parts)),
                ("..sig", .malformed(parts)),
                ("e30.e30.", .algorithmNotAccepted(nil)),  // {} and {}
                ("not!base64.e30.sig", .malformed("its header is not a base64url-encoded JSON object")),
                ("WzFd.e30.sig", .malformed("its header is not a base64url-encoded JSON object")),  // [1]
                ("e30.bm90IGpzb24.sig", .malformed("its payload is not a base64url-encoded JSON object")),  // "not json"
                (String(repeating: "a", count: 20_000), .malformed("it is longer than 16384 bytes")),
            ]
            for (token, expected) in cases {
                #expect(await refusal(verifier, token) == expected, "\(token.prefix(20))")
            }
            #expect(try await fixture.fetches("jwks.json") == 0)
        }
    }

    @Test func noRefusalMessageContainsTheTokenOrItsParts() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key]) { _, verifier, _ async throws in
            var expired = TestClaims(now: now)
            expired.exp = Int64(now.timeIntervalSince1970) - 10
            var wrongAudience = TestClaims(now: now)
            wrongAudience.aud = .one("other")
            let tokens = [
                try await key.sign(expired), try await key.sign(wrongAudience),
                try await TestSigningKey.rsa("stranger").sign(TestClaims(now: now)),
            ]
            for token in tokens {
                do throws(IDTokenError) {
                    _ = try await verifier.verify(token)
                    Issue.record("accepted a token that should be refused")
                } catch {
                    for part in token.split(separator: ".") {
                        #expect(!error.description.contains(part))
                    }
                }
            }
        }
    }

    @Test func refusalsSayWhatIsWrongInWordsAPersonCanActOn() {
        #expect(IDTokenError(.unknownKeyID("abc")).description == #"no key with kid "abc" among [auth]'s keys: the token was signed by another issuer, or by a key newer than the keys fetched (an unknown kid refetches them at most once a minute)"#)
        #expect(IDTokenError(.expired(secondsAgo: 42)).description == "the ID token expired 42 s ago (exp); the client must get a fresh one (Firebase SDKs refresh theirs every hour)")
        #expect(IDTokenError(.wrongAudience(found: #"string "other""#, expected: "demo")).description == #"the ID token's aud is string "other", expected "demo" ([auth] audience): it was issued for another project or app"#)
        #expect(IDTokenError(.issuedInFuture(secondsAhead: 61, leeway: 60)).description == "the ID token was issued 61 s in the future (iat; at most 60 s is allowed for clock differences): check this machine's clock")
        #expect(IDTokenError(.algorithmNotAccepted("HS256")).description == #"the ID token's algorithm is "HS256"; only RS256 and ES256 tokens signed by one of [auth]'s keys are accepted"#)
    }

    // MARK: Key caching

    /// Kept for `max-age` (an hour without one): one fetch until then, the next one at it.
    @Test(arguments: [("public, max-age=300, must-revalidate", 300.0), (nil, 3600.0)] as [(String?, TimeInterval)])
    func keysAreFetchedOnceWithinMaxAgeOrAnHourAndAgainAfter(cacheControl: String?, kept: TimeInterval) async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key], cacheControl: cacheControl) { fixture, verifier, clock async throws in
            var claims = TestClaims(now: now)
            claims.exp = Int64(now.timeIntervalSince1970) + 7200
            let token = try await key.sign(claims)
            _ = try await verifier.verify(token)
            clock.advance(kept - 1)
            _ = try await verifier.verify(token)
            #expect(try await fixture.fetches("jwks.json") == 1)
            clock.advance(1)
            _ = try await verifier.verify(token)
            #expect(try await fixture.fetches("jwks.json") == 2)
        }
    }

    @Test func anUnknownKidRefetchesTheKeysAtMostOnceAMinute() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        let rotated = try TestSigningKey.rsa("rsa-2")
        try await withJWKS([key]) { fixture, verifier, clock async throws in
            _ = try await verifier.verify(try await key.sign(TestClaims(now: now)))
            #expect(try await fixture.fetches("jwks.json") == 1)
            // Within a minute of that fetch: refused without fetching.
            clock.advance(59)
            #expect(await refusal(verifier, try await rotated.sign(TestClaims(now: clock.now()))) == .unknownKeyID("rsa-2"))
            #expect(try await fixture.fetches("jwks.json") == 1)
            // A minute on: one refetch, still unknown.
            clock.advance(1)
            #expect(await refusal(verifier, try await rotated.sign(TestClaims(now: clock.now()))) == .unknownKeyID("rsa-2"))
            #expect(try await fixture.fetches("jwks.json") == 2)
            // Another unknown kid within the minute: no fetch.
            clock.advance(30)
            #expect(await refusal(verifier, try await TestSigningKey.rsa("rsa-3").sign(TestClaims(now: clock.now()))) == .unknownKeyID("rsa-3"))
            #expect(try await fixture.fetches("jwks.json") == 2)
            // The issuer rotates; a minute after the last fetch the new key is found.
            try fixture.publish("jwks.json", try TestSigningKey.jwks([key, rotated]), cacheControl: "public, max-age=3600")
            clock.advance(30)
            #expect(try await verifier.verify(try await rotated.sign(TestClaims(now: clock.now()))).uid == "user-1")
            #expect(try await fixture.fetches("jwks.json") == 3)
        }
    }

    @Test func verificationsDuringAFetchShareIt() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        let fixture = try await IDTokenFixture.start()
        defer { fixture.stop() }
        try fixture.publish("jwks.json", try TestSigningKey.jwks([key]), cacheControl: "max-age=600", delayMilliseconds: 300)
        let verifier = fixture.verifier(.jwksURL(fixture.url("jwks.json")), clock: SteppedClock(now))
        let token = try await key.sign(TestClaims(now: now))
        let uids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await verifier.verify(token).uid } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(uids == Array(repeating: "user-1", count: 8))
        #expect(try await fixture.fetches("jwks.json") == 1)
    }

    @Test func aFailedFetchKeepsTheKeysFromBeforeAndIsRetriedAfterAMinute() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        try await withJWKS([key], cacheControl: "max-age=60") { fixture, verifier, clock async throws in
            let token = try await key.sign(TestClaims(now: now))
            _ = try await verifier.verify(token)
            try fixture.publish("jwks.json", nil)   // now a 404
            clock.advance(60)
            #expect(await refusal(verifier, token) == nil)   // stale keys serve
            #expect(try await fixture.fetches("jwks.json") == 2)
            clock.advance(59)
            #expect(await refusal(verifier, token) == nil)
            #expect(try await fixture.fetches("jwks.json") == 2)
            try fixture.publish("jwks.json", try TestSigningKey.jwks([key]), cacheControl: "max-age=60")
            clock.advance(1)
            #expect(await refusal(verifier, token) == nil)
            #expect(try await fixture.fetches("jwks.json") == 3)
        }
    }

    @Test func withoutKeysEveryTokenIsRefusedSayingWhyAndTheFetchIsRetriedAfterAMinute() async throws {
        let key = try TestSigningKey.rsa("rsa-1")
        let fixture = try await IDTokenFixture.start()
        defer { fixture.stop() }
        let clock = SteppedClock(now)
        let verifier = fixture.verifier(.jwksURL(fixture.url("jwks.json")), clock: clock)
        let token = try await key.sign(TestClaims(now: now))
        let why = IDTokenError.Reason.keysUnavailable("[auth] jwksUrl (\(fixture.server.baseURL)) answered HTTP 404; check the URL")
        #expect(await refusal(verifier, token) == why)
        clock.advance(59)
        #expect(await refusal(verifier, token) == why)
        #expect(try await fixture.fetches("jwks.json") == 1)
        try fixture.publish("jwks.json", #"{"keys": [{"kty": "oct", "kid": "h", "k": "c2VjcmV0"}]}"#)
        clock.advance(1)
        #expect(await refusal(verifier, token) == .keysUnavailable(#"[auth] jwksUrl (\#(fixture.server.baseURL)): it has no RS256 or ES256 key (kid "h": key type "oct" is not RSA or EC)"#))
        #expect(try await fixture.fetches("jwks.json") == 2)
    }
}
