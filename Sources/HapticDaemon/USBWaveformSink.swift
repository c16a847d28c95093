import Alsa
import Evdev
import Glibc
import HapticCore

/// What a waveform transport's `pass` did: `handled` — the stream rendered the pad (the loop must not
/// tick it); `changed` — the pad moved between waveform and rumble (the loop reports it).
public struct WaveformPass {
    public var handled: Bool
    public var changed: HapticsStatus?
}

/// A pad whose engines can be streamed as waveforms (a DualSense over Bluetooth or over USB): the
/// render loop asks `pass` first on every render of the pad; while `usesWaveform`, the stream is the
/// pad's only renderer (no `tick()`, no pipeline catch-up: `catchUp` before a command) and the motor
/// path (`apply`) is not used. Owned by the render loop, used under its lock only.
public protocol WaveformTransport: MotorSink {
    /// Whether the waveform stream renders the pad (else the motor path).
    var usesWaveform: Bool { get }
    /// The stream needs the loop on its grid (`fixed` mode keeps ticking while it does).
    var isStreaming: Bool { get }
    var currentStatus: HapticsStatus { get }
    func pass(_ pipeline: PadPipeline, now: Double) -> WaveformPass
    func catchUp(_ pipeline: PadPipeline, now: Double)
    func nextWakeup(_ pipeline: PadPipeline, now: Double) -> Double?
}

/// A PCM playback stream as the USB sink uses it (`AlsaPlayback`; tests give their own).
public protocol WaveformPCM: AnyObject {
    /// Writes what fits now, without waiting; returns the frames written.
    func writeAvailable(_ samples: [Int16]) throws(AlsaError) -> Int
    /// Frames queued and not yet played.
    func delayFrames() -> Int
    /// Stops at once (what is queued is dropped) and releases the device.
    func close()
}

extension AlsaPlayback: WaveformPCM {}

/// A DualSense over USB with its voice coils (docs/devices.md, "DualSense voice coils over USB"): the
/// pad is also a USB audio device, whose 4-channel, 48 kHz, 16-bit playback stream carries the left
/// and right actuators on channels 3 and 4 (1–2, the speaker or headphones, are left silent). While
/// the stream can be opened, the pad's engines are streamed to it in 5 ms blocks (240 frames,
/// `WaveformStream`: behind the clock, no gaps, a bounded catch-up).
///
/// **The device is held only while something sounds.** The PCM is opened (non-blocking: the render
/// loop never waits on the device) when a stream starts, and closed `idleTail` after the stream's
/// last, silent block, so other programs can use the pad's speaker in between.
///
/// **Latency.** ALSA is asked for 72 periods of 240 frames (a 360 ms buffer: room for what is due
/// after a slow open; the latency is what hapticd keeps queued, not the buffer's size). At each stream's start the buffer is topped up with
/// silence so that the stream's first sample plays `latency` (25 ms: its block's 5 ms and a lead of
/// 20 ms) after its time on the clock; the blocks, each written once its 5 ms have passed, then follow
/// without gaps at that fixed latency. The lead is what snd-usb-audio needs: it takes up to 18 ms of
/// the buffer into its isochronous URBs at once (its `MAX_QUEUE`), so a smaller lead underruns the
/// moment the device starts (seen in the VM: 10 ms lost 37 ms of a tone's start). A pass that finds the
/// device (nearly) dry — a stall longer than the lead, a slow first open — restores the lead with
/// silence before its blocks, counting them (`refills`); while a stream runs up to 12 blocks (60 ms)
/// are caught up, older ones dropped; after the card was opened for a stream, everything due is
/// written (up to 320 ms): the first play after an idle spell comes later by the open's time rather
/// than losing its onset. A block that does not fit (the device's clock slower than the system's over a
/// long stream) is dropped and counted.
///
/// **Fallback.** When the PCM cannot be opened (`EBUSY`: another program holds it; the card is gone)
/// or a write fails (the device vanished mid-stream, an underrun that does not recover), the pad goes
/// to `FF_RUMBLE` through its evdev node at once — the same engines, the same players — and the
/// stream is tried again at the next pass that has something to play after a back-off (1 s, doubling
/// to 30 s), by finding the card again (`locate`) and opening it.
public final class DualSenseUSBWaveformSink: WaveformTransport {
    public static let transport = "usb-audio"
    public static let framesPerBlock = 240
    public static let periods = 72
    /// Blocks given at once by a pass while the stream runs (a stall's backlog; older ones are dropped).
    public static let maximumCatchUp = 12
    public static let leadFrames = 4 * framesPerBlock
    /// From a sample's time on the engine clock to its place in the device's stream: the block it is
    /// rendered in (5 ms) and the lead (20 ms).
    public static let latency = Double(framesPerBlock + leadFrames) / Double(DualSenseAudio.rate)
    /// The PCM is closed this long after the stream's last block.
    public static let idleTail = 1.0

