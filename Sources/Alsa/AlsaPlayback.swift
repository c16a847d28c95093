import CAlsa
import Glibc

/// Why an ALSA call failed: the operation, the device and ALSA's (negative errno) code.
public struct AlsaError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// `EBUSY`: another program holds the device (the pad's speaker in use, say).
        case busy
        /// `ENODEV`, `ENOENT`, `EBADFD`, `ENXIO`: the device is not there, or went away mid-stream.
        case gone
        /// Anything else.
        case other
    }

    public var operation: String
    public var device: String
    /// ALSA's return value: a negative errno.
    public var code: Int32

    public init(_ operation: String, _ device: String, _ code: Int32) {
        self.operation = operation
        self.device = device
        self.code = code
    }

    public var kind: Kind {
        switch -code {
        case EBUSY: .busy
        case ENODEV, ENOENT, EBADFD, ENXIO, ESHUTDOWN: .gone
        default: .other
        }
    }

    public var description: String {
        "\(device): \(operation) failed: \(String(cString: snd_strerror(code))) (\(-code))"
    }
}

/// One ALSA playback stream of interleaved signed 16-bit frames, with a fixed period and buffer (the
/// stream's latency: `periods × periodFrames`). Opened blocking (the default): `write` returns once
/// the frames are in the buffer, so a writer that renders a period ahead is paced by the device
/// itself. Opened non-blocking (`nonBlocking`, for a writer that must never wait on the device: the
/// render loop), `writeAvailable` writes what fits and says how much that was. An underrun is
/// recovered (and counted); a device that vanishes is `AlsaError.Kind.gone`.
///
/// Not `Sendable`: one owner (the pad's stream thread, or a test's).
public final class AlsaPlayback {
    public let device: String
    public let channels: Int
    public let rate: Int
    public let periodFrames: Int
    public let bufferFrames: Int
    public private(set) var underruns = 0
    private var pcm: OpaquePointer?

    private init(device: String, pcm: OpaquePointer, channels: Int, rate: Int, periodFrames: Int, bufferFrames: Int) {
        self.device = device
        self.pcm = pcm
        self.channels = channels
        self.rate = rate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    /// Opens `device` (`hw:CARD=K,DEV=0`, or any ALSA name) for `channels` × `rate` Hz S16_LE,
    /// interleaved, with `periods` periods of `periodFrames` each. The rate and channels must be the
    /// device's own (no conversion); the period and buffer are the nearest the device allows.
    public static func open(
        device: String, channels: Int, rate: Int, periodFrames: Int, periods: Int, nonBlocking: Bool = false
    ) throws(AlsaError) -> AlsaPlayback {
        guard (1...32).contains(channels), (8000...192_000).contains(rate), (16...8192).contains(periodFrames), (2...128).contains(periods) else {
            throw AlsaError("configure", device, -EINVAL)
        }
        var handle: OpaquePointer?
        var r = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, nonBlocking ? SND_PCM_NONBLOCK : 0)
        guard r >= 0, let pcm = handle else { throw AlsaError("open", device, r) }
        var params: OpaquePointer?
        snd_pcm_hw_params_malloc(&params)
        defer { snd_pcm_hw_params_free(params) }
        var period = snd_pcm_uframes_t(periodFrames)
        var buffer = snd_pcm_uframes_t(periodFrames * periods)
        func step(_ what: String, _ call: () -> Int32) throws(AlsaError) {
            r = call()
            if r < 0 {
                snd_pcm_close(pcm)
                throw AlsaError(what, device, r)
            }
        }
        try step("read the device's parameters") { snd_pcm_hw_params_any(pcm, params) }
        try step("set interleaved access") { snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED) }
        try step("set S16_LE") { snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE) }
        try step("set \(channels) channels") { snd_pcm_hw_params_set_channels(pcm, params, UInt32(channels)) }
        try step("set \(rate) Hz") { snd_pcm_hw_params_set_rate(pcm, params, UInt32(rate), 0) }
        try step("disable resampling") { snd_pcm_hw_params_set_rate_resample(pcm, params, 0) }
        try step("set the period") { snd_pcm_hw_params_set_period_size_near(pcm, params, &period, nil) }
        try step("set the buffer") { snd_pcm_hw_params_set_buffer_size_near(pcm, params, &buffer) }
        try step("apply the parameters") { snd_pcm_hw_params(pcm, params) }
        return AlsaPlayback(device: device, pcm: pcm, channels: channels, rate: rate, periodFrames: Int(period), bufferFrames: Int(buffer))
    }

    /// Writes whole frames (`samples.count` must be a multiple of `channels`); returns once they are
    /// all in the device's buffer. An underrun (the writer was late) is recovered and the rest written.
    public func write(_ samples: [Int16]) throws(AlsaError) {
        guard let pcm else { throw AlsaError("write", device, -EBADFD) }
        let frames = samples.count / channels
        var done = 0
        while done < frames {
            let n = samples.withUnsafeBufferPointer { b in
                snd_pcm_writei(pcm, b.baseAddress! + done * channels, snd_pcm_uframes_t(frames - done))
            }
            if n >= 0 {
                done += Int(n)
                continue
            }
            let code = Int32(truncatingIfNeeded: n)
            if code == -EPIPE || code == -EINTR || code == -ESTRPIPE {
                if code == -EPIPE { underruns += 1 }
                let r = snd_pcm_recover(pcm, code, 1)
                if r < 0 { throw AlsaError("recover", device, r) }
                continue
            }
            throw AlsaError("write", device, code)
        }
    }

    /// Writes as many whole frames of `samples` as the buffer takes now, without waiting (a stream
    /// opened `nonBlocking`; on a blocking one this is `write`); returns how many frames that was (the
    /// rest did not fit: `EAGAIN`). An underrun is recovered (and counted) and the write goes on.
    public func writeAvailable(_ samples: [Int16]) throws(AlsaError) -> Int {
        guard let pcm else { throw AlsaError("write", device, -EBADFD) }
        let frames = samples.count / channels
        var done = 0
        // Bounded: each round writes frames or recovers; a device that keeps failing throws.
        var recoveries = 0
        while done < frames {
            let n = samples.withUnsafeBufferPointer { b in
                snd_pcm_writei(pcm, b.baseAddress! + done * channels, snd_pcm_uframes_t(frames - done))
            }
            if n >= 0 {
                if n == 0 { break }
                done += Int(n)
                continue
            }
            let code = Int32(truncatingIfNeeded: n)
            if code == -EAGAIN { break }
            if (code == -EPIPE || code == -EINTR || code == -ESTRPIPE) && recoveries < 4 {
                recoveries += 1
                if code == -EPIPE { underruns += 1 }
                let r = snd_pcm_recover(pcm, code, 1)
                if r < 0 { throw AlsaError("recover", device, r) }
                continue
            }
            throw AlsaError("write", device, code)
        }
        return done
    }

    /// Frames queued and not yet played (the stream's current latency).
    public func delayFrames() -> Int {
        guard let pcm else { return 0 }
        var delay = snd_pcm_sframes_t(0)
        return snd_pcm_delay(pcm, &delay) >= 0 ? max(Int(delay), 0) : 0
    }

    /// Stops at once (what is queued is dropped) and releases the device for other programs.
    public func close() {
        guard let pcm else { return }
        self.pcm = nil
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
    }

    deinit { close() }
}
