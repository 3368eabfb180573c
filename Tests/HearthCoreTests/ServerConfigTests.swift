import HearthKit
import HearthHost
import Testing

/// `[server]` and `pauseAfterFailures` in the configuration (docs/operations/monitoring.md).
@Suite("Server configuration")
struct ServerConfigTests {
    static func load(_ toml: String, environment: [String: String] = [:]) throws(ConfigError) -> HearthConfig {
        try ConfigLoader(jobs: ProbeJob.registry.descriptors, environment: environment).parse(toml, file: "/etc/hearth/hearth.toml", dataOverride: "/tmp")
    }

    @Test func theEndpointIsOffWithoutAServerTable() throws {
        #expect(try Self.load("").server == nil)
    }

    @Test func aLoopbackAddressNeedsNoToken() throws {
        let server = try #require(try Self.load("[server]\nlisten = \"127.0.0.1:9464\"\n").server)
        #expect(server.host == "127.0.0.1")
        #expect(server.port == 9464)
        #expect(server.isLoopback)
        #expect(try Self.load("[server]\nlisten = \"[::1]:9464\"\n").server?.host == "::1")
    }

    @Test func aNonLoopbackAddressWithoutATokenIsRefusedNamingTheKeyAndTheFix() throws {
        let error = #expect(throws: ConfigError.self) { try Self.load("[server]\nlisten = \"0.0.0.0:9464\"\n") }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("/etc/hearth/hearth.toml:2: [server] listen"))
        #expect(text.contains("tokenFile"))
        #expect(text.contains("tokenEnv"))
    }

    @Test func aNonLoopbackAddressWithATokenVariableIsAccepted() throws {
        let server = try #require(try Self.load("[server]\nlisten = \"0.0.0.0:9464\"\ntokenEnv = \"HEARTH_TOKEN\"\n").server)
        #expect(!server.isLoopback)
        #expect(try server.resolveTokens(environment: ["HEARTH_TOKEN": " s3cret\n"], configFile: "x") == [ServerConfig.Token(name: "token", secret: "s3cret", role: .operate)])
        let missing = #expect(throws: ConfigError.self) { try server.resolveTokens(environment: [:], configFile: "x") }
        #expect(missing?.description == "x: [server] tokenEnv: the environment variable HEARTH_TOKEN is not set or empty; set it to the bearer token")
    }

    @Test func namedTokensCarryTheirRoleAndTheSingleTokenIsOneOperateToken() throws {
        let toml = """
            [server]
            listen = "0.0.0.0:9464"
            tokenEnv = "LEGACY"
            healthNeedsToken = true
            [[server.tokens]]
            name = "grafana"
            env = "GRAFANA"
            role = "read"
            [[server.tokens]]
            name = "ops"
            env = "OPS"
            role = "operate"

            """
        let server = try #require(try Self.load(toml).server)
        #expect(server.healthNeedsToken)
        #expect(server.tokens.map(\.name) == ["grafana", "ops"])
        let tokens = try server.resolveTokens(environment: ["LEGACY": "a", "GRAFANA": "b", "OPS": "c"], configFile: "x")
        #expect(tokens == [
            ServerConfig.Token(name: "token", secret: "a", role: .operate), ServerConfig.Token(name: "grafana", secret: "b", role: .read),
            ServerConfig.Token(name: "ops", secret: "c", role: .operate),
        ])
        #expect(!tokens.description.contains("\"b\"") && !"\(tokens[1])".contains("b ("))
        let shared = #expect(throws: ConfigError.self) { try server.resolveTokens(environment: ["LEGACY": "a", "GRAFANA": "a", "OPS": "c"], configFile: "x") }
        #expect(shared?.description == "x:5: [[server.tokens]] #1 (grafana): the same secret as token; give every token its own secret (e.g. `openssl rand -hex 32`)")
        // Named tokens alone satisfy a non-loopback address.
        #expect(try Self.load("[server]\nlisten = \"0.0.0.0:1\"\n[[server.tokens]]\nname = \"a\"\nenv = \"A\"\nrole = \"read\"\n").server?.hasTokens == true)
    }

    @Test func aBadTokenEntryNamesTheLineAndTheFix() throws {
        let cases: [(String, String)] = [
            ("name = \"a\"\nenv = \"A\"\nrole = \"root\"", "/etc/hearth/hearth.toml:6: [[server.tokens]] a: role = \"root\"; accepted: \"read\" or \"operate\""),
            ("name = \"a b\"\nenv = \"A\"\nrole = \"read\"", "/etc/hearth/hearth.toml:4: [[server.tokens]] name = \"a b\": use 1–64 letters, digits, - _ . or @"),
            ("name = \"a\"\nrole = \"read\"", "/etc/hearth/hearth.toml:3: [[server.tokens]] a: set exactly one of file (a file holding the token) or env (an environment variable holding it)"),
            ("name = \"a\"\nenv = \"A\"\nrole = \"read\"\nsecret = \"x\"", "/etc/hearth/hearth.toml:7: server.tokens.secret: secrets are never written in the config; put it in a file (secretFile) or an environment variable (secretEnv)"),
        ]
        for (entry, message) in cases {
            let error = #expect(throws: ConfigError.self) { try Self.load("[server]\nlisten = \"127.0.0.1:1\"\n[[server.tokens]]\n\(entry)\n") }
            #expect(error?.description == message)
        }
    }

    @Test func aBadListenValueSaysWhatIsAccepted() throws {
        for bad in ["9464", "localhost", "::1:9464", "127.0.0.1:99999"] {
            let error = #expect(throws: ConfigError.self) { try Self.load("[server]\nlisten = \"\(bad)\"\n") }
            #expect(error?.description.contains("expected HOST:PORT") == true, "\(bad)")
        }
    }

    @Test func pauseAfterFailuresIsAPositiveIntegerPerJobOrInDefaults() throws {
        #expect(try Self.load("[jobs.probe]\npauseAfterFailures = 3\n").jobs["probe"]?.policy.pauseAfterFailures == 3)
        #expect(try Self.load("[defaults]\npauseAfterFailures = 5\n").jobs["probe"]?.policy.pauseAfterFailures == 5)
        #expect(try Self.load("").jobs["probe"]?.policy.pauseAfterFailures == nil)
        #expect(throws: ConfigError.self) { try Self.load("[jobs.probe]\npauseAfterFailures = 0\n") }
    }
}