    /// The pad's evdev device (or a test's recorder): the compatible vibration.
    public let rumble: any MotorSink
    /// The ALSA device name (`hw:CARD=K,DEV=0`) of the pad's card; nil when none was found.
    private var device: String?
    /// Finds the pad's card again (sysfs) for a retry: nil when it has none (yet).
    private let locate: () -> String?
    private let openPCM: (String) throws(AlsaError) -> any WaveformPCM
    private var pcm: (any WaveformPCM)?
    /// When the open PCM is closed (engine clock), while the stream is idle.
    private var closeAt: Double?
    private var streamStarts = 0
    /// The stream keeps up to 64 blocks (320 ms) due: all of them are written after the card was opened
    /// (the open — alsa-lib's configuration, snd-usb-audio's setup — took 40–100 ms in the VM, and a
    /// play's onset must not be lost to it); while it runs, a stall's backlog is cut to
    /// `maximumCatchUp` here.
    private var stream = WaveformStream(
        sampleRate: Double(DualSenseAudio.rate), framesPerBlock: DualSenseUSBWaveformSink.framesPerBlock, maximumCatchUp: 64)
    /// The card was opened for this stream and no block has been written yet.
    private var freshlyOpened = false
    /// Blocks dropped here (a stall's backlog beyond `maximumCatchUp`).
    private var lateDrops = 0
    /// The engine clock, read again after the PCM was opened (opening takes time).
    private let clock: () -> Double
    private var status: HapticsStatus
    private let firstBackoff: Double
    private var backoff: Double
    private var cause = ""
    /// Blocks the device's buffer had no room for.
    public private(set) var overruns = 0
    /// Times the device had (nearly) run dry before a block and the lead was restored with silence.
    public private(set) var refills = 0

    /// `device`: the pad's ALSA device, nil when its card was not found (`reason`): the pad starts on
    /// its motors and the card is looked for again at its first play (`locate`). `open`: opens a PCM
    /// (tests give their own). `backoff` bounded to 0.01…`maximumBackoff` s.
    public init(
        device: String?, reason: String? = nil, rumble: any MotorSink, locate: @escaping () -> String?,
        clock: @escaping () -> Double, backoff: Double = DualSenseWaveformSink.initialBackoff,
        open: ((String) throws(AlsaError) -> any WaveformPCM)? = nil
    ) {
        firstBackoff = backoff.isFinite ? min(max(backoff, 0.01), DualSenseWaveformSink.maximumBackoff) : DualSenseWaveformSink.initialBackoff
        self.backoff = firstBackoff
        self.device = device
        self.rumble = rumble
        self.locate = locate
        self.clock = clock
        if let open {
            self.openPCM = open
        } else {
            self.openPCM = { (name: String) throws(AlsaError) -> any WaveformPCM in try DualSenseUSBWaveformSink.openDevice(name) }
        }
        if let device {
            status = HapticsStatus(mode: .waveform, transport: Self.transport, node: device)
        } else {
            let why = reason ?? "no sound card belongs to the pad's USB device"
            status = HapticsStatus(mode: .rumble, transport: "evdev", node: nil, reason: why, retryAt: 0)
            cause = why
        }
        status.sampleRate = Double(DualSenseAudio.rate)
        status.framesPerBlock = Self.framesPerBlock
    }

    /// The pad's PCM: 4 channels, 48 kHz, S16_LE, `periods` periods of one block, non-blocking.
    static func openDevice(_ name: String) throws(AlsaError) -> any WaveformPCM {
        try AlsaPlayback.open(
            device: name, channels: DualSenseAudio.channels, rate: DualSenseAudio.rate,
            periodFrames: framesPerBlock, periods: periods, nonBlocking: true)
    }

