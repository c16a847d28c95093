import Evdev
import HapticCore
import Hidraw

/// How a pad's haptics are played (`capabilities`' `haptics` fields, the log): as voice-coil
/// waveforms streamed through the pad's own reports, or as compatible vibration (two motors).
public struct HapticsStatus: Equatable, Sendable {
    public enum Mode: String, Sendable {
        /// Audio-rate samples through a waveform transport (docs/rendering.md §13).
        case waveform
        /// Two motor magnitudes: evdev's `FF_RUMBLE` or a hidraw rumble report.
        case rumble
    }

    public var mode: Mode
    /// `bluetooth-hidraw` (the DualSense's report `0x32`), or the rumble backend's name.
    public var transport: String
    /// The waveform transport's node (a pad that has one, waveform or fallen back).
    public var node: String?
    /// Why rumble, on a pad that could stream waveforms (a failed write, a node that cannot be opened).
    public var reason: String?
    /// When the waveform transport is tried again (engine clock), while it is not used.
    public var retryAt: Double?
    /// Since the pad was opened: reports written, blocks dropped because the loop ran too late to
    /// catch up, passes that caught up on more than one report, streams started, transport failures,
    /// failed attempts to take the transport up again.
    public var reports = 0
    public var dropped = 0
    /// The transport's format: samples per second and frames per block (report).
    public var sampleRate = DualSenseBluetoothHaptics.sampleRate
    public var framesPerBlock = DualSenseBluetoothHaptics.framesPerReport
    public var caughtUp = 0
    public var streams = 0
    public var failures = 0
    public var retries = 0

    // The transitions both waveform sinks make (Bluetooth, USB audio): one place for the fields.

    /// The transport failed: the motors play, for `reason`, until it is tried again at `retryAt`.
    mutating func fellBack(_ reason: String, retryAt: Double) {
        mode = .rumble
        transport = "evdev"
        self.reason = reason
        failures += 1
        self.retryAt = retryAt
    }

    /// Taking the transport up again failed (`reason`); the next try at `retryAt`.
    mutating func retryFailed(_ reason: String, retryAt: Double) {
        retries += 1
        self.retryAt = retryAt
        self.reason = reason
    }

    /// The transport is back.
    mutating func resumed(transport: String) {
        mode = .waveform
        self.transport = transport
        reason = nil
        retryAt = nil
    }
}

/// A DualSense over Bluetooth with its voice coils (docs/devices.md, "DualSense voice coils over
/// Bluetooth"): while its hidraw node takes reports, the pad's engines are streamed as waveforms,
/// output report `0x32` (`DualSenseBluetoothHaptics`: 32 stereo frames of signed 8-bit samples at
/// 3 kHz, sealed with the Bluetooth CRC), one report per 10.67 ms while anything sounds
/// (`WaveformStream`: behind the clock, no gaps, no pile-up, a bounded catch-up), silence once, then
/// nothing. Its evdev node stays open: when a report cannot be written (the pad is busy, the node
/// vanished) the pad falls back to `FF_RUMBLE` through hid-playstation at once — the same engines, the
/// same players, two motors — and the stream is tried again at the next pass that has something to
/// play after a back-off (1 s, doubling to 30 s), by reopening the node.
///
/// Owned by the render loop, used under its lock only (as every `MotorSink`). The loop asks `pass`
/// first on every render of the pad; while the stream is in use it is the pad's only renderer and the
/// motor path (`apply`) is not used.
public final class DualSenseWaveformSink: WaveformTransport {
    public let nodePath: String
    /// The pad's evdev device (or a test's recorder): the compatible vibration.
    public let rumble: any MotorSink
    private var node: HidrawNode?
    private let vendor: UInt16, product: UInt16
    /// Opens the node again for a retry and checks that it is still the pad (tests give their own).
    private let reopen: (String) throws(HidrawError) -> HidrawNode
    private var stream = WaveformStream(
        sampleRate: DualSenseBluetoothHaptics.sampleRate, framesPerBlock: DualSenseBluetoothHaptics.framesPerReport, maximumCatchUp: 3)
    private var sequence: UInt8 = 0
    private var status: HapticsStatus
    private let firstBackoff: Double
    private var backoff: Double
    /// The failure that ended the last stream.
    private var cause = ""

    /// The first retry waits this long after a failure; each failed retry doubles it, up to `maximumBackoff`.
    public static let initialBackoff = 1.0
    public static let maximumBackoff = 30.0

    /// `node`: the pad's hidraw node, open and checked (its first, silent report written); nil when the
    /// node at `path` could not be used (`reason`): the pad starts on its motors and the node is tried
    /// at its first play. `backoff`: the first wait before a retry (tests shorten it), bounded to
    /// 0.01…`maximumBackoff` s.
    public init(
        node: HidrawNode?, path: String? = nil, reason: String? = nil, rumble: any MotorSink, vendor: UInt16, product: UInt16,
        backoff: Double = DualSenseWaveformSink.initialBackoff,
        reopen: ((String) throws(HidrawError) -> HidrawNode)? = nil
    ) {
        firstBackoff = backoff.isFinite ? min(max(backoff, 0.01), Self.maximumBackoff) : Self.initialBackoff
        self.backoff = firstBackoff
        self.node = node
        nodePath = node?.path ?? path ?? "?"
        self.rumble = rumble
        self.vendor = vendor
        self.product = product
        if let reopen {
            self.reopen = reopen
        } else {
            self.reopen = { (path: String) throws(HidrawError) -> HidrawNode in
                try DualSenseWaveformSink.open(path, vendor: vendor, product: product)
            }
        }
        if node != nil {
            status = HapticsStatus(mode: .waveform, transport: "bluetooth-hidraw", node: nodePath)
        } else {
            let why = reason ?? "the node could not be used"
            status = HapticsStatus(mode: .rumble, transport: "evdev", node: nodePath, reason: why, retryAt: 0)
            cause = why
        }
    }

