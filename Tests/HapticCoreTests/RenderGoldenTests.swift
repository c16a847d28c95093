import HapticCore
import Testing

/// Golden renders: hand-written patterns with values worked out by hand from docs/rendering.md
/// (the seconds of T(x) = 2·(e^(4x)−1)/(e^4−1) were computed separately: T(0.25) = 0.0641172065601700,
/// T(0.5) = 0.238405844044235).
@Suite struct RenderGoldenTests {
    let t25 = 0.0641172065601700
    let t50 = 0.238405844044235

    func compile(_ elements: [PatternElement], profile: DeviceProfile = .generic) -> CompiledPattern {
        CompiledPattern(HapticPattern(elements: elements), profile: profile)
    }

    func expectSignal(_ p: CompiledPattern, _ t: Double, _ intensity: Double, _ sharpness: Double,
                      external: ControlValues = .neutral, sourceLocation: SourceLocation = #_sourceLocation) {
        let s = p.frame(at: t, external: external)
        #expect(abs(s.intensity - intensity) < 1e-9, "intensity at \(t): \(s.intensity) ≠ \(intensity)", sourceLocation: sourceLocation)
        #expect(abs(s.sharpness - sharpness) < 1e-9, "sharpness at \(t): \(s.sharpness) ≠ \(sharpness)", sourceLocation: sourceLocation)
    }

    @Test func envelopeSecondsFollowTheDocumentedCurve() {
        #expect(EnvelopeTiming.seconds(0) == 0)
        #expect(abs(EnvelopeTiming.seconds(0.25) - t25) < 1e-12)
        #expect(abs(EnvelopeTiming.seconds(0.5) - t50) < 1e-12)
        #expect(EnvelopeTiming.seconds(1) == 2)
        #expect(EnvelopeTiming.seconds(3) == 2, "clamped")
    }

    @Test func transientBecomesAPulseWhoseLengthFollowsSharpness() {
        // Generic profile: dull 80 ms, sharp 30 ms → sharpness 0.5 gives 55 ms.
        let p = compile([.event(.transient(at: 0.1, intensity: 0.8, sharpness: 0.5))])
        expectSignal(p, 0.0999, 0, 0)
        expectSignal(p, 0.1, 0.8, 0.5)
        expectSignal(p, 0.154, 0.8, 0.5)
        expectSignal(p, 0.156, 0, 0)
        #expect(p.magnitudes(at: 0.12) == MotorMagnitudes(strong: 37072, weak: 37072))
        // Sharp → short and on the weak motor; dull → long and on the strong motor.
        let sharp = compile([.event(.transient(at: 0, intensity: 1, sharpness: 1))])
        let dull = compile([.event(.transient(at: 0, intensity: 1, sharpness: 0))])
        #expect(sharp.magnitudes(at: 0.01) == MotorMagnitudes(strong: 0, weak: 65535))
        #expect(sharp.frame(at: 0.031) == .silent)
        #expect(dull.magnitudes(at: 0.01) == MotorMagnitudes(strong: 65535, weak: 0))
        #expect(dull.frame(at: 0.079).intensity == 1)
        #expect(dull.frame(at: 0.081) == .silent)
    }

    @Test func noTransientIsShorterThanTheProfileMinimum() {
        var profile = DeviceProfile.generic
        profile.transientPulse = .init(sharp: 0.005, dull: 0.080, minimum: 0.040)
        let p = compile([.event(.transient(at: 0, intensity: 1, sharpness: 1))], profile: profile)
        expectSignal(p, 0.039, 1, 1)
        expectSignal(p, 0.041, 0, 0)
        #expect(DeviceProfile.switchProBluetooth.pulseLength(sharpness: 1) >= DeviceProfile.switchProBluetooth.minimumUpdateInterval)
    }