    public var usesWaveform: Bool { status.mode == .waveform }
    /// Streaming, or holding the PCM until its tail ends (`fixed` mode keeps ticking to close it).
    public var isStreaming: Bool { usesWaveform && (stream.isStreaming || pcm != nil) }
    /// Whether the PCM is open (the device is held).
    public var holdsDevice: Bool { pcm != nil }

    public var currentStatus: HapticsStatus {
        var s = status
        s.dropped = stream.dropped + overruns + lateDrops
        s.caughtUp = stream.caughtUp
        s.streams = stream.starts
        return s
    }

    // MARK: the motor path (FF_RUMBLE)

    public func apply(_ write: Pacer.Write) throws(DeviceError) { try rumble.apply(write) }
    public func prepare() throws(DeviceError) -> Bool { usesWaveform ? false : try rumble.prepare() }

    /// Stops the voice coils (the PCM dropped and closed: nothing more reaches them) and the motors.
    public func release() {
        closePCM()
        stream.reset()
        rumble.release()
    }

    private func closePCM() {
        pcm?.close()
        pcm = nil
        closeAt = nil
    }

    // MARK: the stream

    public func pass(_ pipeline: PadPipeline, now: Double) -> WaveformPass {
        var changed: HapticsStatus?
        if !usesWaveform {
            guard let retryAt = status.retryAt, now >= retryAt,
                  WaveformStream.sounds(pipeline, before: now + stream.blockDuration) else { return WaveformPass(handled: false) }
            guard resume(pipeline, now: now) else { return WaveformPass(handled: false) }
            changed = currentStatus
        }
        var blocks = stream.pass(pipeline, now: now)
        if !blocks.isEmpty {
            if !freshlyOpened && blocks.count > Self.maximumCatchUp {
                lateDrops += blocks.count - Self.maximumCatchUp
                blocks.removeFirst(blocks.count - Self.maximumCatchUp)
            }
            freshlyOpened = false
        }
        do throws(AlsaError) {
            if stream.starts != streamStarts {
                // A stream starts (this pass set its grid): the device, held, topped up to the lead.
                streamStarts = stream.starts
                try startStream(now: now)
            }
            if let pcm, !blocks.isEmpty, pcm.delayFrames() < Self.framesPerBlock {
                // The device ran (nearly) dry — the loop stalled longer than the lead, the first
                // play's open took that long, or it underran: the lead is restored first, counting the
                // blocks due now, with silence, so that the stream does not run dry again at every
                // block (the latency grows by the stall).
                refills += 1
                try topUp(pcm, to: Self.leadFrames - (blocks.count - 1) * Self.framesPerBlock)
            }
            for block in blocks {
                guard let pcm else { break }
                let frames = DualSenseAudio.frames(left: block.left.map { Float($0) }, right: block.right.map { Float($0) })
                let written = try pcm.writeAvailable(frames)
                if written < block.left.count { overruns += 1 }
                status.reports += 1
            }
        } catch {
            fallBack(pipeline, now: now, reason: error.description)
            return WaveformPass(handled: false, changed: currentStatus)
        }
        if stream.isStreaming {
            closeAt = nil
        } else if pcm != nil {
            if closeAt == nil { closeAt = now + Self.idleTail }
            if let c = closeAt, now >= c { closePCM() }
        }
        return WaveformPass(handled: true, changed: changed)
    }

    /// Opens the PCM if it is not held, and fills it with silence so that the stream's first sample
    /// (the grid's origin, up to a block before now) plays `latency` after its time: what is queued
    /// then runs out at `origin + latency`, where block 0 follows without a gap.
    private func startStream(now: Double) throws(AlsaError) {
        if pcm == nil {
            guard let device else { throw AlsaError("open", "?", -ENODEV) }
            pcm = try openPCM(device)
            freshlyOpened = true
        }
        closeAt = nil
        guard let pcm, let origin = stream.origin else { return }
        // Against the clock after the open: an open that took longer than the lead leaves nothing
        // to fill, and the blocks due at the next pass start the device (the refill above).
        let target = Int(((origin + Self.latency - max(now, clock())) * Double(DualSenseAudio.rate)).rounded())
        try topUp(pcm, to: min(target, Self.leadFrames + Self.framesPerBlock))
    }

    /// Writes silence until `frames` are queued.
    private func topUp(_ pcm: any WaveformPCM, to frames: Int) throws(AlsaError) {
        let fill = max(0, frames - pcm.delayFrames())
        if fill > 0 { _ = try pcm.writeAvailable([Int16](repeating: 0, count: fill * DualSenseAudio.channels)) }
    }

