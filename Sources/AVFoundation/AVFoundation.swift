// `import AVFoundation` on Linux, for Core Haptics code: Apple's samples import it for
// `AVAudioSession` alone, which is AVFAudio's (re-exported here as AVFoundation re-exports it), with
// Foundation. Nothing else of AVFoundation is here (docs/clients.md, "Swift").
@_exported import AVFAudio
@_exported import Foundation
