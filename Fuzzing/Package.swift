// swift-tools-version: 6.1
import PackageDescription

// Coverage-guided fuzzers (libFuzzer) for hapticd's parsers and its request path. A package of its
// own so that `swift build` at the root never builds them; scripts/fuzz.sh builds them with
// `swift build --sanitize=fuzzer --sanitize=address` (see docs/robustness.md).
// Each executable defines LLVMFuzzerTestOneInput and is compiled with -parse-as-library, so that
// libFuzzer's own `main` drives it.
let harness: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "hapticd-fuzz",
    dependencies: [
        .package(name: "hapticd", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "fuzz-json", dependencies: [.product(name: "HapticCore", package: "hapticd")],
            path: "Sources/FuzzJSON", swiftSettings: harness),
        .executableTarget(
            name: "fuzz-ahap", dependencies: [.product(name: "HapticCore", package: "hapticd")],
            path: "Sources/FuzzAHAP", swiftSettings: harness),
        .executableTarget(
            name: "fuzz-request",
            dependencies: [.product(name: "HapticCore", package: "hapticd"), .product(name: "HapticProtocol", package: "hapticd")],
            path: "Sources/FuzzRequest", swiftSettings: harness),
        .executableTarget(
            name: "fuzz-daemon",
            dependencies: [
                .product(name: "HapticCore", package: "hapticd"), .product(name: "HapticProtocol", package: "hapticd"),
                .product(name: "HapticDaemon", package: "hapticd"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/FuzzDaemon", swiftSettings: harness),
        .executableTarget(
            name: "fuzz-config",
            dependencies: [.product(name: "HapticDaemon", package: "hapticd"), .product(name: "TOMLKit", package: "TOMLKit")],
            path: "Sources/FuzzConfig", swiftSettings: harness),
    ],
    swiftLanguageModes: [.v6]
)
