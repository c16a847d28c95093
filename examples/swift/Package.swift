// swift-tools-version:6.0
// A program written the way iOS code uses Core Haptics, built for Linux against hapticd's libraries.
// Copy this folder, point the dependency at your checkout of hapticd (or its git URL), and
// `swift run HapticsDemo` with hapticd running.
import PackageDescription

let package = Package(
    name: "HapticsDemo",
    dependencies: [
        // .package(url: "https://github.com/OWNER/hapticd.git", branch: "main") outside this tree.
        .package(name: "hapticd", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "HapticsDemo",
            dependencies: [
                .product(name: "CoreHaptics", package: "hapticd"),
                .product(name: "GameController", package: "hapticd"),
                .product(name: "HapticFeedback", package: "hapticd"),
                // Add where a file says `import AVFoundation` (or `AVFAudio`): the audio session
                // that `CHHapticEngine(audioSession:)` takes.
                // .product(name: "AVFoundation", package: "hapticd"),
            ],
            resources: [.copy("Heartbeat.ahap")]
        ),
    ]
)
