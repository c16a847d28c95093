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

/// One frame of `FF_RUMBLE` output: the heavy low-frequency motor and the light high-frequency one.
public struct MotorMagnitudes: Equatable, Sendable, Hashable, CustomStringConvertible {
    public var strong: UInt16
    public var weak: UInt16

    public init(strong: UInt16, weak: UInt16) {
        self.strong = strong
        self.weak = weak
    }

    public static let zero = MotorMagnitudes(strong: 0, weak: 0)
    public var isZero: Bool { strong == 0 && weak == 0 }

    /// Sum two frames, clamping each motor at full scale (how players mix on one pad).
    public func mixed(with other: MotorMagnitudes) -> MotorMagnitudes {
        MotorMagnitudes(
            strong: UInt16(min(UInt32(strong) + UInt32(other.strong), 0xFFFF)),
            weak: UInt16(min(UInt32(weak) + UInt32(other.weak), 0xFFFF)))
    }

    /// Each motor's larger value (how a pacer keeps the peak of a window).
    public func peak(with other: MotorMagnitudes) -> MotorMagnitudes {
        MotorMagnitudes(strong: max(strong, other.strong), weak: max(weak, other.weak))
    }

    public var description: String { "strong=\(strong) weak=\(weak)" }
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
        let strong: UInt16, weak: UInt16
        switch route {
        case .both:
            strong = scale(lift(i * (1 - s).squareRoot(), floor: profile.strongFloor))
            weak = scale(lift(i * s.squareRoot(), floor: profile.weakFloor))
        case .strongOnly:
            strong = scale(lift(i, floor: profile.strongFloor))
            weak = 0
        case .weakOnly:
            strong = 0
            weak = scale(lift(i, floor: profile.weakFloor))
        }
        guard quantized else { return MotorMagnitudes(strong: strong, weak: weak) }
        return profile.quantize(MotorMagnitudes(strong: strong, weak: weak))
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