    @Test func continuousEventWithAttackAndRelease() {
        let e = HapticEvent.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0.25,
                                       extra: [.init(.attackTime, 0.5), .init(.releaseTime, 0.25)])
        let p = compile([.event(e)])
        expectSignal(p, 0, 0, 0)  // the attack starts from silence
        expectSignal(p, t50 / 2, 0.5, 0.25)
        expectSignal(p, t50, 1, 0.25)
        expectSignal(p, 0.9, 1, 0.25)
        expectSignal(p, 1 + t25 / 2, 0.5, 0.25)
        expectSignal(p, 1 + t25 + 0.001, 0, 0)
        #expect(p.magnitudes(at: 0.5) == MotorMagnitudes(strong: 56755, weak: 32768))
        #expect(abs(p.renderEnd - (1 + t25)) < 1e-12, "the output falls silent at the end of the release")
        #expect(p.duration == 1)
    }

    @Test func nonSustainedEventDecaysAfterItsAttack() {
        let e = HapticEvent.continuous(at: 0, duration: 2, intensity: 0.8, sharpness: 0,
                                       extra: [.init(.sustained, 0), .init(.decayTime, 0.5)])
        let p = compile([.event(e)])
        expectSignal(p, 0, 0.8, 0)
        expectSignal(p, t50 / 2, 0.4, 0)
        expectSignal(p, t50 + 0.01, 0, 0)
        // An attack that outlasts the event is cut where the event ends, and the release starts there.
        let cut = compile([.event(.continuous(at: 0, duration: t50 / 2, intensity: 1, sharpness: 0,
                                              extra: [.init(.attackTime, 0.5), .init(.releaseTime, 0.25)]))])
        expectSignal(cut, t50 / 2 + t25 / 2, 0.25, 0)
    }

    @Test func intensityControlMultipliesEveryEventIncludingTransients() {
        let p = compile([
            .event(.continuous(at: 0, duration: 1, intensity: 0.8, sharpness: 0)),
            .event(.transient(at: 0.7, intensity: 0.2, sharpness: 0)),
            .parameter(.init(.hapticIntensityControl, 0.5, at: 0.5)),
        ])
        expectSignal(p, 0.4, 0.8, 0)
        expectSignal(p, 0.6, 0.4, 0)
        expectSignal(p, 0.72, 0.5, 0)  // (0.8 + 0.2) × 0.5
    }

    @Test func sharpnessControlAddsAndClamps() {
        let p = compile([
            .event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0.9)),
            .parameter(.init(.hapticSharpnessControl, 0.3, at: 0.2)),
            .parameter(.init(.hapticSharpnessControl, -0.5, at: 0.6)),
        ])
        expectSignal(p, 0.1, 1, 0.9)
        expectSignal(p, 0.3, 1, 1)
        expectSignal(p, 0.7, 1, 0.4)
        #expect(p.magnitudes(at: 0.3) == MotorMagnitudes(strong: 0, weak: 65535))
    }

    @Test func curvesInterpolateLinearlyFromTheirOwnTime() {
        let p = compile([
            .event(.continuous(at: 0, duration: 3, intensity: 1, sharpness: 0.5)),
            .curve(.init(.hapticIntensityControl, at: 1.0, points: [.init(0, 0), .init(0.5, 1), .init(1.0, 0.2)])),
        ])
        expectSignal(p, 0.5, 1, 0.5)  // before the curve: the default
        expectSignal(p, 1.0, 0, 0)
        expectSignal(p, 1.25, 0.5, 0.5)
        expectSignal(p, 1.75, 0.6, 0.5)
        expectSignal(p, 2.5, 0.2, 0.5)  // after the last point: its value holds
    }

    @Test func laterParametersReplaceEarlierCurves() {
        let p = compile([
            .event(.continuous(at: 0, duration: 2, intensity: 1, sharpness: 0.5)),
            .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0), .init(2, 1)])),
            .parameter(.init(.hapticIntensityControl, 0.9, at: 1.0)),
        ])
        expectSignal(p, 0.5, 0.25, 0.5)
        expectSignal(p, 1.5, 0.9, 0.5)
    }

    @Test func overlappingEventsSumAndClamp() {
        let p = compile([
            .event(.continuous(at: 0, duration: 1, intensity: 0.7, sharpness: 0)),
            .event(.continuous(at: 0.5, duration: 1, intensity: 0.6, sharpness: 1)),
        ])
        expectSignal(p, 0.25, 0.7, 0)
        expectSignal(p, 0.75, 1, 0.6 / 1.3)
        expectSignal(p, 1.25, 0.6, 1)
    }

    /// A dense run of transients (Apple's Texture.ahap: 101 dull ones 10–20 ms apart at 0.7, which
    /// three Unity games in an outside check loop under an intensity control): each pulse lasts what
    /// a motor needs (80 ms dull here), so several overlap — and they do not add up, or the texture
    /// would play at full strength whatever its control. Transients that start together (layered
    /// hits) still sum, and continuous events add to them.
    @Test func overlappingTransientsDoNotAddUpUnlessTheyStartTogether() {
        let texture = compile((0..<20).map { .event(.transient(at: 0.012 * Double($0), intensity: 0.7, sharpness: 0)) } + [
            .parameter(.init(.hapticIntensityControl, 0.5, at: 0.12)),
        ])
        expectSignal(texture, 0.1, 0.7, 0)
        expectSignal(texture, 0.15, 0.35, 0)
        let layered = compile([
            .event(.transient(at: 0, intensity: 0.4, sharpness: 0)),
            .event(.transient(at: 0.001, intensity: 0.3, sharpness: 1)),
            .event(.transient(at: 0.030, intensity: 0.5, sharpness: 0)),
            .event(.continuous(at: 0, duration: 1, intensity: 0.2, sharpness: 0)),
        ])
        expectSignal(layered, 0.020, 0.9, 0.3 / 0.9)
        expectSignal(layered, 0.040, 0.7, 0)  // the later transient (0.5) over the first one's dull tail (0.4), and the continuous 0.2
        let single = compile([.event(.transient(at: 0.030, intensity: 0.9, sharpness: 0)), .event(.transient(at: 0, intensity: 0.4, sharpness: 0))])
        expectSignal(single, 0.040, 0.9, 0)
        // A weaker sharp click in a stronger dull one's tail still comes through on its own side:
        // dull 0.7, sharp 0.5 → I = √(0.49 + 0.25), S = 0.25 / 0.74.
        let click = compile([.event(.transient(at: 0, intensity: 0.7, sharpness: 0)), .event(.transient(at: 0.020, intensity: 0.5, sharpness: 1))])
        expectSignal(click, 0.030, 0.74.squareRoot(), 0.25 / 0.74)
        // Groups are fixed when the pattern is compiled: a tap that starts or ends never splits or
        // joins others (two dull halves at 0 and 1.5 ms are one hit; a weak sharp tap at 3 ms is not
        // part of it, and the hit stays whole before, during and after it).
        let hit = compile([
            .event(.transient(at: 0, intensity: 0.5, sharpness: 0)), .event(.transient(at: 0.0015, intensity: 0.5, sharpness: 0)),
            .event(.transient(at: 0.003, intensity: 0.1, sharpness: 1)),
        ])
        for t in [0.0025, 0.010, 0.040] { #expect(hit.frame(at: t).intensity == 1, "at \(t)") }
    }

    @Test func timeControlsShapeEnvelopesAndPulses() {
        // Attack control adds to AttackTime: 0.25 + 0.25 = 0.5.
        let attack = compile([
            .event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0, extra: [.init(.attackTime, 0.25)])),
            .parameter(.init(.hapticAttackTimeControl, 0.25, at: 0)),
        ])
        expectSignal(attack, t50 / 2, 0.5, 0)
        // Release control adds to ReleaseTime: 0 + 0.25.
        let release = compile([
            .event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0)),
            .parameter(.init(.hapticReleaseTimeControl, 0.25, at: 0)),
        ])
        expectSignal(release, 1 + t25 / 2, 0.5, 0)
        #expect(abs(release.renderEnd - (1 + t25)) < 1e-12)
        // Decay control stretches a transient pulse: +1 doubles it (sharp 30 ms → 60 ms).
        let decay = compile([
            .event(.transient(at: 0, intensity: 1, sharpness: 1)),
            .parameter(.init(.hapticDecayTimeControl, 1, at: 0)),
        ])
        expectSignal(decay, 0.059, 1, 1)
        expectSignal(decay, 0.061, 0, 0)
        // Controls sent from outside combine with the pattern's own.
        let plain = compile([.event(.continuous(at: 0, duration: 1, intensity: 0.8, sharpness: 0.2))])
        expectSignal(plain, 0.5, 0.4, 0.5, external: ControlValues(intensity: 0.5, sharpness: 0.3))
    }

    @Test func audioEventsDoNotSound() throws {
        let loaded = try mustLoad(doc(event("AudioContinuous", duration: 1, [("AudioVolume", 1)])))
        let p = CompiledPattern(loaded.pattern)
        #expect(p.events.isEmpty)
        #expect(p.frame(at: 0.5) == .silent)
    }

    @Test func continuousEventWithoutDurationLastsUntilThePatternEnds() {
        let p = compile([
            .event(HapticEvent(type: .hapticContinuous, time: 0.2, duration: 0, parameters: [.init(.hapticSharpness, 0)])),
            .event(.transient(at: 1.0, intensity: 0, sharpness: 0)),
        ])
        expectSignal(p, 0.5, 1, 0)
        expectSignal(p, 0.99, 1, 0)
        expectSignal(p, 1.01, 0, 0)
    }

    @Test func profilesQuantizeLikeTheirDrivers() {
        #expect(DeviceProfile.Quantization.bits8.apply(0xABCD) == 0xABAB)
        #expect(DeviceProfile.Quantization.bits8.apply(0xFFFF) == 0xFFFF)
        // 0…100 rounded down, as hid-microsoft computes it (no driver rounds to nearest: 656 is level
        // 1, represented by the smallest magnitude of level 1, 656).
        #expect(DeviceProfile.Quantization.percent.apply(300) == 0)
        #expect(DeviceProfile.Quantization.percent.apply(655) == 0)
        #expect(DeviceProfile.Quantization.percent.apply(656) == 656)
        #expect(DeviceProfile.Quantization.percent.apply(32768) == 32768)
        #expect(DeviceProfile.Quantization.percent.apply(65534) == 64880)
        #expect(DeviceProfile.Quantization.percent.apply(65535) == 65535)
        // Floors lift non-zero output only.
        var profile = DeviceProfile.generic
        profile.strongFloor = 0.5
        #expect(MotorMapping.magnitudes(for: .init(intensity: 0.5, sharpness: 0), profile: profile).strong == 49151)
        #expect(MotorMapping.magnitudes(for: .silent, profile: profile) == .zero)
    }

    @Test func profilesMatchByBusVendorAndProduct() {
        #expect(DeviceProfile.forDevice(bus: 0x03, vendor: 0x054C, product: 0x0CE6).name == "dualsense")
        #expect(DeviceProfile.forDevice(bus: 0x05, vendor: 0x045E, product: 0x0B13).name == "xbox-bluetooth")
        #expect(DeviceProfile.forDevice(bus: 0x03, vendor: 0x045E, product: 0x0B12).name == "xbox-one-usb")
        #expect(DeviceProfile.forDevice(bus: 0x05, vendor: 0x057E, product: 0x2009).name == "switch-pro-bluetooth")
        #expect(DeviceProfile.forDevice(bus: 0x03, vendor: 0x1234, product: 0x5678).name == "generic")
    }
}
