import HearthAuth
import HearthHost
import Testing

/// `[auth]` in the configuration (docs/operations/callable-auth.md#configuration).
@Suite("[auth] configuration")
struct AuthConfigTests {
    static func load(_ toml: String) throws(ConfigError) -> HearthConfig {
        try ConfigLoader(jobs: [], environment: [:]).parse(toml, file: "/etc/hearth/hearth.toml", dataOverride: "/tmp")
    }

    /// The message of the error `toml` is refused with (with its line), or nil when it loads.
    static func refusal(_ toml: String) -> String? {
        do {
            _ = try load(toml)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func noAuthTableMeansNoAuthConfig() throws {
        #expect(try Self.load("").auth == nil)
    }

    @Test func firebaseValuesGiveGooglesCertificateMapAndTheProject() throws {
        let toml = """
            [auth]
            certsUrl = "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
            issuer = "https://securetoken.google.com/campus-app"
            audience = "campus-app"

            """
        #expect(try Self.load(toml).auth == AuthConfig.firebase(projectID: "campus-app"))
        #expect(AuthConfig.firebase(projectID: "campus-app").defaultMaxAge == .seconds(3600))
        #expect(AuthConfig.firebase(projectID: "campus-app").refetchInterval == .seconds(60))
    }

    @Test func aJWKSURLOrAJWKSFileRelativeToTheConfigFileIsAKeySource() throws {
        let url = try Self.load("[auth]\njwksUrl = \"https://id.example.com/.well-known/jwks.json\"\nissuer = \"https://id.example.com\"\naudience = \"app\"\n").auth
        #expect(url?.source == .jwksURL("https://id.example.com/.well-known/jwks.json"))
        #expect(url?.issuer == "https://id.example.com")
        #expect(url?.audience == "app")
        let file = try Self.load("[auth]\njwksFile = \"keys/jwks.json\"\nissuer = \"i\"\naudience = \"a\"\n").auth
        #expect(file?.source == .jwksFile("/etc/hearth/keys/jwks.json"))
        let absolute = try Self.load("[auth]\njwksFile = \"/srv/jwks.json\"\nissuer = \"i\"\naudience = \"a\"\n").auth
        #expect(absolute?.source == .jwksFile("/srv/jwks.json"))
    }

    @Test func plainHTTPIsAcceptedForLoopbackHostsOnly() throws {
        let local = try Self.load("[auth]\njwksUrl = \"http://127.0.0.1:8080/jwks.json\"\nissuer = \"i\"\naudience = \"a\"\n").auth
        #expect(local?.source == .jwksURL("http://127.0.0.1:8080/jwks.json"))
        #expect(try Self.load("[auth]\ncertsUrl = \"http://localhost/x509\"\nissuer = \"i\"\naudience = \"a\"\n").auth?.source == .certsURL("http://localhost/x509"))
        #expect(Self.refusal("[auth]\ncertsUrl = \"http://keys.example.com/x509\"\nissuer = \"i\"\naudience = \"a\"\n")
            == "/etc/hearth/hearth.toml:2: auth.certsUrl: keys fetched over plain http:// could be swapped on the way; use https:// (http:// is accepted for 127.0.0.1, localhost and [::1] only)")
        #expect(Self.refusal("[auth]\njwksUrl = \"http://127.0.0.1.example.com/jwks\"\nissuer = \"i\"\naudience = \"a\"\n")?.hasPrefix("/etc/hearth/hearth.toml:2: auth.jwksUrl: keys fetched over plain http://") == true)
    }

    @Test func exactlyOneKeySourceIsRequired() {
        let exactlyOne = "/etc/hearth/hearth.toml:1: [auth]: set exactly one of jwksUrl (a JSON Web Key Set URL), jwksFile (a JSON Web Key Set file) or certsUrl (a map of key IDs to X.509 certificates; for Firebase Auth \"https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com\")"
        #expect(Self.refusal("[auth]\nissuer = \"i\"\naudience = \"a\"\n") == exactlyOne)
        #expect(Self.refusal("[auth]\njwksUrl = \"https://a.example/jwks\"\ncertsUrl = \"https://b.example/x509\"\nissuer = \"i\"\naudience = \"a\"\n") == exactlyOne)
    }

    @Test func issuerAndAudienceAreRequiredAndNotEmpty() {
        let source = "[auth]\njwksUrl = \"https://id.example.com/jwks\"\n"
        #expect(Self.refusal(source + "audience = \"a\"\n")
            == "/etc/hearth/hearth.toml:1: auth.issuer is required: the iss every ID token must have; for Firebase Auth \"https://securetoken.google.com/PROJECT\"")
        #expect(Self.refusal(source + "issuer = \"i\"\n")
            == "/etc/hearth/hearth.toml:1: auth.audience is required: the aud every ID token must have; for Firebase Auth the project ID")
        #expect(Self.refusal(source + "issuer = \"i\"\naudience = \"\"\n") == "/etc/hearth/hearth.toml:4: auth.audience: must not be empty")
        #expect(Self.refusal(source + "issuer = \"\"\naudience = \"a\"\n") == "/etc/hearth/hearth.toml:3: auth.issuer: must not be empty")
    }

    @Test func unknownKeysAndWrongTypesAreRefusedNamingTheKeyAndTheLine() {
        #expect(Self.refusal("[auth]\njwksUrl = \"https://id.example.com/jwks\"\nissuer = \"i\"\naudience = \"a\"\nprojectId = \"p\"\n")
            == "/etc/hearth/hearth.toml:5: unknown key \"auth.projectId\"; accepted here: audience, certsUrl, issuer, jwksFile, jwksUrl")
        #expect(Self.refusal("[auth]\njwksUrl = \"https://id.example.com/jwks\"\nissuer = \"i\"\naudience = [\"a\"]\n")
            == "/etc/hearth/hearth.toml:4: auth.audience: expected a string, found array")
        #expect(Self.refusal("[auth]\njwksUrl = \"id.example.com/jwks\"\nissuer = \"i\"\naudience = \"a\"\n")
            == "/etc/hearth/hearth.toml:2: auth.jwksUrl: expected an http:// or https:// URL, found \"id.example.com/jwks\"")
        #expect(Self.refusal("auth = \"firebase\"\n") == "/etc/hearth/hearth.toml:1: auth: expected a table ([auth]), found string")
    }
}
