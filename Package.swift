// swift-tools-version: 6.1
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "Jobs", targets: ["Jobs"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "HearthCore",
            dependencies: [
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/HearthCore",
            swiftSettings: upcoming
        ),
        .target(
            name: "Jobs",
            dependencies: ["HearthCore"],
            path: "Jobs",
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "hearth",
            dependencies: [
                "HearthCore", "Jobs",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/hearth",
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HearthCoreTests",
            dependencies: [
                "HearthCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/HearthCoreTests",
            resources: [.copy("Fixtures")],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "JobsTests",
            dependencies: ["Jobs", "HearthCore"],
            path: "Tests/JobsTests",
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["HearthCore"],
            path: "Tests/EndToEndTests",
            swiftSettings: upcoming
        ),
    ],
    swiftLanguageModes: [.v6]
)
