import Foundation
import HearthKit
import HearthHTTP
import HearthOutbound
import HearthHost
import Testing

/// FCM HTTP v1 (docs/push.md) against `Tests/Servers/fake_fcm.py`: a fake Google token endpoint that
/// verifies the RS256 assertion with the service account's public key and its claims, and a fake
/// `messages:send` that checks the bearer token it issued and the body, then answers as the
/// device token says. Real HTTP/2 over TLS, production host names through CURLOPT_CONNECT_TO.
@Suite("FCM provider", .enabled(if: FakePushService.pythonReady, "needs PyPI h2 and cryptography (scripts/install-deps)"))
struct FCMProviderTests {
    static let push = PushNotification(
        messageID: "push-n1", userID: "u1", tokens: [], title: "Gift received", body: "Maya sent you 50 points",
        data: ["notificationId": "n1", "type": "gift_received", "actionUrl": "/gifts/t1"], badge: 3)

    func withFCM(_ arguments: [String] = [], timeout: Duration = .seconds(15), now: (@Sendable () -> Date)? = nil,
                 _ body: (FCMProvider, FakePushService) async throws -> Void) async throws {
        let service = try await FakePushService.fcm(extraArguments: arguments, timeout: timeout)
        defer { service.stop() }
        let provider = FCMProvider(account: try service.credentials.serviceAccount(), http: service.client, failureHoldoff: .zero, now: now ?? { Date() })
        try await body(provider, service)
    }

    func mints(_ service: FakePushService) async throws -> Int64? {
        try await service.stats(host: "fcm.googleapis.com")["mints"]?.intValue
    }

