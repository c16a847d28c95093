import RealModule

/// The haptic signal at one instant: what the pattern means, before any hardware.
public struct HapticSignal: Equatable, Sendable {
    /// 0…1, after envelopes, transient pulses, dynamic parameters and summing.
    public var intensity: Double
    /// 0…1, the intensity-weighted sharpness of everything sounding (0 when silent).
    public var sharpness: Double

    public init(intensity: Double, sharpness: Double) {
        self.intensity = intensity
        self.sharpness = sharpness
    }

    public static let silent = HapticSignal(intensity: 0, sharpness: 0)
}

/// One frame of output for a pad's actuators, 0…65535 each.
///
/// On every evdev pad (`FF_RUMBLE`) only `strong` and `weak` are used: the heavy low-frequency motor
/// and the light high-frequency one. Pads driven through their own reports (hidraw,
/// `DeviceProfile.Actuators`) have a second pair, `third` and `fourth`: the trigger motors (left,
/// right) of an Xbox pad; on a Switch pad's two HD-rumble actuators, `strong`/`weak` are the left
/// actuator's dull and sharp parts and `third`/`fourth` the right one's (docs/rendering.md §13).
public struct MotorMagnitudes: Equatable, Sendable, Hashable, CustomStringConvertible {
    public var strong: UInt16
    public var weak: UInt16
    public var third: UInt16
    public var fourth: UInt16

    public init(strong: UInt16, weak: UInt16, third: UInt16 = 0, fourth: UInt16 = 0) {
        self.strong = strong
        self.weak = weak
        self.third = third
        self.fourth = fourth
    }

    public static let zero = MotorMagnitudes(strong: 0, weak: 0)
    public var isZero: Bool { strong == 0 && weak == 0 && third == 0 && fourth == 0 }
    /// Whether the second pair carries anything (never on an evdev pad).
    public var hasSecondPair: Bool { third != 0 || fourth != 0 }

    /// Channel by channel.
    @inlinable
    public static func zip(_ a: MotorMagnitudes, _ b: MotorMagnitudes, _ f: (UInt16, UInt16) -> UInt16) -> MotorMagnitudes {
        MotorMagnitudes(strong: f(a.strong, b.strong), weak: f(a.weak, b.weak), third: f(a.third, b.third), fourth: f(a.fourth, b.fourth))
    }

    /// Each channel through `f`.
    @inlinable
    public func map(_ f: (UInt16) -> UInt16) -> MotorMagnitudes {
        MotorMagnitudes(strong: f(strong), weak: f(weak), third: f(third), fourth: f(fourth))
    }

    /// Whether `f` holds for some channel of `a` and `b`.
    @inlinable
    public static func any(_ a: MotorMagnitudes, _ b: MotorMagnitudes, _ f: (UInt16, UInt16) -> Bool) -> Bool {
        f(a.strong, b.strong) || f(a.weak, b.weak) || f(a.third, b.third) || f(a.fourth, b.fourth)
    }

    /// Whether `f` holds for every channel of `a`, `b` and `c`.
    @inlinable
    public static func allMotors(
        _ a: MotorMagnitudes, _ b: MotorMagnitudes, _ c: MotorMagnitudes, _ f: (UInt16, UInt16, UInt16) -> Bool
    ) -> Bool {
        f(a.strong, b.strong, c.strong) && f(a.weak, b.weak, c.weak) && f(a.third, b.third, c.third) && f(a.fourth, b.fourth, c.fourth)
    }

    /// Sum two frames, clamping each channel at full scale (how players mix on one pad).
    public func mixed(with other: MotorMagnitudes) -> MotorMagnitudes {
        Self.zip(self, other) { UInt16(min(UInt32($0) + UInt32($1), 0xFFFF)) }
    }

    /// Each channel's larger value (how a pacer keeps the peak of a window).
    public func peak(with other: MotorMagnitudes) -> MotorMagnitudes {
        Self.zip(self, other) { max($0, $1) }
    }

    /// Every channel times `g` (0…1), rounded down.
    @inlinable
    public func scaled(by g: Double) -> MotorMagnitudes {
        g >= 1 ? self : map { UInt16(Double($0) * max(g, 0)) }
    }

    public var description: String {
        hasSecondPair ? "strong=\(strong) weak=\(weak) third=\(third) fourth=\(fourth)" : "strong=\(strong) weak=\(weak)"
    }
}

