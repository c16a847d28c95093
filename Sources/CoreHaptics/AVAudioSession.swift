// Apple's engine for an audio session; the session is AVFAudio's (this package's stand-in).

extension CHHapticEngine {
    /// Apple's engine for an audio session (nil: one of the engine's own). The session has no effect
    /// here: the engine plays on the default pad, as `init()` does.
    public convenience init(audioSession: AVAudioSession?) throws {
        try self.init()
    }
}
