import Foundation
import HearthHost
import Testing
import HearthTestSupport

/// `[push]` in the config file: `provider` is checked against the registered providers, each
/// provider reads its own `[push.NAME]` table, and every mistake is an error naming the file,
/// the line and the fix (docs/configuration.md#keys).
@Suite("[push] in the config file")
struct PushConfigTests {
    static let file = "/etc/hearth/hearth.toml"

    func error(_ toml: String) -> String? {
        do {
            _ = try ConfigLoader(jobs: [], environment: [:]).parse(toml, file: Self.file, dataOverride: "/tmp")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func anUnknownProviderListsTheAcceptedOnes() {
        #expect(error("[push]\nprovider = \"hms\"\n")
            == #"/etc/hearth/hearth.toml:2: push.provider: invalid value "hms"; accepted: "fcm", "apns", "webhook", "none""#)
    }

    @Test func anUnknownKeyInAProvidersTableNamesItsLineAndTheAcceptedKeys() {
        #expect(error("[push]\nprovider = \"fcm\"\n[push.fcm]\nserviceAccountFile = \"/etc/hearth/sa.json\"\nendpont = \"https://fcm.example\"\n")
            == #"/etc/hearth/hearth.toml:5: unknown key "push.fcm.endpont"; accepted here: endpoint, serviceAccountEnv, serviceAccountFile, tokenUri"#)
        #expect(error("[push.webhook]\nurl = \"https://gw.example/push\"\nsecretFile = \"/s\"\nevents = [\"a\"]\n")
            == #"/etc/hearth/hearth.toml:4: unknown key "push.webhook.events"; accepted here: secretEnv, secretFile, url"#)
    }

    @Test func aTableForAProviderThatIsNotRegisteredIsAnUnknownKey() {
        #expect(error("[push]\nprovider = \"none\"\n[push.hms]\nappId = \"1\"\n")
            == #"/etc/hearth/hearth.toml:3: unknown key "push.hms"; accepted here: apns, fcm, provider, webhook"#)
    }

    @Test func theChosenProviderMustHaveWhatItNeeds() {
        #expect(error("[push]\nprovider = \"fcm\"\n")
            == "/etc/hearth/hearth.toml:1: [push] provider = \"fcm\" needs [push.fcm] serviceAccountFile (the service account JSON downloaded from the Firebase console) or serviceAccountEnv")
        #expect(error("[push]\nprovider = \"apns\"\n[push.apns]\nkeyFile = \"/k.p8\"\nkeyId = \"K\"\nteamId = \"T\"\n")
            == "/etc/hearth/hearth.toml:1: [push] provider = \"apns\" needs [push.apns] keyFile (or keyEnv), keyId, teamId and topic")
        #expect(error("\n[push]\nprovider = \"webhook\"\n[push.webhook]\nurl = \"https://gw.example/push\"\n")
            == "/etc/hearth/hearth.toml:2: [push] provider = \"webhook\" needs [push.webhook] url and secretFile (or secretEnv)")
        // A provider that is not chosen may be half set up (e.g. while switching).
        #expect(error("[push]\nprovider = \"none\"\n[push.webhook]\nurl = \"https://gw.example/push\"\n") == nil)
    }

    @Test func badValuesNameTheKeyAndWhatIsAccepted() {
        #expect(error("[push.apns]\npriority = 7\n")
            == "/etc/hearth/hearth.toml:2: [push.apns] priority: invalid value 7; accepted: 10 (immediately) or 5 (power-friendly)")
        #expect(error("[push.apns]\nexpiration = \"a day\"\n")
            == #"/etc/hearth/hearth.toml:2: push.apns.expiration: expected a duration string like "30s", "10m", "24h" or "7d", found "a day""#)
        #expect(error("[push.fcm]\nendpoint = \"fcm.googleapis.com\"\n")
            == #"/etc/hearth/hearth.toml:2: push.fcm.endpoint: expected an http:// or https:// URL, found "fcm.googleapis.com""#)
        #expect(error("[push]\nfcm = 1\n")
            == "/etc/hearth/hearth.toml:2: push.fcm: expected a table ([push.fcm]), found integer")
        #expect(error("[push.webhook]\nsecret = \"hunter2\"\n")
            == "/etc/hearth/hearth.toml:2: push.webhook.secret: secrets are never written in the config; put it in a file (secretFile) or an environment variable (secretEnv)")
    }

    @Test func aCredentialFileReadableByOthersIsWarnedAbout() throws {
        let dir = try TempDirectory("hearth-push-config")
        defer { dir.remove() }
        try dir.write("gateway.secret", "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=\n")
        chmod(dir.path + "/gateway.secret", 0o644)
        try dir.write("hearth.toml", "[push]\nprovider = \"webhook\"\n[push.webhook]\nurl = \"https://gw.example/push\"\nsecretFile = \"gateway.secret\"\n")
        let config = try ConfigLoader(jobs: [], environment: [:]).load(path: dir.path + "/hearth.toml", dataOverride: dir.path)
        #expect(config.warnings == [
            "\(dir.path)/hearth.toml: push.webhook.secretFile \(dir.path)/gateway.secret is readable by group or others; restrict it with `chmod 600 \(dir.path)/gateway.secret`"
        ])
    }
}
