import HapticCore
import PropertyBased
import Testing

/// Random patterns: a mix of transients and continuous events with random parameters and controls.
let eventGen = zip(
    Gen.bool, Gen.double(in: 0...2), Gen.double(in: 0...1.5), Gen.double(in: 0...1), Gen.double(in: 0...1),
    Gen.double(in: 0...1), Gen.double(in: 0...1), Gen.bool
).map { transient, time, duration, intensity, sharpness, attack, release, sustained -> PatternElement in
    transient
        ? .event(.transient(at: time, intensity: intensity, sharpness: sharpness))
        : .event(.continuous(
            at: time, duration: duration, intensity: intensity, sharpness: sharpness,
            extra: [.init(.attackTime, attack), .init(.releaseTime, release), .init(.sustained, sustained ? 1 : 0),
                    .init(.decayTime, attack)]))
}
let controlGen = zip(Gen.int(in: 0...4), Gen.double(in: 0...2), Gen.double(in: -1...1)).map { which, time, value -> PatternElement in
    let id: DynamicParameterID = [.hapticIntensityControl, .hapticSharpnessControl, .hapticAttackTimeControl,
                                  .hapticDecayTimeControl, .hapticReleaseTimeControl][which]
    let v = min(max(value, id.range.lowerBound), id.range.upperBound)
    return which % 2 == 0 ? .parameter(.init(id, v, at: time)) : .curve(.init(id, at: time, points: [.init(0, v), .init(0.3, -v * 0.5 + 0.5)]))
}
let patternGen = zip(eventGen.array(of: 1...12), controlGen.array(of: 0...4)).map { events, controls in
    HapticPattern(elements: events + controls)
}
let profileGen = Gen.element(of: DeviceProfile.builtIn)

@Suite struct PropertyTests {
    @Test func outputsAlwaysInRange() async {
        await propertyCheck(count: 200, input: patternGen, profileGen, Gen.double(in: 0...4)) { pattern, profile, t in
            let p = CompiledPattern(pattern, profile: profile!)
            let s = p.frame(at: t)
            #expect(s.intensity >= 0 && s.intensity <= 1)
            #expect(s.sharpness >= 0 && s.sharpness <= 1)
            #expect(s.intensity.isFinite && s.sharpness.isFinite)
            // Silence gives both motors zero; sound gives at least one motor something.
            let m = MotorMapping.magnitudes(for: s, profile: profile!)
            if s.intensity == 0 { #expect(m.isZero) }
        }
    }

    @Test func renderingIsDeterministic() async {
        await propertyCheck(count: 100, input: patternGen, Gen.double(in: 0...4)) { pattern, t in
            let a = CompiledPattern(pattern)
            let b = CompiledPattern(pattern)
            #expect(a.frame(at: t) == b.frame(at: t))
            #expect(a.frame(at: t) == a.frame(at: t))
            #expect(a.magnitudes(at: t) == b.magnitudes(at: t))
        }
    }

    @Test func motorsRiseMonotonicallyWithIntensity() async {
        await propertyCheck(count: 300, input: Gen.double(in: 0...1), Gen.double(in: 0...1), Gen.double(in: 0...1), profileGen) { a, b, s, profile in
            let lo = MotorMapping.magnitudes(for: .init(intensity: min(a, b), sharpness: s), profile: profile!)
            let hi = MotorMapping.magnitudes(for: .init(intensity: max(a, b), sharpness: s), profile: profile!)
            #expect(lo.strong <= hi.strong && lo.weak <= hi.weak)
        }
    }

    @Test func patternOutputRisesWithEventIntensity() async {
        // Scaling every event's intensity up never lowers the rendered intensity.
        await propertyCheck(count: 150, input: patternGen, Gen.double(in: 0...1), Gen.double(in: 0...3)) { pattern, scale, t in
            var quieter = pattern
            quieter.elements = pattern.elements.map { element in
                guard case .event(var e) = element else { return element }
                e.parameters = e.parameters.map { $0.id == .hapticIntensity ? .init($0.id, $0.value * scale) : $0 }
                return .event(e)
            }
            let loud = CompiledPattern(pattern).frame(at: t)
            let soft = CompiledPattern(quieter).frame(at: t)
            #expect(soft.intensity <= loud.intensity + 1e-12)
        }
    }

    @Test func sharpnessMovesEnergyBetweenMotors() async {
        await propertyCheck(count: 200, input: Gen.double(in: 0.01...1), Gen.double(in: 0...1), Gen.double(in: 0...1)) { i, a, b in
            let dull = MotorMapping.magnitudes(for: .init(intensity: i, sharpness: min(a, b)), profile: .generic)
            let sharp = MotorMapping.magnitudes(for: .init(intensity: i, sharpness: max(a, b)), profile: .generic)
            #expect(sharp.weak >= dull.weak && sharp.strong <= dull.strong)
        }
    }
}
