// swift-tools-version: 6.1
import PackageDescription

// Layout: docs/architecture.md has the map of every target, what each may use and why (kept there
// only, so that it is one list).
let package = Package(
    name: "hapticd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HapticCore", targets: ["HapticCore"]),
        // For the fuzzers (Fuzzing/, a separate package that depends on this one by path).
        .library(name: "HapticProtocol", targets: ["HapticProtocol"]),
        .library(name: "HapticDaemon", targets: ["HapticDaemon"]),
        // Apple's haptics APIs on Linux, over hapticd (docs/clients.md, "Swift"): `import CoreHaptics`,
        // `import GameController`, `import HapticFeedback` (UIKit's feedback generators).
        .library(name: "HapticClient", targets: ["HapticClient"]),
        .library(name: "CoreHaptics", targets: ["CoreHaptics"]),
        // `import AVFoundation` / `import AVFAudio` as Core Haptics code writes them: the audio session.
        .library(name: "AVFoundation", targets: ["AVFoundation"]),
        .library(name: "AVFAudio", targets: ["AVFAudio"]),
        .library(name: "GameController", targets: ["GameController"]),
        .library(name: "HapticFeedback", targets: ["HapticFeedback"]),
        // libCoreHapticsWrapper.so: the native library of Apple's Unity plug-in Apple.CoreHaptics, for
        // Linux (docs/clients.md, "Unity"; `make unity` builds it with the Swift runtime linked in).
        .library(name: "CoreHapticsWrapper", type: .dynamic, targets: ["CoreHapticsWrapper"]),
        .executable(name: "hapticctl", targets: ["hapticctl"]),
        .executable(name: "hapticbench", targets: ["hapticbench"]),
        .executable(name: "hapticd", targets: ["hapticd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .target(
            name: "HapticCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")]
        ),
        .target(name: "HapticTools", dependencies: ["HapticCore"]),
        .systemLibrary(
            name: "CEvdev", path: "Sources/CEvdev", pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]
        ),
        .target(
            name: "Evdev",
            dependencies: ["CEvdev", "HapticCore", "BoundedIO", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // The second device backend: a pad's own rumble reports on its hidraw node (Switch HD rumble,
        // Xbox trigger motors), beside the kernel driver that stays bound.
        .target(name: "Hidraw", dependencies: ["HapticCore", .product(name: "SystemPackage", package: "swift-system")]),
        // ALSA, for the DualSense's USB audio stream (its voice coils are channels 3 and 4): the library
        // and a thin playback stream over it.
        .systemLibrary(name: "CAlsa", path: "Sources/CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(name: "Alsa", dependencies: ["CAlsa"]),
        // Bounded, EINTR-safe reads (files, pipes, sockets, inotify) through swift-system's FileDescriptor.
        .target(name: "BoundedIO", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "HapticProtocol", dependencies: ["HapticCore"]),
        // timerfd(2) and a thread name for the render loop's own thread (a header only: both are in libc).
        .systemLibrary(name: "CRenderThread", path: "Sources/CRenderThread"),
        .target(
            name: "HapticDaemon",
            dependencies: [
                "HapticCore", "Evdev", "Hidraw", "Alsa", "HapticProtocol", "BoundedIO", "CRenderThread",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .target(
            name: "HapticClient",
            dependencies: ["HapticProtocol", "HapticCore", "BoundedIO", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "AVFAudio"),
        .target(name: "AVFoundation", dependencies: ["AVFAudio"]),
        // Apple's header submodules (`import CoreHaptics.CHHapticEngine`): a module map only.
        .systemLibrary(name: "CoreHapticsHeaders", path: "Sources/CoreHapticsHeaders"),
        // (Linux only: on Apple's platforms the SDK's own CoreHaptics framework module has the name.)
        .target(name: "CoreHaptics", dependencies: [
            "AVFAudio", .target(name: "CoreHapticsHeaders", condition: .when(platforms: [.linux])), "HapticClient", "HapticCore"]),
        .target(name: "GameController", dependencies: ["CEvdev", "CoreHaptics", "HapticClient", "HapticCore"]),
        .target(name: "HapticFeedback", dependencies: ["CoreHaptics", "HapticClient", "HapticCore"]),
        // The plug-in's C structs and callback types (a header only: nothing to link).
        .systemLibrary(name: "CCoreHapticsWrapper", path: "Sources/CCoreHapticsWrapper"),
        .target(
            name: "CoreHapticsWrapper", dependencies: ["CCoreHapticsWrapper", "CoreHaptics", "HapticCore"],
            exclude: ["CoreHapticsWrapper.exports"]),
        .executableTarget(
            name: "hapticd",
            dependencies: [
                "HapticDaemon", "HapticCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "hapticbench",
            dependencies: ["HapticCore", "HapticDaemon", "HapticClient", "CoreHaptics", "Evdev", "BoundedIO", .product(name: "Logging", package: "swift-log")]
        ),
        // Runs inside the qemu VM against a uinput pad (scripts/vm-test.sh); built as a static executable.
        .target(name: "VMTestSupport", dependencies: ["HapticClient", "HapticCore"], path: "Tests/VM/VMTestSupport"),
        .executableTarget(name: "evdev-vmtest", dependencies: ["Evdev", "HapticCore", "VMTestSupport"], path: "Tests/VM/evdev-vmtest"),
        .executableTarget(
            name: "engine-vmtest", dependencies: ["Evdev", "HapticCore", "HapticDaemon", "VMTestSupport"],
            path: "Tests/VM/engine-vmtest"),
        .executableTarget(
            name: "daemon-vmtest", dependencies: ["HapticClient", "HapticCore", "VMTestSupport"],
            path: "Tests/VM/daemon-vmtest"),
        .executableTarget(
            name: "xpad-vmtest", dependencies: ["HapticClient", "HapticCore", "VMTestSupport"],
            path: "Tests/VM/xpad-vmtest"),
        .executableTarget(
            name: "drivers-vmtest", dependencies: ["GameController", "HapticClient", "HapticCore", "Evdev", "VMTestSupport"],
            path: "Tests/VM/drivers-vmtest"),
        .executableTarget(
            name: "hidraw-vmtest", dependencies: ["GameController", "HapticClient", "HapticCore", "VMTestSupport"],
            path: "Tests/VM/hidraw-vmtest"),
        .executableTarget(
            name: "dualsense-vmtest", dependencies: ["HapticClient", "HapticCore", "VMTestSupport"],
            path: "Tests/VM/dualsense-vmtest"),
        .executableTarget(
            name: "dsusb-vmtest", dependencies: ["HapticClient", "HapticCore", "VMTestSupport"],
            path: "Tests/VM/dsusb-vmtest"),
        .executableTarget(
            name: "hapticctl",
            dependencies: [
                "HapticCore", "HapticTools", "HapticClient", "HapticProtocol", "BoundedIO",
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
        .testTarget(name: "EvdevTests", dependencies: ["Evdev", "HapticCore"]),
        .testTarget(name: "AlsaTests", dependencies: ["Alsa"]),
        .testTarget(name: "HidrawTests", dependencies: ["Hidraw", "HapticCore", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "BoundedIOTests",
            dependencies: ["BoundedIO", .product(name: "SystemPackage", package: "swift-system")]),
        // A real hapticd for the end-to-end tests of every test target.
        .target(name: "DaemonTestSupport", dependencies: ["HapticClient", "HapticCore"], path: "Tests/DaemonTestSupport"),
        .testTarget(
            name: "HapticDaemonTests",
            dependencies: ["HapticDaemon", "HapticCore", "Evdev", "HapticClient", "HapticProtocol", "DaemonTestSupport"]),
        .testTarget(
            name: "CoreHapticsTests",
            dependencies: ["AVFoundation", "AVFAudio", "CoreHaptics", "GameController", "HapticFeedback", "DaemonTestSupport", "HapticClient", "HapticCore"]),
    ],
    swiftLanguageModes: [.v6]
)
