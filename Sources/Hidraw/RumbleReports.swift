import HapticCore

/// How a pad's own rumble reports carry a frame of four channels (`MotorMagnitudes`, laid out as the
/// profile's `DeviceProfile.Actuators` says): the report for a frame, and the report that silences
/// every actuator.
public protocol RumbleReports {
    /// The report carrying `m` (advancing whatever counter the protocol keeps).
    mutating func report(_ m: MotorMagnitudes) -> [UInt8]
    /// A report with every actuator off.
    mutating func silence() -> [UInt8]
}

/// Switch HD rumble, output report `0x10` (rumble only), one per frame with the 4-bit packet
/// counter advanced. `strong`/`weak` are the left actuator's crossfaded pair, `third`/`fourth` the
/// right one's; each pair becomes the actuator's intensity and sharpness and then its two bands
/// (`SwitchHDRumble.actuator`, docs/rendering.md §13).
///
/// hid-nintendo, still bound, sends its own reports (subcommands carry rumble data too) with a
/// counter of its own; the pad does not require the two to interleave (SDL's HIDAPI driver writes
/// beside the kernel's the same way): docs/devices.md.
///
/// A pad with one actuator (a Joy-Con alone: `single`) has it in `strong`/`weak`, and the report
/// carries it in both halves — the pad reads its own (a Joy-Con (L) the left, (R) the right), and
/// SDL's HIDAPI driver writes every Switch pad the same way.
public struct SwitchHDRumbleReports: RumbleReports {
    public private(set) var counter: UInt8
    /// One actuator, written to both halves.
    public let single: Bool

    public init(counter: UInt8 = 0, single: Bool = false) {
        self.counter = counter & 0x0F
        self.single = single
    }

    public static func actuators(_ m: MotorMagnitudes, single: Bool = false) -> (left: SwitchHDRumble.Actuator, right: SwitchHDRumble.Actuator) {
        func actuator(_ dull: UInt16, _ sharp: UInt16) -> SwitchHDRumble.Actuator {
            let signal = MotorMapping.signal(dull: dull, sharp: sharp)
            return signal.intensity > 0 ? SwitchHDRumble.actuator(intensity: signal.intensity, sharpness: signal.sharpness) : .off
        }
        let first = actuator(m.strong, m.weak)
        return (first, single ? first : actuator(m.third, m.fourth))
    }

    public mutating func report(_ m: MotorMagnitudes) -> [UInt8] {
        let (left, right) = Self.actuators(m, single: single)
        return next(left, right)
    }

    public mutating func silence() -> [UInt8] { next(.off, .off) }

    private mutating func next(_ left: SwitchHDRumble.Actuator, _ right: SwitchHDRumble.Actuator) -> [UInt8] {
        let r = SwitchHDRumble.report(counter: counter, left: left, right: right)
        counter = (counter + 1) & 0x0F
        return r
    }
}

/// Xbox One / Series over Bluetooth, output report `0x03`: the handle motors (`strong`, `weak`) and
/// the trigger motors (`third` left, `fourth` right), 0…100 each.
public struct XboxTriggerReports: RumbleReports {
    public init() {}

    public static func motors(_ m: MotorMagnitudes) -> XboxImpulseTriggers.Motors {
        XboxImpulseTriggers.Motors(
            leftTrigger: Double(m.third) / 65535, rightTrigger: Double(m.fourth) / 65535,
            strong: Double(m.strong) / 65535, weak: Double(m.weak) / 65535)
    }

    public mutating func report(_ m: MotorMagnitudes) -> [UInt8] { XboxImpulseTriggers.report(Self.motors(m)) }
    public mutating func silence() -> [UInt8] { XboxImpulseTriggers.report(.off) }
}