    @Test func deliversWithAVerifiedAccessTokenAndTheDocumentedBody() async throws {
        try await withFCM { provider, service in
            #expect(await provider.send(Self.push, to: "fcm-token-ok-000001") == .delivered)
            let stats = try await service.stats(host: "fcm.googleapis.com")
            #expect(stats["rejected"] == .array([]))
            #expect(stats["mints"] == .int(1))
            #expect(stats["accepted"] == .array([try JSONParser.parse(#"""
                {"message": {"token": "fcm-token-ok-000001",
                             "notification": {"title": "Gift received", "body": "Maya sent you 50 points"},
                             "data": {"actionUrl": "/gifts/t1", "notificationId": "n1", "type": "gift_received"},
                             "apns": {"payload": {"aps": {"badge": 3}}}}}
                """#)]))
        }
    }

    @Test func withoutBadgeOrDataTheMessageHasNeitherApnsNorData() async throws {
        try await withFCM { provider, service in
            let plain = PushNotification(messageID: "push-n2", userID: "u1", tokens: [], title: "Hi", body: "")
            #expect(await provider.send(plain, to: "fcm-token-ok-000002") == .delivered)
            let value1 = try await service.stats(host: "fcm.googleapis.com")["accepted"]
            #expect(value1 == .array([try JSONParser.parse(
                #"{"message": {"token": "fcm-token-ok-000002", "notification": {"title": "Hi", "body": ""}}}"#)]))
        }
    }

    @Test func concurrentSendsShareOneAccessTokenMint() async throws {
        try await withFCM { provider, service in
            let results = await withTaskGroup(of: PushSendResult.self) { group in
                for i in 0..<50 { group.addTask { await provider.send(Self.push, to: "fcm-token-ok-\(1000 + i)") } }
                var all: [PushSendResult] = []
                for await r in group { all.append(r) }
                return all
            }
            #expect(results == Array(repeating: .delivered, count: 50))
            let stats = try await service.stats(host: "fcm.googleapis.com")
            #expect(stats["mints"] == .int(1))
            #expect(stats["sends"] == .int(50))
            #expect(await provider.tokens.mintCount == 1)
        }
    }

    @Test func unregisteredRemovesTheToken() async throws {
        try await withFCM { provider, _ in
            #expect(await provider.send(Self.push, to: "fcm-token-unregistered-01") == .removeToken(reason: "FCM 404 UNREGISTERED: Requested entity was not found."))
        }
    }

    @Test func invalidArgumentAboutTheTokenRemovesIt() async throws {
        try await withFCM { provider, _ in
            #expect(await provider.send(Self.push, to: "fcm-token-invalid-token-01")
                == .removeToken(reason: "FCM 400 INVALID_ARGUMENT: The registration token is not a valid FCM registration token"))
        }
    }

    @Test func invalidArgumentAboutThePayloadIsPermanentAndKeepsTheToken() async throws {
        try await withFCM { provider, _ in
            #expect(await provider.send(Self.push, to: "fcm-token-bad-payload-01")
                == .permanentFailure(reason: "FCM 400 INVALID_ARGUMENT: Invalid value at 'message.data[0].value' (TYPE_STRING), 12"))
        }
    }

    @Test func quotaExceededIsRetriedAfterRetryAfter() async throws {
        try await withFCM { provider, _ in
            #expect(await provider.send(Self.push, to: "fcm-token-quota-01")
                == .retry(after: .seconds(7), reason: "FCM 429 QUOTA_EXCEEDED: Quota exceeded for quota metric."))
        }
    }

    @Test func internalAndUnavailableAreRetried() async throws {
        try await withFCM { provider, _ in
            #expect(await provider.send(Self.push, to: "fcm-token-internal-01") == .retry(after: nil, reason: "FCM 500 INTERNAL: Internal error encountered."))
            #expect(await provider.send(Self.push, to: "fcm-token-unavailable-01") == .retry(after: nil, reason: "FCM 503 UNAVAILABLE: The service is currently unavailable."))
        }
    }

    @Test func a401ReMintsTheAccessTokenOnceAndDelivers() async throws {
        try await withFCM { provider, service in
            #expect(await provider.send(Self.push, to: "fcm-token-revoke-once-01") == .delivered)
            let value2 = try await mints(service)
            #expect(value2 == 2)
        }
    }

    @Test func a401WithAFreshTokenIsRetriedLaterAfterOneReMint() async throws {
        try await withFCM { provider, service in
            #expect(await provider.send(Self.push, to: "fcm-token-always-401-01") == .retry(
                after: nil,
                reason: "FCM 401 UNAUTHENTICATED: Request had invalid authentication credentials. (a freshly minted access token was refused; check that the service account has the Firebase Cloud Messaging API Admin role)"))
            let value3 = try await mints(service)
            #expect(value3 == 2)
        }
    }

    @Test func otherClientErrorsArePermanentFailures() async throws {
        try await withFCM { provider, service in
            #expect(await provider.send(Self.push, to: "fcm-token-sender-mismatch-01") == .permanentFailure(reason: "FCM 403 SENDER_ID_MISMATCH: SenderId mismatch"))
            #expect(await provider.send(Self.push, to: "fcm-token-third-party-auth-01")
                == .permanentFailure(reason: "FCM 401 THIRD_PARTY_AUTH_ERROR: Auth error from APNS or Web Push Service"))
            let value4 = try await mints(service)
            #expect(value4 == 1, "THIRD_PARTY_AUTH_ERROR is about APNs credentials: no re-mint")
        }
    }

    @Test func aWrongProjectIsPermanentAndNeverRemovesTheToken() async throws {
        let service = try await FakePushService.fcm(extraArguments: ["--project", "another-project"])
        defer { service.stop() }
        let provider = FCMProvider(account: try service.credentials.serviceAccount(), http: service.client)
        #expect(await provider.send(Self.push, to: "fcm-token-unregistered-02")
            == .permanentFailure(reason: "FCM 404 NOT_FOUND: Requested entity was not found. (check the service account's project_id and [push.fcm] endpoint)"))
    }

    @Test func anAssertionTheTokenEndpointRejectsIsRetriedAndNeverShown() async throws {
        // The server expects another client_email: the token endpoint refuses the assertion.
        let service = try await FakePushService.fcm(extraArguments: ["--client-email", "someone-else@hearth-test.iam.gserviceaccount.com"])
        defer { service.stop() }
        let provider = FCMProvider(account: try service.credentials.serviceAccount(), http: service.client, failureHoldoff: .seconds(60))
        let expected = PushSendResult.retry(after: nil, reason: "FCM: no access token: OAuth token endpoint https://oauth2.googleapis.com answered 400 invalid_grant: claim iss is 'hearth-push@hearth-test.iam.gserviceaccount.com', expected 'someone-else@hearth-test.iam.gserviceaccount.com' (check the service account key: it may be revoked or deleted, or this machine's clock may be wrong)")
        #expect(await provider.send(Self.push, to: "fcm-token-ok-000003") == expected)
        // Within the hold-off the failure is remembered: no second request to the token endpoint.
        #expect(await provider.send(Self.push, to: "fcm-token-ok-000004") == expected)
        #expect(await provider.tokens.mintCount == 1)
    }

    @Test func theAccessTokenIsReusedUntilFiveMinutesBeforeItExpires() async throws {
        let clock = TestClock()
        try await withFCM(["--max-skew", "7200"], now: { clock.now() }) { provider, service in
            #expect(await provider.send(Self.push, to: "fcm-token-ok-000005") == .delivered)
            clock.advance(3599 - 300 - 1)
            #expect(await provider.send(Self.push, to: "fcm-token-ok-000006") == .delivered)
            let value5 = try await mints(service)
            #expect(value5 == 1)
            clock.advance(1)
            #expect(await provider.send(Self.push, to: "fcm-token-ok-000007") == .delivered)
            let value6 = try await mints(service)
            #expect(value6 == 2)
        }
    }

    @Test func aTimeoutIsRetried() async throws {
        // 1.5 s: under the slow answer's 2 s, and long enough for the OAuth token request before
        // it on a loaded machine (at 500 ms that request once timed out first, beside the
        // end-to-end tests).
        try await withFCM(timeout: .milliseconds(1500)) { provider, _ in
            let result = await provider.send(Self.push, to: "fcm-token-slow-01")
            guard case .retry(nil, let reason) = result else {
                Issue.record("expected a retry, got \(result)")
                return
            }
            #expect(reason == "FCM: HTTP request to https://fcm.googleapis.com timed out; the server is slow or unreachable (retry later, or raise the timeout)")
        }
    }

    @Test func connectionRefusedIsRetried() async throws {
        let (credentials, ca) = try await PushCredentials.shared.value
        let port = try LocalServers.unusedPort()
        let client = try CurlHTTPClient(options: HTTPClientOptions(
            caFile: ca.caFile, connectTo: ["fcm.googleapis.com:443:127.0.0.1:\(port)", "oauth2.googleapis.com:443:127.0.0.1:\(port)"]))
        defer { client.shutdown() }
        let provider = FCMProvider(account: try credentials.serviceAccount(), http: client)
        let result = await provider.send(Self.push, to: "fcm-token-ok-000008")
        guard case .retry(nil, let reason) = result else {
            Issue.record("expected a retry, got \(result)")
            return
        }
        #expect(reason.hasPrefix("FCM: no access token: OAuth token request failed: HTTP connection to https://oauth2.googleapis.com failed"))
    }

    @Test func theServiceAccountNeverShowsItsKey() async throws {
        let (credentials, _) = try await PushCredentials.shared.value
        let account = try credentials.serviceAccount()
        #expect("\(account)" == "service account hearth-push@hearth-test.iam.gserviceaccount.com (project hearth-test)")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(throws: PushSetupError.self) { try ServiceAccount.parse(Array(#"{"type": "service_account", "client_email": "a@b", "project_id": "p"}"#.utf8), source: "/etc/hearth/sa.json") }
        do {
            _ = try ServiceAccount.parse(Array(#"{"type": "service_account", "client_email": "a@b", "project_id": "p", "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}"#.utf8), source: "/etc/hearth/sa.json")
            Issue.record("a broken key was accepted")
        } catch {
            #expect(error.description == #"/etc/hearth/sa.json: field "private_key" is not a PEM RSA private key of at least 2048 bits"#)
        }
    }
}