    public func catchUp(_ pipeline: PadPipeline, now: Double) {
        if usesWaveform { stream.catchUp(pipeline, now: now) }
    }

    public func nextWakeup(_ pipeline: PadPipeline, now: Double) -> Double? {
        let wake = stream.nextWakeup(pipeline, now: now)
        guard !stream.isStreaming, let c = closeAt else { return wake }
        return min(wake ?? c, c)
    }

    private func fallBack(_ pipeline: PadPipeline, now: Double, reason: String) {
        closePCM()
        stream.reset()
        streamStarts = stream.starts
        pipeline.resetOutput()
        cause = reason
        status.fellBack(reason, retryAt: now + backoff)
    }

    /// Finds the card again and takes the stream up; the PCM itself is opened by the stream's start in
    /// this same pass (a busy device then falls back again, with a longer back-off).
    private func resume(_ pipeline: PadPipeline, now: Double) -> Bool {
        guard let found = locate() else {
            backoff = min(backoff * 2, DualSenseWaveformSink.maximumBackoff)
            status.retryFailed("\(cause); tried again: no sound card belongs to the pad's USB device", retryAt: now + backoff)
            return false
        }
        do throws(AlsaError) {
            pcm = try openPCM(found)
            freshlyOpened = true
        } catch {
            backoff = min(backoff * 2, DualSenseWaveformSink.maximumBackoff)
            status.retryFailed("\(cause); tried again: \(error.description)", retryAt: now + backoff)
            return false
        }
        device = found
        // The motors stop before the voice coils take over (the stream starts with this pass, with
        // what began since the motors' last render).
        if pipeline.pacer.written != .zero { try? rumble.apply(.set(.zero)) }
        // What the motors' pacer still holds (a pulse waiting for the interval) was not carried:
        // the stream looks since the motors' last write then, not their last render.
        var rendered = pipeline.renderedAt
        if pipeline.pacer.hasPendingOutput, let w = pipeline.pacer.lastWriteTime { rendered = min(rendered ?? w, w) }
        pipeline.resetOutput()
        stream.reset(lookingSince: rendered)
        streamStarts = stream.starts
        backoff = firstBackoff
        status.resumed(transport: Self.transport)
        status.node = found
        return true
    }
}

/// Whether a pad is streamed on its USB audio device (a DualSense over USB), and where.
public enum USBAudioBackend {
    public enum Choice {
        /// Compatible vibration only: `reason` (the configuration) says why.
        case evdev(reason: String)
        /// Waveforms on this ALSA device (`DualSenseUSBWaveformSink`); nil: no card found yet
        /// (`reason`), looked for again at a play.
        case waveform(device: String?, reason: String?)
    }

    /// A DualSense or DualSense Edge on USB (`054c:0ce6`, `054c:0df2`): the `dualsense` profile's match.
    public static func isDualSense(bus: UInt16, vendor: UInt16, product: UInt16) -> Bool {
        DeviceProfile.dualSense.matches(bus: bus, vendor: vendor, product: product)
    }

    /// The ALSA device of the pad's own USB sound card (the card on the same USB device as its event
    /// node, `Topology.soundCard`), or nil.
    public static func locate(eventNode: String, sysfs: String) -> String? {
        Topology.soundCard(forEventNode: eventNode, sysfs: sysfs).map(DualSenseAudio.device(card:))
    }

    /// nil for any pad but a USB DualSense; for one, the configuration's word (`devices.backend =
    /// "evdev"` or `devices.dualsense_haptics = "rumble"`: compatible vibration), else its card.
    public static func choose(for info: DeviceInfo, forceEvdev: Bool, dualSenseRumble: Bool, sysfs: String = "/sys") -> Choice? {
        guard isDualSense(bus: info.bus, vendor: info.vendor, product: info.product) else { return nil }
        if forceEvdev { return .evdev(reason: "devices.backend is \"evdev\" in the configuration") }
        if dualSenseRumble { return .evdev(reason: "devices.dualsense_haptics is \"rumble\" in the configuration") }
        guard let device = locate(eventNode: info.path, sysfs: sysfs) else {
            return .waveform(device: nil, reason: "no sound card belongs to \(info.path)'s USB device (yet)")
        }
        return .waveform(device: device, reason: nil)
    }
}
