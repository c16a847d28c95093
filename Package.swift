// swift-tools-version: 6.1
import PackageDescription

// Layout (see docs/architecture.md):
//   HapticCore    pure model, AHAP loader/writer, renderer, profiles: no I/O, no Glibc, no Dispatch
//   HapticTools   offline reports built on the core (validate/info/render as CSV or SVG)
//   hapticctl     thin command-line front end
let package = Package(
    name: "hapticd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HapticCore", targets: ["HapticCore"]),
        .executable(name: "hapticctl", targets: ["hapticctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "HapticCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")]
        ),
        .target(name: "HapticTools", dependencies: ["HapticCore"]),
        .executableTarget(
            name: "hapticctl",
            dependencies: [
                "HapticCore", "HapticTools",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "HapticCoreTests",
            dependencies: [
                "HapticCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "HapticToolsTests", dependencies: ["HapticCore", "HapticTools"]),
    ],
    swiftLanguageModes: [.v6]
)
