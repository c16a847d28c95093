// Apple's Core Haptics, on Linux, over hapticd (docs/clients.md, "Swift").
//
// As Apple's module does, this one makes Foundation available to whoever imports it: code that uses
// `Data`, `URL`, `TimeInterval` or `error.localizedDescription` after only `import CoreHaptics` compiles.
@_exported import Foundation
// And AVFAudio's audio session (`CHHapticEngine(audioSession:)`), as before it had a module of its own.
@_exported import AVFAudio

/// "Immediately", for every `atTime:` argument (the engine's time 0).
public let CHHapticTimeImmediate: TimeInterval = 0

/// Identifies an audio resource registered with an engine (`registerAudioResource`).
public typealias CHHapticAudioResourceID = Int

/// The keys of `registerAudioResource(_:options:)`'s options (accepted; audio is not played).
public typealias CHHapticAudioResourceKey = String
public let CHHapticAudioResourceKeyUseVolumeEnvelope: CHHapticAudioResourceKey = "UseVolumeEnvelope"
public let CHHapticAudioResourceKeyLoopEnabled: CHHapticAudioResourceKey = "LoopEnabled"

/// What an advanced player calls when it has finished playing.
public typealias CHHapticAdvancedPatternPlayerCompletionHandler = (Error?) -> Void
