import HapticCore
import Testing

/// Pads with more than two motors (docs/rendering.md §13): the localities each layout has, where a
/// locality's output goes among the four channels, and the pacer's rules on the second pair.
@Suite struct ActuatorTests {
    let clock = ManualClock(0)

    static let hd = DeviceProfile(name: "hd-test", displayName: "HD rumble", minimumUpdateInterval: 0.010, actuators: .hdRumble)
    static let triggers = DeviceProfile(
        name: "triggers-test", displayName: "Impulse triggers", minimumUpdateInterval: 0.010, quantization: .percent,
        actuators: .rumbleAndTriggers, secondPairQuantization: .bits8)

    func engine(_ locality: Locality, _ profile: DeviceProfile) throws -> HapticEngine {
        let route = try #require(locality.route(for: profile.actuators), "\(locality) on \(profile.actuators)")
        let e = HapticEngine(profile: profile, clock: clock, route: route)
        e.start()
        return e
    }

    /// Intensity 0.6, sharpness 0.5: crossfaded, each part is 0.6·√0.5 of full scale (27804).
    let half = HapticPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 0.6, sharpness: 0.5))])

    func rendered(_ locality: Locality, _ profile: DeviceProfile) throws -> MotorMagnitudes {
        let e = try engine(locality, profile)
        try e.start(e.makePlayer(half))
        clock.now = 0.5
        defer { clock.now = 0 }
        return e.render()
    }

    @Test func eachLayoutHasItsLocalities() {
        #expect(Locality.supported(by: .rumble) == Locality.rumblePad)
        #expect(Locality.supported(by: .hdRumble).map(\.rawValue) == ["default", "all", "handles", "leftHandle", "rightHandle"])
        #expect(Locality.supported(by: .rumbleAndTriggers) == Locality.allCases, "a trigger pad has every locality")
        #expect(Locality.leftTrigger.route(for: .hdRumble) == nil, "a Switch pad has no trigger motors")
    }

    @Test func hdRumbleHandlesAreWholeActuators() throws {
        let both = MotorMagnitudes(strong: 27804, weak: 27804, third: 27804, fourth: 27804)
        #expect(try rendered(.default, Self.hd) == both, "both actuators play the pattern")
        #expect(try rendered(.all, Self.hd) == both)
        #expect(try rendered(.leftHandle, Self.hd) == MotorMagnitudes(strong: 27804, weak: 27804), "the left actuator, both bands")
        #expect(try rendered(.rightHandle, Self.hd) == MotorMagnitudes(strong: 0, weak: 0, third: 27804, fourth: 27804))
    }

    @Test func triggerLocalitiesMoveOnlyTriggerMotors() throws {
        let p = Self.triggers
        // An engine renders before quantization (the pacer quantizes once, after mixing): 0.6 of full
        // scale is 39321, crossfaded at sharpness 0.5 27804 on each handle motor.
        #expect(try rendered(.triggers, p) == MotorMagnitudes(strong: 0, weak: 0, third: 39321, fourth: 39321))
        #expect(try rendered(.leftTrigger, p) == MotorMagnitudes(strong: 0, weak: 0, third: 39321, fourth: 0))
        #expect(try rendered(.rightTrigger, p) == MotorMagnitudes(strong: 0, weak: 0, third: 0, fourth: 39321))
        #expect(try rendered(.default, p) == MotorMagnitudes(strong: 27804, weak: 27804), "the handles, as on a rumble pad")
        #expect(try rendered(.all, p) == MotorMagnitudes(strong: 27804, weak: 27804, third: 39321, fourth: 39321))
        #expect(try rendered(.leftHandle, p) == MotorMagnitudes(strong: 39321, weak: 0))
    }

    @Test func eachPairHasItsQuantization() {
        let q = Self.triggers.quantize(MotorMagnitudes(strong: 27804, weak: 27804, third: 27804, fourth: 100))
        #expect(q == MotorMagnitudes(
            strong: DeviceProfile.Quantization.percent.apply(27804), weak: DeviceProfile.Quantization.percent.apply(27804),
            third: DeviceProfile.Quantization.bits8.apply(27804), fourth: 0))
        #expect(q.strong != q.third, "percent and 8-bit differ here")
    }

    @Test func aRumbleOnAnHDRumblePadPlaysOnBothActuators() throws {
        let e = try engine(.default, Self.hd)
        let r = try e.makeRumble(strong: 0.8, weak: 0.2, duration: 0.5)
        try e.start(r)
        clock.now = 0.1
        #expect(e.render() == MotorMagnitudes(strong: 52428, weak: 13107, third: 52428, fourth: 13107))
        let left = try engine(.leftHandle, Self.hd)
        try left.start(left.makeRumble(strong: 0.8, weak: 0.2, duration: 0.5))
        #expect(left.render() == MotorMagnitudes(strong: 52428, weak: 13107), "the handle motors' magnitudes, whatever the engine")
    }

    @Test func aCrossfadedPairGivesBackItsIntensityAndSharpness() {
        for i in stride(from: 0.05, through: 1, by: 0.05) {
            for s in stride(from: 0.0, through: 1, by: 0.05) {
                let m = MotorMapping.magnitudes(for: HapticSignal(intensity: i, sharpness: s), profile: Self.hd, route: .both)
                let back = MotorMapping.signal(dull: m.strong, sharp: m.weak)
                #expect(abs(back.intensity - i) < 1e-4 && abs(back.sharpness - s) < 1e-3, "I \(i) S \(s) → \(back)")
            }
        }
        #expect(MotorMapping.signal(dull: 0, sharp: 0) == .silent)
    }

    @Test func theSecondPairFollowsTheNothingLostRule() {
        var pacer = Pacer(profile: Self.triggers)  // 10 ms
        let pulse = MotorMagnitudes(strong: 0, weak: 0, third: 0xFFFF, fourth: 0)
        #expect(pacer.offer(MotorMagnitudes(strong: 0x8000, weak: 0), at: 0) != nil)
        // A 3 ms trigger pulse inside the interval, then silence: written at the next opportunity.
        #expect(pacer.offer(pulse, at: 0.002) == nil)
        #expect(pacer.offer(.zero, at: 0.005) == nil)
        #expect(pacer.hasPendingOutput)
        guard case .set(let written)? = pacer.offer(.zero, at: 0.010) else {
            Issue.record("the trigger pulse was not written")
            return
        }
        #expect(written.third == 0xFFFF, "the pulse the trigger has not felt is written, not its stop")
        #expect(pacer.offer(.zero, at: 0.020) == .set(.zero), "and stopped an interval later")
    }

    @Test func mixingSumsAndClampsEveryChannel() {
        let a = MotorMagnitudes(strong: 1, weak: 2, third: 60000, fourth: 4)
        let b = MotorMagnitudes(strong: 10, weak: 20, third: 30000, fourth: 40)
        #expect(a.mixed(with: b) == MotorMagnitudes(strong: 11, weak: 22, third: 0xFFFF, fourth: 44))
        #expect(a.peak(with: b) == MotorMagnitudes(strong: 10, weak: 20, third: 60000, fourth: 40))
        #expect(!MotorMagnitudes(strong: 0, weak: 0, third: 0, fourth: 1).isZero)
        #expect(b.scaled(by: 0.5) == MotorMagnitudes(strong: 5, weak: 10, third: 15000, fourth: 20))
    }
}
