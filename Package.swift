// swift-tools-version: 6.1
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// How `hearth` is linked on Linux (docs/decisions/0006-link-hearth-lean.md): with
/// lld, relative relocations packed (`DT_RELR`, glibc 2.36+) and no dynamic symbol table of
/// its own. The daemon's idle memory is mostly the pages start-up touched; these three keep
/// the loader from touching 4 MB of relocation and symbol tables that nothing needs.
let leanExecutable = LinkerSetting.unsafeFlags(
    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
    .when(platforms: [.linux])
)

let log = Target.Dependency.product(name: "Logging", package: "swift-log")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let metrics = Target.Dependency.product(name: "CoreMetrics", package: "swift-metrics")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")

/// The layers, arrows pointing down (see docs/architecture.md):
///
///     hearth, hearth-bench           executables (CLI)
///     HearthTesting                  tests' in-memory backend and job-context builder
///     HearthServer                   the daemon's HTTP endpoint: metrics, health, status page
///     HearthHost                     config, runner, scheduler daemon, plan report
///     HearthOutbound                 outbox delivery, webhooks, push providers
///     HearthAuth                     ID-token verification for callable functions (jwt-kit)
///     HearthPostgres                 the PostgreSQL backend (libpq)
///     HearthDataDirectory            the data-directory backend (JSON files)
///     HearthStore  HearthHTTP  HearthSchedule  HearthTOML
///     HearthKit                      the job SDK; Jobs/ imports only this
let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
        .library(name: "HearthKit", targets: ["HearthKit"]),
        // What a job's tests need instead of files (docs/jobs/README.md#writing-a-job).
        .library(name: "HearthTesting", targets: ["HearthTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // ID-token verification for callable functions (docs/decisions/0009-jwt-kit-for-id-tokens.md).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // The daemon's HTTP endpoint and its metrics (docs/operations/monitoring.md); traits
        // off: no swift-configuration, nothing the server does needs them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // libcurl and libpq are not linked: the system library targets below give their headers
        // only (no `link`, and no pkgConfig, which would add -lcurl / -lpq), and the loaders open
        // them with dlopen on first use, so a process that never sends HTTP or uses PostgreSQL
        // never maps them (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md).
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlLoader", dependencies: ["CCurl"], path: "Sources/CCurlLoader"),
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "CLibPQLoader", dependencies: ["CLibPQ"], path: "Sources/CLibPQLoader"),
        .target(name: "CSpawn", path: "Sources/CSpawn"),
        .target(name: "HearthKit", path: "Sources/HearthKit", swiftSettings: upcoming),
        // The storage seam (StorageBackend and its capabilities) and the types every backend
        // shares; each backend is a target of its own.
        .target(name: "HearthStore", dependencies: ["HearthKit"], path: "Sources/HearthStore", swiftSettings: upcoming),
        // The data-directory backend (docs/data-directory.md), beside HearthPostgres.
        .target(name: "HearthDataDirectory", dependencies: ["HearthKit", "HearthStore"], path: "Sources/HearthDataDirectory", swiftSettings: upcoming),
        .target(name: "HearthPostgres", dependencies: ["HearthKit", "HearthStore", "CLibPQ", "CLibPQLoader", "CSpawn"], path: "Sources/HearthPostgres", swiftSettings: upcoming),
        .target(name: "HearthHTTP", dependencies: ["HearthKit", "CCurl", "CCurlLoader"], path: "Sources/HearthHTTP", swiftSettings: upcoming),
        .target(name: "HearthSchedule", dependencies: ["HearthKit"], path: "Sources/HearthSchedule", swiftSettings: upcoming),
        // The configuration's TOML, parsed into lines-annotated tables (docs/decisions/0001-hand-written-toml-parser.md).
        .target(name: "HearthTOML", dependencies: ["HearthKit"], path: "Sources/HearthTOML", swiftSettings: upcoming),
        .target(
            name: "HearthAuth",
            dependencies: ["HearthKit", log, .product(name: "JWTKit", package: "jwt-kit")],
            path: "Sources/HearthAuth",
            swiftSettings: upcoming
        ),
        .target(
            name: "HearthOutbound",
            dependencies: [
                "HearthKit", "HearthStore", log,
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/HearthOutbound",
            swiftSettings: upcoming
        ),
        .target(
            name: "HearthHost",
            dependencies: [
                "HearthKit", "HearthStore", "HearthDataDirectory", "HearthPostgres", "HearthHTTP", "HearthSchedule", "HearthTOML", "HearthOutbound", "HearthAuth", "CSpawn", log, lifecycle,
                metrics, prometheus,
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/HearthHost",
            swiftSettings: upcoming
        ),
        .target(
            name: "HearthServer",
            dependencies: [
                "HearthKit", "HearthStore", "HearthHost", "HearthAuth", log, lifecycle,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Sources/HearthServer",
            swiftSettings: upcoming
        ),
        .target(name: "Jobs", dependencies: ["HearthKit"], path: "Jobs", swiftSettings: upcoming),
        // An in-memory storage backend and a job-context builder for tests, beside the host.
        .target(name: "HearthTesting", dependencies: ["HearthKit", "HearthStore"], path: "Sources/HearthTesting", swiftSettings: upcoming),
        .executableTarget(
            name: "hearth",
            dependencies: [
                "HearthKit", "HearthStore", "HearthDataDirectory", "HearthPostgres", "HearthHTTP", "HearthSchedule", "HearthOutbound", "HearthAuth", "HearthHost", "HearthServer", "Jobs", log, lifecycle,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/hearth",
            swiftSettings: upcoming,
            linkerSettings: [leanExecutable]
        ),
        .executableTarget(
            name: "hearth-bench",
            dependencies: [
                "HearthKit", "HearthStore", "HearthDataDirectory", "HearthHTTP", "HearthOutbound", "HearthHost", "Jobs", log,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/hearth-bench",
            swiftSettings: upcoming
        ),
        .target(
            name: "HearthTestSupport",
            dependencies: ["CSpawn", "HearthKit", "HearthStore", "HearthPostgres", "HearthHost"],
            path: "Tests/HearthTestSupport",
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HearthCoreTests",
            dependencies: [
                "HearthKit", "HearthStore", "HearthDataDirectory", "HearthPostgres", "HearthHTTP", "HearthSchedule", "HearthTOML", "HearthOutbound", "HearthAuth", "HearthHost", "HearthTestSupport",
                "HearthTesting", log, lifecycle,
                // The ID-token tests make keys and sign tokens; the verifier itself only verifies.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/HearthCoreTests",
            resources: [.copy("Fixtures")],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "JobsTests",
            dependencies: ["Jobs", "HearthKit", "HearthStore", "HearthDataDirectory", "HearthPostgres", "HearthHTTP", "HearthOutbound", "HearthHost", "HearthTestSupport", "HearthTesting"],
            path: "Tests/JobsTests",
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["HearthKit", "HearthStore", "HearthDataDirectory", "HearthPostgres", "HearthHTTP", "HearthHost", "HearthTestSupport"],
            path: "Tests/EndToEndTests",
            exclude: ["Fixtures"],   // golden files, read through #filePath (GoldenOutputTests)
            swiftSettings: upcoming
        ),
    ],
    swiftLanguageModes: [.v6]
)
