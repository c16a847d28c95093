import Alsa
import Evdev
import Foundation
import Glibc
import HapticCore
import Testing
@testable import HapticDaemon

/// The DualSense's USB waveform transport (issue 25) on the manual clock, driven as the render loop
/// drives it (a pass at each `nextWakeup`), into a PCM that records what it is given: 5 ms blocks of
/// 4-channel frames with the actuators on channels 3–4, a lead of silence at a stream's start, the
/// device held only while something sounds (plus a short tail), and the fall back to the motors when
/// the device is busy or vanishes, with the retry after the back-off.
@Suite struct USBWaveformSinkTests {
    /// A PCM standing in for the pad's card: it records every frame and can refuse, as ALSA would.
    /// It plays at 48 kHz on the manual clock from its first write: `delayFrames` is what was written
    /// and not yet played.
    final class FakePCM: WaveformPCM {
        let clock: ManualClock
        init(clock: ManualClock) { self.clock = clock }
        var samples: [Int16] = []
        var writes = 0
        var closed = false
        var started: Double?
        /// The next write fails with this ALSA code (a vanished device: -ENODEV).
        var failWith: Int32?
        func writeAvailable(_ s: [Int16]) throws(AlsaError) -> Int {
            if let code = failWith { throw AlsaError("write", "hw:CARD=1,DEV=0", code) }
            if started == nil || delayFrames() == 0 {
                // Ran dry (or first write): the device starts again from what is written now.
                started = clock.now - Double(frames) / 48_000
            }
            samples += s
            writes += 1
            return s.count / 4
        }
        func delayFrames() -> Int {
            guard let started else { return 0 }
            return max(0, frames - Int(((clock.now - started) * 48_000).rounded()))
        }
        func close() { closed = true }
        var frames: Int { samples.count / 4 }
        func channel(_ c: Int) -> [Int16] { stride(from: c, to: samples.count, by: 4).map { samples[$0] } }
    }

    /// Opens fake PCMs (all recorded), or refuses with `refuse` (-EBUSY: another program holds it).
    final class Opener {
        let clock: ManualClock
        init(clock: ManualClock) { self.clock = clock }
        var opened: [FakePCM] = []
        var names: [String] = []
        var refuse: Int32?
        func open(_ name: String) throws(AlsaError) -> any WaveformPCM {
            if let code = refuse { throw AlsaError("open", name, code) }
            let p = FakePCM(clock: clock)
            opened.append(p)
            names.append(name)
            return p
        }
    }

    let clock = ManualClock(10)

    func pipeline() -> PadPipeline {
        let e = HapticEngine(profile: .dualSense, clock: clock, route: .both)
        e.start()
        return PadPipeline(engine: e)
    }

