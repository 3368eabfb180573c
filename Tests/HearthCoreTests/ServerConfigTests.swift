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
        #expect(try server.token(environment: ["HEARTH_TOKEN": " s3cret\n"], configFile: "x") == "s3cret")
        #expect(throws: ConfigError.self) { try server.token(environment: [:], configFile: "x") }
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