/// Intensity and sharpness to motor magnitudes (docs/rendering.md, "From signal to motors").
///
/// An equal-power crossfade: `strong = I·√(1−S)`, `weak = I·√S`. Sharpness moves energy from the
/// heavy motor (dull) to the light one (sharp) while `strong² + weak² = I²`, so the felt strength
/// stays even across the sweep and, at a fixed sharpness, both motors rise with intensity. A motor's
/// non-zero output is then lifted above its profile floor (the magnitude below which it does not spin),
/// scaled to 0…65535, and quantized the way the pad's driver will.
public enum MotorMapping {
    /// `quantized: false` leaves quantization to a later stage (the engine mixes players first and
    /// its pacer quantizes once).
    ///
    /// `route` `.strongOnly`/`.weakOnly` (one-motor localities): the intensity is that motor's
    /// magnitude and the other stays still; sharpness still shapes transient pulses upstream but moves
    /// no energy, since one motor has one frequency (docs/rendering.md §10).
    @inlinable
    public static func magnitudes(
        for signal: HapticSignal, profile: DeviceProfile, route: MotorRoute = .both, quantized: Bool = true
    ) -> MotorMagnitudes {
        let i = min(max(signal.intensity, 0), 1)
        let s = min(max(signal.sharpness, 0), 1)
        var m = MotorMagnitudes.zero
        if route.crossfadesFirstPair || route.crossfadesSecondPair {
            let dull = i * (1 - s).squareRoot(), sharp = i * s.squareRoot()
            if route.crossfadesFirstPair {
                m.strong = scale(lift(dull, floor: profile.strongFloor))
                m.weak = scale(lift(sharp, floor: profile.weakFloor))
            }
            if route.crossfadesSecondPair {
                m.third = scale(lift(dull, floor: profile.secondPairFloor))
                m.fourth = scale(lift(sharp, floor: profile.secondPairFloor))
            }
        }
        if route.direct != 0 {
            if route.direct & MotorRoute.strongChannel != 0 { m.strong = scale(lift(i, floor: profile.strongFloor)) }
            if route.direct & MotorRoute.weakChannel != 0 { m.weak = scale(lift(i, floor: profile.weakFloor)) }
            if route.direct & MotorRoute.thirdChannel != 0 { m.third = scale(lift(i, floor: profile.secondPairFloor)) }
            if route.direct & MotorRoute.fourthChannel != 0 { m.fourth = scale(lift(i, floor: profile.secondPairFloor)) }
        }
        return quantized ? profile.quantize(m) : m
    }

    /// The intensity and sharpness a crossfaded pair carries: the inverse of the equal-power
    /// crossfade (`dull = I·√(1−S)`, `sharp = I·√S`), for outputs that take both (HD rumble). Exact
    /// where the profile lifts no floor; 0…1 each, silent when both are 0.
    public static func signal(dull: UInt16, sharp: UInt16) -> HapticSignal {
        let d = Double(dull) / 65535, s = Double(sharp) / 65535
        let energy = d * d + s * s
        guard energy > 0 else { return .silent }
        return HapticSignal(intensity: min(energy.squareRoot(), 1), sharpness: s * s / energy)
    }

    @inlinable
    static func lift(_ m: Double, floor: Double) -> Double {
        m <= 0 ? 0 : floor + (1 - floor) * m
    }

    @inlinable
    static func scale(_ m: Double) -> UInt16 {
        UInt16(min(max(m, 0), 1) * 65535 + 0.5)
    }
}

/// How the 0…1 values of `AttackTime`, `DecayTime` and `ReleaseTime` become seconds.
///
/// Apple says only "higher is exponentially longer". hapticd uses
/// `seconds(x) = 2 · (e^(4x) − 1) / (e^4 − 1)`: 0 → 0 s, 0.25 → 0.064 s, 0.5 → 0.24 s,
/// 0.75 → 0.74 s, 1 → 2 s. Fine control where it matters (tens of milliseconds) and a 2 s ceiling.
public enum EnvelopeTiming {
    public static let maximumSeconds = 2.0
    public static let curvature = 4.0
    @usableFromInline static let denominator = Double.exp(curvature) - 1

    @inlinable
    public static func seconds(_ x: Double) -> Double {
        let v = min(max(x, 0), 1)
        if v == 0 { return 0 }
        return maximumSeconds * (Double.exp(curvature * v) - 1) / denominator
    }

    @inlinable
    public static func exp2(_ x: Double) -> Double { Double.exp2(x) }
}