    func tone(_ duration: Double, intensity: Double = 1, sharpness: Double = 0.5) -> HapticPattern {
        HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: intensity, sharpness: sharpness))])
    }

    /// Runs the sink as the render loop does until `until`: a pass now, then at each wakeup. Returns
    /// the passes' changes of mode.
    @discardableResult
    func run(_ sink: DualSenseUSBWaveformSink, _ pad: PadPipeline, until: Double) -> [HapticsStatus] {
        var changes: [HapticsStatus] = []
        var wakes = 0
        if let c = sink.pass(pad, now: clock.now).changed { changes.append(c) }
        while let w = sink.nextWakeup(pad, now: clock.now), w <= until, wakes < 100_000 {
            clock.now = max(clock.now, w)
            wakes += 1
            if let c = sink.pass(pad, now: clock.now).changed { changes.append(c) }
        }
        clock.now = max(clock.now, until)
        return changes
    }

    func makeSink(_ opener: Opener, rumble: RecordingSink = RecordingSink(), device: String? = "hw:CARD=1,DEV=0",
                  locate: @escaping () -> String? = { "hw:CARD=1,DEV=0" }) -> DualSenseUSBWaveformSink {
        DualSenseUSBWaveformSink(device: device, rumble: rumble, locate: locate, clock: { [clock] in clock.now }, backoff: 1, open: { (n: String) throws(AlsaError) -> any WaveformPCM in try opener.open(n) })
    }

    @Test func aPlayOpensTheDeviceStreamsTheActuatorsOnChannels3And4AndReleasesTheDeviceAfterATail() throws {
        let opener = Opener(clock: clock)
        let pad = pipeline()
        let sink = makeSink(opener)
        #expect(sink.usesWaveform && !sink.holdsDevice, "nothing plays: the device is free for other programs")
        #expect(sink.currentStatus.transport == "usb-audio" && sink.currentStatus.node == "hw:CARD=1,DEV=0")
        _ = sink.pass(pad, now: clock.now)
        #expect(opener.opened.isEmpty)

        // A 100 ms tone, left only: its own pass starts the stream and opens the device.
        let e = HapticEngine(profile: .dualSense, clock: clock, route: Locality.leftHandle.route ?? .both)
        e.start()
        pad.add(e, for: .leftHandle)
        try e.start(e.makePlayer(tone(0.1)))
        let start = clock.now
        _ = sink.pass(pad, now: clock.now)
        #expect(opener.opened.count == 1 && sink.holdsDevice)
        let pcm = try #require(opener.opened.first)
        let lead = DualSenseUSBWaveformSink.leadFrames + DualSenseUSBWaveformSink.framesPerBlock
        #expect(pcm.frames == lead, "silence so that the first sample plays 25 ms after its time")
        #expect(pcm.samples.allSatisfy { $0 == 0 })

        run(sink, pad, until: start + 0.5)
        #expect(sink.holdsDevice, "the device is held through the tail")
        let blocks = (pcm.frames - lead) / 240
        #expect((pcm.frames - lead) % 240 == 0, "whole 5 ms blocks")
        // 100 ms is 20 blocks; then one silent block ends the stream.
        #expect(blocks == 21)
        #expect(pcm.channel(0).allSatisfy { $0 == 0 } && pcm.channel(1).allSatisfy { $0 == 0 }, "the speaker channels stay silent")
        let left = Array(pcm.channel(2)[lead...]), right = Array(pcm.channel(3)[lead...])
        #expect(right.allSatisfy { $0 == 0 }, "the left handle's tone reaches the left actuator only")
        #expect(left[0..<(20 * 240)].contains { $0 > 10_000 } && left[0..<(20 * 240)].contains { $0 < -10_000 }, "a full-scale carrier")
        #expect(left[(20 * 240)...].allSatisfy { $0 == 0 }, "silence once after the end")
        #expect(sink.currentStatus.reports == 21 && sink.currentStatus.streams == 1 && sink.refills == 0)

        run(sink, pad, until: start + 0.1 + DualSenseUSBWaveformSink.idleTail + 0.05)
        #expect(!sink.holdsDevice && pcm.closed, "closed after the tail: the pad's speaker is free again")
        #expect(sink.nextWakeup(pad, now: clock.now) == nil, "then nothing until a command")
        #expect(sink.usesWaveform)

        // The next play opens it again.
        try e.start(e.makePlayer(tone(0.02)))
        _ = sink.pass(pad, now: clock.now)
        #expect(opener.opened.count == 2 && sink.holdsDevice)
        sink.release()
        #expect(opener.opened[1].closed && !sink.holdsDevice, "release stops the voice coils at once")
    }

    @Test func aStallLongerThanTheLeadRestoresTheLeadWithSilence() throws {
        let opener = Opener(clock: clock)
        let pad = pipeline()
        let sink = makeSink(opener)
        try pad.engine.start(pad.engine.makePlayer(tone(1)))
        let t0 = clock.now
        run(sink, pad, until: t0 + 0.1)
        let pcm = try #require(opener.opened.first)
        #expect(sink.refills == 0 && pcm.delayFrames() >= DualSenseUSBWaveformSink.leadFrames - 1)
        // The loop stands still for 12 ms: the queue (20 ms) lasts; the blocks due are caught up,
        // nothing is dropped or refilled.
        clock.now += 0.012
        _ = sink.pass(pad, now: clock.now)
        #expect(sink.refills == 0 && sink.currentStatus.dropped == 0 && sink.currentStatus.caughtUp == 1)
        run(sink, pad, until: clock.now + 0.05)
        // Then for 100 ms: the device runs dry; the next pass gives the 12 newest blocks (8 dropped),
        // after silence that makes up the lead with them (it is less than the 12 blocks: none).
        clock.now += 0.1
        let before = pcm.frames
        _ = sink.pass(pad, now: clock.now)
        #expect(sink.refills == 1)
        #expect(pcm.frames - before == 12 * 240)
        #expect(sink.currentStatus.dropped == 8, "blocks that ended more than 12 before the pass: \(sink.currentStatus.dropped)")
        run(sink, pad, until: t0 + 0.3)
        #expect(sink.refills == 1, "and then on at the lead")
        sink.release()
    }

    /// Opening the card can take longer than the lead (alsa-lib's configuration, snd-usb-audio's
    /// setup): the blocks due after it are all written, none dropped, and start the device.
    @Test func aSlowOpenLosesNothing() throws {
        let opener = Opener(clock: clock)
        let pad = pipeline()
        let sink = DualSenseUSBWaveformSink(
            device: "hw:CARD=1,DEV=0", rumble: RecordingSink(), locate: { nil }, clock: { [clock] in clock.now },
            open: { [clock] (n: String) throws(AlsaError) -> any WaveformPCM in
                clock.now += 0.1
                return try opener.open(n)
            })
        try pad.engine.start(pad.engine.makePlayer(tone(0.2)))
        _ = sink.pass(pad, now: clock.now - 0.0)
        let pcm = try #require(opener.opened.first)
        #expect(pcm.frames == 0, "the open took longer than the latency: no silence first")
        _ = sink.pass(pad, now: clock.now)
        #expect(pcm.frames == 20 * 240 && sink.currentStatus.dropped == 0, "the 20 blocks due, none dropped: \(pcm.frames)")
        run(sink, pad, until: clock.now + 0.5)
        #expect(sink.currentStatus.dropped == 0 && sink.refills == 1)
        #expect(pcm.channel(2).filter { $0 != 0 }.count > 9000, "the whole 0.2 s tone")
        sink.release()
    }

    @Test func aBusyDeviceFallsBackToTheMotorsAndIsTriedAgainAfterTheBackOff() throws {
        let opener = Opener(clock: clock)
        opener.refuse = -EBUSY
        let rumble = RecordingSink()
        let pad = pipeline()
        let sink = makeSink(opener, rumble: rumble)
        try pad.engine.start(pad.engine.makePlayer(tone(3)))
        let t0 = clock.now
        let first = sink.pass(pad, now: clock.now)
        #expect(!first.handled, "the loop ticks the pad's motors this same pass")
        let status = try #require(first.changed)
        #expect(status.mode == .rumble && status.transport == "evdev" && status.failures == 1)
        #expect(status.reason?.contains("Device or resource busy") == true)
        #expect(status.retryAt == t0 + 1)
        #expect(!sink.usesWaveform && !sink.holdsDevice)

        // Still busy at the retry: the back-off doubles.
        clock.now = t0 + 1
        #expect(!sink.pass(pad, now: clock.now).handled)
        #expect(sink.currentStatus.retries == 1 && sink.currentStatus.retryAt == t0 + 3)
        #expect(sink.currentStatus.reason?.contains("tried again") == true)

        // Free again: the stream takes over at the next retry, and says so.
        opener.refuse = nil
        clock.now = t0 + 3
        let back = sink.pass(pad, now: clock.now)
        #expect(back.handled && back.changed?.mode == .waveform && back.changed?.transport == "usb-audio")
        #expect(sink.holdsDevice && sink.currentStatus.reason == nil && sink.currentStatus.retryAt == nil)
        sink.release()
        #expect(rumble.released)
    }

    @Test func aDeviceThatVanishesMidStreamFallsBackAndIsLookedForAgain() throws {
        let opener = Opener(clock: clock)
        var card: String? = "hw:CARD=1,DEV=0"
        let pad = pipeline()
        let sink = makeSink(opener, locate: { card })
        try pad.engine.start(pad.engine.makePlayer(tone(3)))
        let t0 = clock.now
        run(sink, pad, until: t0 + 0.05)
        let pcm = try #require(opener.opened.first)
        #expect(pcm.writes > 5)
        pcm.failWith = -ENODEV
        card = nil
        clock.now += 0.005
        let pass = sink.pass(pad, now: clock.now)
        #expect(!pass.handled && pass.changed?.mode == .rumble && pcm.closed)
        #expect(pass.changed?.reason?.contains("No such device") == true)
        clock.now = t0 + 2
        _ = sink.pass(pad, now: clock.now)
        #expect(sink.currentStatus.retries == 1 && sink.currentStatus.reason?.contains("no sound card") == true)
        // Plugged back as another card: found again through sysfs.
        card = "hw:CARD=2,DEV=0"
        clock.now = t0 + 5
        let back = sink.pass(pad, now: clock.now)
        #expect(back.changed?.mode == .waveform && back.changed?.node == "hw:CARD=2,DEV=0")
        #expect(opener.names.last == "hw:CARD=2,DEV=0")
        sink.release()
    }

    @Test func aPadWithoutACardYetStartsOnTheMotorsAndTakesTheCardAtItsFirstPlay() throws {
        let opener = Opener(clock: clock)
        let pad = pipeline()
        let sink = DualSenseUSBWaveformSink(
            device: nil, reason: "no sound card yet", rumble: RecordingSink(), locate: { "hw:CARD=3,DEV=0" }, clock: { [clock] in clock.now },
            open: { (n: String) throws(AlsaError) -> any WaveformPCM in try opener.open(n) })
        #expect(!sink.usesWaveform && sink.currentStatus.reason == "no sound card yet")
        #expect(!sink.pass(pad, now: clock.now).handled, "nothing plays: nothing is tried")
        #expect(opener.opened.isEmpty)
        try pad.engine.start(pad.engine.makePlayer(tone(0.05)))
        let p = sink.pass(pad, now: clock.now)
        #expect(p.handled && p.changed?.mode == .waveform && opener.names == ["hw:CARD=3,DEV=0"])
        sink.release()
    }

    @Test func theUSBDualSenseIsChosenByItsIDsAndTheConfigurationCanSayRumble() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("usbsys-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let usb = root + "/devices/pci0000:00/usb1/1-1"
        let fm = FileManager.default
        for dir in [usb + "/1-1:1.3/0003:054C:0CE6.0001/input/input12/event5", usb + "/1-1:1.0/sound/card1", root + "/class/input"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        try fm.createSymbolicLink(atPath: root + "/class/input/event5",
                                  withDestinationPath: "../../devices/pci0000:00/usb1/1-1/1-1:1.3/0003:054C:0CE6.0001/input/input12/event5")
        func pad(bus: UInt16 = 0x03, product: UInt16 = 0x0CE6, node: String = "/dev/input/event5") -> DeviceInfo {
            DeviceInfo(path: node, name: "DualSense", bus: bus, vendor: 0x054C, product: product, version: 1,
                       effectSlots: 16, hasRumble: true, supportsGain: false)
        }
        func device(_ c: USBAudioBackend.Choice?) -> String?? {
            if case .waveform(let d, _)? = c { return .some(d) }
            return .none
        }
        #expect(device(USBAudioBackend.choose(for: pad(), forceEvdev: false, dualSenseRumble: false, sysfs: root)) == .some("hw:CARD=1,DEV=0"))
        #expect(device(USBAudioBackend.choose(for: pad(product: 0x0DF2), forceEvdev: false, dualSenseRumble: false, sysfs: root))
            == .some("hw:CARD=1,DEV=0"), "the DualSense Edge too")
        #expect(device(USBAudioBackend.choose(for: pad(node: "/dev/input/event9"), forceEvdev: false, dualSenseRumble: false, sysfs: root))
            == .some(nil), "no card (yet): waveform without a device, looked for at a play")
        #expect(USBAudioBackend.choose(for: pad(bus: 0x05), forceEvdev: false, dualSenseRumble: false, sysfs: root) == nil, "Bluetooth: hidraw's")
        #expect(USBAudioBackend.choose(for: pad(product: 0x09CC), forceEvdev: false, dualSenseRumble: false, sysfs: root) == nil)
        guard case .evdev(let why)? = USBAudioBackend.choose(for: pad(), forceEvdev: false, dualSenseRumble: true, sysfs: root) else {
            Issue.record("dualsense_haptics = \"rumble\" must force FF_RUMBLE")
            return
        }
        #expect(why.contains("dualsense_haptics"))
        guard case .evdev? = USBAudioBackend.choose(for: pad(), forceEvdev: true, dualSenseRumble: false, sysfs: root) else {
            Issue.record("devices.backend = \"evdev\" must force FF_RUMBLE")
            return
        }
    }

    /// The real ALSA path (alsa-lib's `file` plugin, non-blocking as the sink opens the pad's card):
    /// what reaches "the device" is the lead's silence, then the blocks with the actuators on 3–4.
    @Test func throughAlsaLibsFilePlugin() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("usbsink-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pad = pipeline()
        let sink = DualSenseUSBWaveformSink(
            device: "file:FILE=\(path),FORMAT=raw", rumble: RecordingSink(), locate: { nil }, clock: { [clock] in clock.now },
            open: { (n: String) throws(AlsaError) -> any WaveformPCM in
                try AlsaPlayback.open(device: n, channels: 4, rate: 48_000, periodFrames: 240, periods: 72, nonBlocking: true)
            })
        try pad.engine.start(pad.engine.makePlayer(tone(0.02)))
        run(sink, pad, until: clock.now + 0.2)
        #expect(sink.usesWaveform, "\(sink.currentStatus.reason ?? "")")
        sink.release()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let s = stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        let lead = DualSenseUSBWaveformSink.leadFrames + DualSenseUSBWaveformSink.framesPerBlock
        #expect(s.count >= (lead + 5 * 240) * 4, "\(s.count) samples")
        #expect(s.prefix(lead * 4).allSatisfy { $0 == 0 })
        let ch3 = stride(from: 2, to: s.count, by: 4).map { s[$0] }, ch4 = stride(from: 3, to: s.count, by: 4).map { s[$0] }
        #expect(ch3.contains { $0 != 0 } && ch4.contains { $0 != 0 }, "both actuators (the default locality is both handles)")
        #expect(stride(from: 0, to: s.count, by: 4).allSatisfy { s[$0] == 0 && s[$0 + 1] == 0 })
    }
}