    /// The next report (its sequence number taken, written or not): `frames` (left, right) in −1…1;
    /// none, silence (what a pad is left with: release, a retry's first report).
    private func report(_ frames: [(Double, Double)] = []) -> [UInt8] {
        defer { sequence &+= 1 }
        return DualSenseBluetoothHaptics.report(frames: frames, sequence: sequence, counter: sequence)
    }

    /// Whether the waveform stream is in use (else the motor path, `apply`).
    public var usesWaveform: Bool { node != nil }

    /// The stream is between reports (its next one is due at `nextWakeup`).
    public var isStreaming: Bool { node != nil && stream.isStreaming }

    public var currentStatus: HapticsStatus {
        var s = status
        s.dropped = stream.dropped
        s.caughtUp = stream.caughtUp
        s.streams = stream.starts
        return s
    }

    // MARK: the motor path (FF_RUMBLE)

    public func apply(_ write: Pacer.Write) throws(DeviceError) { try rumble.apply(write) }
    /// Readies the motors only while they are the pad's output (a stream needs no preparing).
    public func prepare() throws(DeviceError) -> Bool { node == nil ? try rumble.prepare() : false }

    /// Silences the voice coils (one silent report) and the motors, and closes both nodes.
    public func release() {
        if let node {
            try? node.write(report())
            node.close()
        }
        node = nil
        stream.reset()
        rumble.release()
    }

    // MARK: the stream

    public typealias Pass = WaveformPass

    /// One render of the pad at `now` (the engine clock): the reports due, written in order. A write
    /// that fails ends the stream and hands the pad to the motor path (`handled` false: the loop ticks
    /// it at once, so what plays now goes on as vibration). On the motor path, a retry once the
    /// back-off has passed and something plays.
    public func pass(_ pipeline: PadPipeline, now: Double) -> Pass {
        var changed: HapticsStatus?
        if node == nil {
            guard let retryAt = status.retryAt, now >= retryAt,
                  WaveformStream.sounds(pipeline, before: now + stream.blockDuration) else { return Pass(handled: false) }
            guard resume(pipeline, now: now) else { return Pass(handled: false) }
            changed = currentStatus
        }
        guard let node else { return Pass(handled: false, changed: changed) }
        for block in stream.pass(pipeline, now: now) {
            let frames = (0..<block.left.count).map { (block.left[$0], block.right[$0]) }
            do {
                try node.write(report(frames))
                status.reports += 1
            } catch {
                fallBack(pipeline, now: now, reason: error.description)
                return Pass(handled: false, changed: currentStatus)
            }
        }
        return Pass(handled: true, changed: changed)
    }

    /// Before a command reaches the pad: the stream renders up to now (`WaveformStream.catchUp`).
    public func catchUp(_ pipeline: PadPipeline, now: Double) {
        if node != nil { stream.catchUp(pipeline, now: now) }
    }

    /// When the loop must next run for this pad while the stream is in use (nil: not until a command).
    public func nextWakeup(_ pipeline: PadPipeline, now: Double) -> Double? {
        stream.nextWakeup(pipeline, now: now)
    }

    private func fallBack(_ pipeline: PadPipeline, now: Double, reason: String) {
        node?.close()
        node = nil
        stream.reset()
        // The motors start from rest: the pacer has written nothing to them since the stream began.
        pipeline.resetOutput()
        cause = reason
        status.fellBack(reason, retryAt: now + backoff)
    }

    /// Opens the pad's node and checks that the kernel says it is still the pad (`HIDIOCGRAWINFO`).
    static func open(_ path: String, vendor: UInt16, product: UInt16) throws(HidrawError) -> HidrawNode {
        let n = try HidrawNode.open(path)
        do throws(HidrawError) {
            let id = try n.info()
            guard id.vendor == vendor, id.product == product else {
                throw HidrawError(.info, path, .operationNotSupportedByDevice,
                                  detail: "it is another device now (\(Format.hex4(id.vendor)):\(Format.hex4(id.product)))")
            }
            return n
        } catch {
            n.close()
            throw error
        }
    }

    /// Takes the node up again; false (and a longer back-off) when it still cannot be used.
    private func resume(_ pipeline: PadPipeline, now: Double) -> Bool {
        do throws(HidrawError) {
            let n = try reopen(nodePath)
            do throws(HidrawError) {
                try n.write(report())
            } catch {
                n.close()
                throw error
            }
            // The motors stop before the voice coils take over (the stream starts with this pass, with
            // what began since the motors' last render).
            if pipeline.pacer.written != .zero { try? rumble.apply(.set(.zero)) }
            // What the motors' pacer still holds (a pulse waiting for the interval) was not carried:
            // the stream looks since the motors' last write then, not their last render.
            var rendered = pipeline.renderedAt
            if pipeline.pacer.hasPendingOutput, let w = pipeline.pacer.lastWriteTime { rendered = min(rendered ?? w, w) }
            pipeline.resetOutput()
            node = n
            stream.reset(lookingSince: rendered)
            backoff = firstBackoff
            status.resumed(transport: "bluetooth-hidraw")
            return true
        } catch {
            backoff = min(backoff * 2, Self.maximumBackoff)
            status.retryFailed("\(cause); tried again: \(error.description)", retryAt: now + backoff)
            return false
        }
    }
}
