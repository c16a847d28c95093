// Runs inside the qemu VM against fakepad: a pattern played through an engine and the render loop
// reaches the uinput pad in the right order with the right values, through one effect id; an unplug
// fires the engine's stopped handler with the disconnect reason.
//
// Usage: engine-vmtest PAD_LOG PAD_PID
import Dispatch
import Evdev
import Glibc
import HapticCore
import HapticDaemon
import VMTestSupport

let args = CommandLine.arguments
guard args.count == 3, let padPID = Int32(args[2]) else {
    print("usage: engine-vmtest PAD_LOG PAD_PID")
    exit(2)
}
let log = PadLog(path: args[1])

final class Events: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = DispatchQueue(label: "events")
    private var list: [LoopEvent] = []
    func append(_ e: LoopEvent) { lock.sync { list.append(e) } }
    var all: [LoopEvent] { lock.sync { list } }
}

guard let pad = DeviceDiscovery.scan().devices.first(where: { $0.name == "hapticd-test-pad" }) else {
    check(false, "the uinput pad is there")
    finish("engine-vmtest")
}

// A pattern with three steps, 150 ms apart: a strong-motor event whose intensity control steps
// 0.2 → 0.6 → 1.0, then ends. The pad (Xbox One ids) quantizes as xpad does (0…127).
let steps = [0.2, 0.6, 1.0]
var elements: [PatternElement] = [.event(.continuous(at: 0, duration: 0.45, intensity: 1, sharpness: 0))]
for (i, v) in steps.enumerated() { elements.append(.parameter(.init(.hapticIntensityControl, v, at: Double(i) * 0.15))) }
let stepped = HapticPattern(elements: elements)
let profile = pad.profile()
let expected = steps.map { MotorMapping.magnitudes(for: .init(intensity: $0, sharpness: 0), profile: profile) }

let events = Events()
let loop = RenderLoop(period: 0.004)
loop.setEventHandler { events.append($0) }
do {
    let device = try RumbleDevice(path: pad.path)
    loop.addPad(0, sink: device, profile: profile)
    let start = log.read().count
    // Just before the start: the engine's own start time is this or later, so step k is due no
    // earlier than `startedBy` + 0.15 k.
    var startedBy = 0.0
    let player = try loop.withPad(0) { engine, _ in
        let p = engine.makePlayer(stepped)
        startedBy = monotonicNow()
        try engine.start(p)
        return p
    }!
    let untilStop = log.wait(from: start, timeout: 10) { e in e.contains { $0.event == "PLAY" && $0.fields["value"] == "0" } }
    // Up to the stop; a settling profile then re-sends zero (zeros played), judged below.
    let entries = Array(untilStop.prefix(through: untilStop.firstIndex { $0.event == "PLAY" && $0.fields["value"] == "0" } ?? untilStop.count - 1))
    // A settling profile sends the last value of a burst once more: one value, one run of uploads.
    var uploads: [PadEntry] = []
    for u in entries where u.event == "UPLOAD" {
        if let last = uploads.last, profile.settles, last.fields["strong"] == u.fields["strong"], last.fields["weak"] == u.fields["weak"] { continue }
        uploads.append(u)
    }
    let got = uploads.map { MotorMagnitudes(strong: UInt16($0.int("strong")!), weak: UInt16($0.int("weak")!)) }
    check(got == expected, "the pattern's three steps arrive in order with the exact (quantized) values", "got \(got), expected \(expected)")
    check(Set(uploads.map { $0.fields["id"]! }).count == 1, "through one effect id", "\(uploads)")
    let plays = entries.filter { $0.event == "PLAY" }.map { $0.fields["value"]! }
    // Played once per value where the profile plays its values (issue 26 §2), else started once.
    let starts = profile.updateMethod == .play ? uploads.count : 1
    check(plays == Array(repeating: "1", count: starts) + ["0"], "played \(starts == 1 ? "once" : "with each value"), stopped once at the end", "\(plays)")
    if uploads.count == 3 {
        // Each step judged against its own due time, not against the step before: the first is
        // written by the start itself, on this thread, through code run for the first time, and
        // reached the pad 4–27 ms later after its due time than the second did after its own in 17
        // CI-like runs (gaps of 123–146 ms where 150 were due), so a VM hold-up on that write alone
        // could bring the gap under the 100 ms it was held to. A hold-up only ever delays a write:
        // none may come early (one loop period's grace) or over 100 ms late (coarse: TCG timing is
        // noisy). Steps that come together, or on a wrong time base, are early or late by far more.
        let late = uploads.enumerated().map { k, u in u.time - (startedBy + Double(k) * 0.15) }
        check(late.allSatisfy { $0 > -0.004 && $0 < 0.10 },
              "the steps arrive 0, 150 and 300 ms after the start, none early, none over 100 ms late (coarse: TCG timing is noisy): late by \(late.map { "\(($0 * 10000).rounded() / 10)" }) ms",
              "\(uploads.map(\.time)), started by \(startedBy)")
    }
    check(!motorRunning(log.read()), "the motor is stopped when the pattern ends")
    if profile.settles {
        let after = log.wait(from: start, timeout: 5) { settledAfterStop($0) }
        check(settledAfterStop(after) && !motorRunning(after), "and zero is re-sent once after the stop (the profile settles): zeros played", "\(after.suffix(4))")
    }
    let ended = events.all.contains(.playerEnded(pad: 0, locality: .default, player: player, end: .finished))
    check(ended, "the player reports that it finished")

    // Unplug mid-rumble: a pattern whose intensity keeps changing, so the loop keeps writing.
    let sweep = HapticPattern(elements: [
        .event(.continuous(at: 0, duration: 10, intensity: 1, sharpness: 0)),
        .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0.1), .init(10, 1)])),
    ])
    let before = log.read().count
    try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(sweep)) }
    _ = log.wait(from: before, count: 3)
    kill(padPID, SIGUSR1)
    var waited = 0.0
    while !events.all.contains(.engineStopped(pad: 0, locality: .default, reason: .gameControllerDisconnect)) && waited < 5 {
        usleep(2000)
        waited += 0.002
    }
    check(events.all.contains(.engineStopped(pad: 0, locality: .default, reason: .gameControllerDisconnect)),
          "an unplug fires the stopped handler with the disconnect reason", "\(events.all.filter { if case .wrote = $0 { false } else { true } })")
    check(events.all.contains { if case .deviceError(pad: 0, let m, true) = $0 { m.contains("gone (unplugged)") } else { false } },
          "and reports a clean device error")
    check(!loop.isArmed, "the loop goes quiet after the unplug")
} catch {
    check(false, "the engine drives the pad", "\(error)")
}
kill(padPID, SIGUSR2)
finish("engine-vmtest")