/// `capabilities` of a USB DualSense: the transport, its format, and why rumble when configured so.
@Suite struct USBHapticsFieldsTests {
    func dualSense(_ path: String) -> DeviceInfo {
        DeviceInfo(path: path, name: "DualSense Wireless Controller", bus: 0x03, vendor: 0x054C, product: 0x0CE6, version: 1,
                   effectSlots: 16, hasRumble: true, supportsGain: false)
    }

    @Test func capabilitiesSayUSBAudioWithItsFormatOrWhyRumble() throws {
        let bench = StateBench(pads: 0)
        let clock = ManualClock(0)
        let sink = DualSenseUSBWaveformSink(
            device: "hw:CARD=1,DEV=0", rumble: RecordingSink(), locate: { nil }, clock: { clock.now },
            open: { (_: String) throws(AlsaError) -> any WaveformPCM in USBWaveformSinkTests.FakePCM(clock: clock) })
        let info = dualSense("/dev/input/event5")
        let id = bench.loop.perform(ticking: false) { _ in
            bench.state.pads.attach(info, profile: .dualSense, simulated: false, backend: .usbAudio(device: "hw:CARD=1,DEV=0")).id
        }
        bench.loop.addPad(id, sink: sink, profile: .dualSense)
        let forced = dualSense("/dev/input/event6")
        let id2 = bench.loop.perform(ticking: false) { _ in
            bench.state.pads.attach(forced, profile: .dualSense, simulated: false,
                                    backend: .evdev(fallback: "devices.dualsense_haptics is \"rumble\" in the configuration")).id
        }
        bench.loop.addPad(id2, sink: RecordingSink(), profile: .dualSense)
        let client = try bench.connect(nil)
        let caps = try bench.ok(#"{"id":1,"cmd":"capabilities","device":\#(id)}"#, from: client)
        #expect(caps["haptics"] == .string("waveform") && caps["haptics_transport"] == .string("usb-audio"))
        #expect(caps["backend"] == .string("usb-audio") && caps["haptics_reason"] == .null)
        guard case .object(let w)? = caps["waveform"] else {
            Issue.record("no waveform object: \(caps)")
            return
        }
        #expect(w["sample_rate"] == .number(48_000) && w["frames_per_report"] == .number(240) && w["report_interval"] == .number(0.005))
        #expect(w["node"] == .string("hw:CARD=1,DEV=0"))
        let rumble = try bench.ok(#"{"id":2,"cmd":"capabilities","device":\#(id2)}"#, from: client)
        #expect(rumble["haptics"] == .string("rumble") && rumble["haptics_transport"] == .string("evdev"))
        guard case .string(let why)? = rumble["haptics_reason"] else {
            Issue.record("no reason: \(rumble)")
            return
        }
        #expect(why.contains("dualsense_haptics"))
        bench.loop.perform { _ in sink.release() }
    }
}
