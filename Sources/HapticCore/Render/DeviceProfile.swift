/// What a kind of pad accepts and how it feels: plain data, matched by bus and vendor:product.
///
/// The core uses the transient pulse lengths and motor floors; the device layer and the pacer use the
/// update interval, quantization and refresh. The numbers come from the drivers' source as summarised
/// in ../shared/reference/linux-ff.md; docs/devices.md explains each entry.
public struct DeviceProfile: Equatable, Sendable, Codable {
    public struct Match: Equatable, Sendable, Codable, Hashable {
        /// Linux `BUS_*` value (0x03 USB, 0x05 Bluetooth); nil matches any bus.
        public var bus: UInt16?
        public var vendor: UInt16
        public var product: UInt16
        /// Text the device's name (its kernel driver's, `EVIOCGNAME`) must contain; nil: any name. For
        /// pads that share one ID but not a name (the configuration's `name_contains`).
        public var name: String?
        /// The analog sticks the device must report, exactly; nil: any. For one ID behind which
        /// different pads sit that the name does not tell apart on every kernel: the two Joy-Cons of
        /// a charging grip (057E:200E, one HID interface each) — hid-nintendo gives the left one the
        /// left stick (`ABS_X`/`ABS_Y`) and the right one the right stick (`ABS_RX`/`ABS_RY`), from
        /// the controller type the Joy-Con reports, in every version that binds the grip (5.16 on);
        /// its names for them ("Nintendo Switch Left Joy-Con (Grip)") are the grip's own product
        /// string for both from 6.8 on.
        public var sticks: Sticks?
        public init(bus: UInt16? = nil, vendor: UInt16, product: UInt16, name: String? = nil, sticks: Sticks? = nil) {
            self.bus = bus
            self.vendor = vendor
            self.product = product
            self.name = name
            self.sticks = sticks
        }

        /// Whether a device with these ids, this name and these sticks (nil: not known) is this match's.
        public func accepts(bus: UInt16, vendor: UInt16, product: UInt16, name: String?, sticks: Sticks?) -> Bool {
            (self.bus == nil || self.bus == bus) && self.vendor == vendor && self.product == product
                && (self.name.map { want in name?.contains(want) ?? false } ?? true)
                && (self.sticks.map { want in sticks == want } ?? true)
        }
    }

    /// A pad's analog sticks, as its evdev device reports them: `left` for `ABS_X` and `ABS_Y`,
    /// `right` for `ABS_RX` and `ABS_RY`.
    public struct Sticks: OptionSet, Equatable, Hashable, Sendable, Codable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let left = Sticks(rawValue: 1)
        public static let right = Sticks(rawValue: 2)
        /// "left", "right", "both" or "none".
        public var name: String { self == .left ? "left" : self == .right ? "right" : isEmpty ? "none" : "both" }
    }

    /// How the driver reduces a 16-bit magnitude before it reaches the motor, exactly as its code does
    /// (drivers of Linux 6.1, read and then checked against the real drivers in the VM test).
    public enum Quantization: String, Equatable, Sendable, Codable, CaseIterable {
        /// 0…65535 reach the pad unchanged.
        case full
        /// 8-bit motors, `magnitude / 256`: hid-playstation, hid-sony (DualShock 3/4), hid-bigbenff's
        /// strong motor, xpad's Xbox 360.
        case bits8
        /// 7-bit motors, `magnitude >> 9` (0…127): xpad's Xbox One GIP rumble packet (and SDL's).
        case bits7
        /// 0…100, `magnitude · 100 / 65535` rounded down: hid-microsoft (Xbox pads over Bluetooth).
        case percent
        /// hid-nintendo's HD rumble: `amp = magnitude · 1003 / 65535` rounded down, then the first of
        /// 101 non-linear table steps whose amplitude is at least `amp` (`switchAmplitudes`).
        case switchAmplitude = "switch-amplitude"
        /// A motor that is only on or off, on for any non-zero magnitude: hid-bigbenff's weak motor.
        case onOff = "on-off"
        /// On or off after an 8-bit reduction, so on from 256 up: hid-sony's DualShock 3 weak motor
        /// (`magnitude / 256`, then non-zero means on).
        case onOffBits8 = "on-off-8bit"

        /// How many distinct levels the pad can play (0 included).
        public var levels: Int {
            switch self {
            case .full: return 65536
            case .bits8: return 256
            case .bits7: return 128
            case .percent: return 101
            case .switchAmplitude: return DeviceProfile.switchAmplitudes.count
            case .onOff, .onOffBits8: return 2
            }
        }

        /// What the driver puts in its report for `m`, in the report's own units (0…255, 0…100, the
        /// table amplitude 0…1003, 0/1; `full`: `m`).
        public func level(_ m: UInt16) -> Int {
            switch self {
            case .full: return Int(m)
            case .bits8: return Int(m >> 8)
            case .bits7: return Int(m >> 9)
            case .percent: return Int(UInt32(m) * 100 / 65535)
            case .switchAmplitude: return Int(DeviceProfile.switchAmplitudes[Self.switchStep(m)])
            case .onOff: return m > 0 ? 1 : 0
            case .onOffBits8: return m >= 256 ? 1 : 0
            }
        }

        /// The 16-bit magnitude that represents what the pad will actually play, so that two values
        /// the pad cannot tell apart compare equal (and the pacer writes only what the pad can feel).
        /// Idempotent: `apply(apply(m)) == apply(m)`, and `level(apply(m)) == level(m)`.
        public func apply(_ m: UInt16) -> UInt16 {
            switch self {
            case .full: return m
            case .bits8: return m & 0xFF00 | (m >> 8)  // 0xAB.. → 0xABAB: full scale stays full scale
            case .bits7:
                // Level L's bits repeated below it, as for bits8: 127 → 0xFFFF.
                let level = m >> 9
                return level << 9 | level << 2 | level >> 5
            case .percent:
                // The smallest magnitude the driver turns into the same level.
                let level = UInt32(m) * 100 / 65535
                return UInt16((level * 65535 + 99) / 100)
            case .switchAmplitude:
                // The magnitude whose amplitude is exactly the step's own (amplitude 1003 = 65535).
                let amp = UInt32(DeviceProfile.switchAmplitudes[Self.switchStep(m)])
                return UInt16((amp * 65535 + 1002) / 1003)
            case .onOff: return m > 0 ? 0xFFFF : 0
            case .onOffBits8: return m >= 256 ? 0xFFFF : 0
            }
        }

        /// hid-nintendo's step for a magnitude: `joycon_find_rumble_amp(magnitude · 1003 / 65535)`.
        static func switchStep(_ m: UInt16) -> Int {
            let amp = UInt32(m) * 1003 / 65535
            let table = DeviceProfile.switchAmplitudes
            var i = 0
            while i < table.count - 1 && UInt32(table[i]) < amp { i += 1 }
            return i
        }
    }

    /// hid-nintendo's rumble amplitude table (the `amp` column of `joycon_rumble_amplitudes`, from the
    /// published Switch rumble data table, dekuNukem/Nintendo_Switch_Reverse_Engineering): 101 steps,
    /// fine near zero and coarse near the top, 1003 = full.
    public static let switchAmplitudes: [UInt16] = [
        0, 10, 12, 14, 17, 20, 24, 28, 33, 40, 47, 56, 67, 80, 95, 112, 117, 123, 128, 134, 140,
        146, 152, 159, 166, 173, 181, 189, 198, 206, 215, 225, 230, 235, 240, 245, 251, 256, 262, 268, 273,
        279, 286, 292, 298, 305, 311, 318, 325, 332, 340, 347, 355, 362, 370, 378, 387, 395, 404, 413, 422,
        431, 440, 450, 460, 470, 480, 491, 501, 512, 524, 535, 547, 559, 571, 584, 596, 609, 623, 636, 650,
        665, 679, 694, 709, 725, 741, 757, 773, 790, 808, 825, 843, 862, 881, 900, 920, 940, 960, 981, 1003,
    ]

    /// How a new value is handed to the kernel (docs/devices.md, "How a value reaches the driver";
    /// measured per driver in the VM: the `METHOD` table of docs/benchmarks.md).
    public enum UpdateMethod: String, Equatable, Sendable, Codable, CaseIterable {
        /// Every value is uploaded into the effect and played (`EV_FF` 1), as SDL does: ff-memless
        /// sends a play at once, where it defers an in-place update of a playing effect to its timer,
        /// the next jiffy (0–4 ms at HZ=250). One report per value: the effect has a length
        /// (`RumbleDevice.effectLengthMilliseconds`; an effect without one is sent once more on that
        /// tick).
        case play
        /// Every value is uploaded into the playing effect, which is played only to start it (from
        /// rest): one report per value, sent on ff-memless's next jiffy. hid-nintendo's profile
        /// (docs/devices.md).
        case inPlace = "in-place"
    }

    /// Transient pulse lengths in seconds. A rumble motor cannot play a 5 ms click: a transient becomes
    /// a pulse from `sharp` (sharpness 1) to `dull` (sharpness 0), never shorter than `minimum`.
    public struct TransientPulse: Equatable, Sendable, Codable {
        public var sharp: Double
        public var dull: Double
        public var minimum: Double
        public init(sharp: Double, dull: Double, minimum: Double) {
            self.sharp = sharp
            self.dull = dull
            self.minimum = minimum
        }
    }

    public var name: String
    public var displayName: String
    public var matches: [Match]
    /// Least time between two writes to the pad, in seconds.
    public var minimumUpdateInterval: Double
    /// What the driver keeps of the strong motor's magnitude (and of the weak one's, unless
    /// `weakQuantization` says otherwise).
    public var quantization: Quantization
    /// The weak motor's quantization where it differs (an on/off motor); nil: `quantization`.
    public var weakQuantization: Quantization?
    /// Pads that stop on their own need the current value re-sent this often (seconds); nil: only
    /// every `maximumHold`.
    public var refreshInterval: Double?
    /// The longest a pad is trusted to hold a value unprompted (seconds): a held value is re-sent
    /// after this. The evdev backend's effects have a length (65.535 s, the most there is: with
    /// none, ff-memless sends every play twice — `RumbleDevice.effectLengthMilliseconds`), so
    /// without a re-send a rumble held longer would end by itself.
    public static let maximumHold = 30.0
    /// How long after an onset a command wrote from silence the commands that follow may correct it
    /// at once (`Pacer`): half the interval, on pads whose interval is what the driver takes (16 ms
    /// or less); none where the interval is a link's or a driver's own limit — the Switch's (its
    /// driver's queue, or Bluetooth's "more often can turn the controller off"), the Xbox's trigger
    /// reports — where an extra report would cost more than it brings.
    public var onsetCorrectionWindow: Double { minimumUpdateInterval <= 0.016 ? minimumUpdateInterval / 2 : 0 }
    /// How often the pacer re-sends a held non-zero value: `refreshInterval`, at most `maximumHold`.
    public var refreshPeriod: Double { min(refreshInterval ?? Self.maximumHold, Self.maximumHold) }
    /// Stop by writing zero magnitudes to the still-playing effect instead of stopping it, for drivers
    /// where (re)starting an effect costs more reports than updating it (hid-nintendo: a play is sent
    /// twice by ff-memless, and every report it queues holds its 25 ms link). docs/devices.md.
    public var keepsEffectPlaying: Bool
    /// How each value reaches the driver: played (one report, at once) or updated in place (one
    /// report, a jiffy later). docs/devices.md.
    public var updateMethod: UpdateMethod
    /// Send the last value of a burst once more, one interval after it was written. The kernel's
    /// ff-memless (behind every driver here) can lose an in-place update: its timer may run before
    /// ff-core has stored the new effect, send the old values, and not run again. The re-send reaches
    /// the pad with the stored, new values. Only for `updateMethod` `.inPlace`: a played value is sent
    /// from the stored effect at once and cannot be lost that way, and the re-send takes a write slot
    /// (a 60 fps game's next value waited for it: 5–7 ms in the VM). docs/devices.md.
    public var settles: Bool
    public var transientPulse: TransientPulse
    /// Lowest magnitude (0…1) at which each motor still spins; non-zero output is lifted above it.
    public var strongFloor: Double
    public var weakFloor: Double

    /// What a pad's actuators are, as hapticd drives them: which localities it has and what
    /// `MotorMagnitudes`' channels mean (docs/rendering.md §13).
    public enum Actuators: String, Equatable, Sendable, Codable, CaseIterable {
        /// Two motors, strong and weak: every evdev (`FF_RUMBLE`) pad but a Joy-Con alone.
        case rumble
        /// Two linear resonant actuators, each with a low and a high band of its own frequency and
        /// amplitude (Switch HD rumble, through the pad's own reports): `strong`/`weak` the left one's
        /// dull and sharp parts, `third`/`fourth` the right one's.
        case hdRumble = "hd-rumble"
        /// Two handle motors as `rumble`, and a motor in each trigger: `third` left, `fourth` right
        /// (Xbox impulse triggers, through the pad's own reports).
        case rumbleAndTriggers = "rumble-and-triggers"
        /// One motor that is felt, driven by `strong`: the pad is a left handle alone (a Joy-Con (L)
        /// through hid-nintendo, which sends the strong magnitude to the left actuator's half of its
        /// report and the weak one to the right half, which a Joy-Con (L) does not read).
        case leftMotor = "left-motor"
        /// One motor that is felt, driven by `weak`: a right handle alone (a Joy-Con (R) through
        /// hid-nintendo: the weak magnitude is the report's right half).
        case rightMotor = "right-motor"
        /// One HD-rumble actuator (`strong`/`weak` its dull and sharp parts), the pad a left handle
        /// alone: a Joy-Con (L) through its own reports.
        case hdRumbleLeft = "hd-rumble-left"
        /// One HD-rumble actuator, the pad a right handle alone: a Joy-Con (R) through its own reports.
        case hdRumbleRight = "hd-rumble-right"

        /// Whether the actuators are HD rumble (a frequency and an amplitude per band).
        public var isHDRumble: Bool { self == .hdRumble || self == .hdRumbleLeft || self == .hdRumbleRight }
        /// The channels that drive something: a mask of `MotorRoute.strongChannel` … `fourthChannel`.
        public var channels: UInt8 {
            switch self {
            case .rumble, .hdRumbleLeft, .hdRumbleRight: MotorRoute.strongChannel | MotorRoute.weakChannel
            case .hdRumble, .rumbleAndTriggers: 0x0F
            case .leftMotor: MotorRoute.strongChannel
            case .rightMotor: MotorRoute.weakChannel
            }
        }
        /// Whether `third` and `fourth` drive anything.
        public var usesSecondPair: Bool { channels & (MotorRoute.thirdChannel | MotorRoute.fourthChannel) != 0 }
    }

    /// The pad's actuators as this profile drives them (`rumble` for every evdev profile but a
    /// Joy-Con alone's, `left-motor`/`right-motor`).
    public var actuators: Actuators
    /// The second pair's floor (`third`, `fourth`), as `strongFloor` is the strong motor's.
    public var secondPairFloor: Double
    /// The second pair's quantization; nil: `quantization`.
    public var secondPairQuantization: Quantization?

    /// The pad's own output reports a profile drives it with, on its hidraw node, beside the kernel
    /// driver (docs/devices.md, "hidraw"); nil: through evdev's `FF_RUMBLE`.
    public enum Reports: String, Equatable, Sendable, Codable, CaseIterable {
        /// Switch Pro Controller and Joy-Cons: output report `0x10`, HD rumble.
        case switchHDRumble = "switch-hd-rumble"
        /// Xbox One / Series over Bluetooth: output report `0x03`, handle and trigger motors.
        case xboxBluetooth = "xbox-bluetooth"
        /// DualSense over Bluetooth: output report `0x32`, its voice coils as waveforms (3 kHz, signed
        /// 8-bit, stereo), streamed; the pad's evdev node stays open for compatible vibration.
        case dualSenseHaptics = "dualsense-haptics"
    }

    /// Reports written on the hidraw node; nil for an evdev profile.
    public var reports: Reports?
    /// For a hidraw profile: the evdev profile the pad falls back to when its hidraw node cannot be
    /// used (not there, not openable, another device, a failed write) or config forces evdev.
    public var evdevFallback: String?

    public init(
        name: String, displayName: String, matches: [Match] = [], minimumUpdateInterval: Double,
        quantization: Quantization = .full, weakQuantization: Quantization? = nil, refreshInterval: Double? = nil,
        keepsEffectPlaying: Bool = false, updateMethod: UpdateMethod = .play, settles: Bool = false,
        transientPulse: TransientPulse = .init(sharp: 0.030, dull: 0.080, minimum: 0.020),
        strongFloor: Double = 0, weakFloor: Double = 0,
        actuators: Actuators = .rumble, secondPairFloor: Double = 0, secondPairQuantization: Quantization? = nil,
        reports: Reports? = nil, evdevFallback: String? = nil
    ) {
        self.name = name
        self.displayName = displayName
        self.matches = matches
        self.minimumUpdateInterval = minimumUpdateInterval
        self.quantization = quantization
        self.weakQuantization = weakQuantization
        self.refreshInterval = refreshInterval
        self.keepsEffectPlaying = keepsEffectPlaying
        self.updateMethod = updateMethod
        self.settles = settles
        self.transientPulse = transientPulse
        self.strongFloor = strongFloor
        self.weakFloor = weakFloor
        self.actuators = actuators
        self.secondPairFloor = secondPairFloor
        self.secondPairQuantization = secondPairQuantization
        self.reports = reports
        self.evdevFallback = evdevFallback
    }

    /// The pulse length of a transient with this sharpness, stretched or shrunk by the decay control
    /// (−1…1 halves…doubles it), and never shorter than the minimum nor than one update interval (a
    /// pulse always spans a moment the pad can be written: the pacer and the event-driven loop rely on
    /// it).
    @inlinable
    public func pulseLength(sharpness: Double, decayControl: Double = 0) -> Double {
        let s = min(max(sharpness, 0), 1)
        let base = transientPulse.dull + (transientPulse.sharp - transientPulse.dull) * s
        let scaled = decayControl == 0 ? base : base * EnvelopeTiming.exp2(min(max(decayControl, -1), 1))
        return max(scaled, transientPulse.minimum, minimumUpdateInterval)
    }

    /// Every channel as the pad will play it (each one's quantization applied).
    @inlinable
    public func quantize(_ m: MotorMagnitudes) -> MotorMagnitudes {
        var q = MotorMagnitudes(strong: quantization.apply(m.strong), weak: (weakQuantization ?? quantization).apply(m.weak))
        if m.hasSecondPair {
            let second = secondPairQuantization ?? quantization
            q.third = second.apply(m.third)
            q.fourth = second.apply(m.fourth)
        }
        return q
    }

    /// Whether this profile is meant for the device with these ids, name and sticks (a match that
    /// asks for a name or sticks does not accept a device whose name or sticks are not given).
    public func matches(bus: UInt16, vendor: UInt16, product: UInt16, name: String? = nil, sticks: Sticks? = nil) -> Bool {
        matches.contains { $0.accepts(bus: bus, vendor: vendor, product: product, name: name, sticks: sticks) }
    }
}

extension DeviceProfile {
    public static let busUSB: UInt16 = 0x03
    public static let busBluetooth: UInt16 = 0x05

    /// For pads nobody has described: SDL's conservative 10 ms pacing, full resolution.
    public static let generic = DeviceProfile(
        name: "generic", displayName: "Generic rumble pad", minimumUpdateInterval: 0.010)

    public static let xbox360 = DeviceProfile(
        name: "xbox360", displayName: "Xbox 360 (xpad)",
        matches: [
            .init(bus: busUSB, vendor: 0x045E, product: 0x028E), .init(bus: busUSB, vendor: 0x045E, product: 0x028F),
            .init(bus: busUSB, vendor: 0x045E, product: 0x0719),
        ],
        // xpad: one transfer in flight, the OUT endpoint polled every 8 ms. Played — one report, at
        // once (the effect has a length) — a value no longer waits for ff-memless's jiffy, so the bus
        // interval is enough: 8 ms loses nothing (VM: 0/62 bare, 0 of 50 through hapticd; in place it
        // needed 12 ms, the jiffy on top of the bus, docs/devices.md "xpad").
        minimumUpdateInterval: 0.008, quantization: .bits8,
        transientPulse: .init(sharp: 0.030, dull: 0.080, minimum: 0.016), strongFloor: 0.08, weakFloor: 0.08)

    public static let xboxOneUSB = DeviceProfile(
        name: "xbox-one-usb", displayName: "Xbox One / Series over USB (xpad)",
        matches: [0x02D1, 0x02DD, 0x02E3, 0x02EA, 0x0B00, 0x0B12].map {
            .init(bus: busUSB, vendor: 0x045E, product: $0)
        },
        // xpad sends `magnitude >> 9` in the GIP packet, one transfer in flight on a 4 ms endpoint.
        // Played (one report, at once): every 6 ms a value reaches the pad in 0.6 ms and none is lost;
        // every 4 ms they queue behind the transfer in flight (5 ms to the pad, VM). So 6 ms.
        minimumUpdateInterval: 0.006, quantization: .bits7,
        transientPulse: .init(sharp: 0.030, dull: 0.080, minimum: 0.016), strongFloor: 0.06, weakFloor: 0.06)

    public static let xboxBluetooth = DeviceProfile(
        name: "xbox-bluetooth", displayName: "Xbox One / Series over Bluetooth (hid-microsoft)",
        matches: [0x02E0, 0x02FD, 0x0B05, 0x0B13, 0x0B20, 0x0B22].map {
            .init(bus: busBluetooth, vendor: 0x045E, product: $0)
        },
        // hid-microsoft: ff-memless, 0…100 rounded down. The driver takes a value every 4 ms without
        // loss (VM); the firmware is what limits: about 100 reports/s (xpadneo throttles to one per
        // 10 ms, newer versions to one per 50 ms, "to work around firmware crashes"). So one report
        // per value — played, at once (the effect has a length: one report) — and 10 ms: at most 100
        // reports/s.
        minimumUpdateInterval: 0.010, quantization: .percent,
        transientPulse: .init(sharp: 0.040, dull: 0.090, minimum: 0.040), strongFloor: 0.06, weakFloor: 0.06)

    /// hid-sony on Linux ≤ 6.1 (hid-playstation from 6.2): 8-bit motors, every report carries them.
    /// The pad stops on its own after about 5 s, so the value is re-sent every 2 s (SDL does too).
    /// 5 ms: the pad's interrupt OUT endpoint (full speed, bInterval 5); the driver takes a played
    /// value every 4 ms without loss (VM), one report each.
    public static let dualShock4 = DeviceProfile(
        name: "dualshock4", displayName: "DualShock 4 over USB (hid-sony / hid-playstation)",
        matches: [0x05C4, 0x09CC, 0x0BA0].map { .init(bus: busUSB, vendor: 0x054C, product: $0) },
        minimumUpdateInterval: 0.005, quantization: .bits8, refreshInterval: 2.0)

    public static let dualShock4Bluetooth = DeviceProfile(
        name: "dualshock4-bluetooth", displayName: "DualShock 4 over Bluetooth (hid-sony / hid-playstation)",
        matches: [0x05C4, 0x09CC].map { .init(bus: busBluetooth, vendor: 0x054C, product: $0) },
        minimumUpdateInterval: 0.010, quantization: .bits8, refreshInterval: 2.0)

    /// hid-sony: the strong motor 8-bit, the weak one on or off (`magnitude / 256` non-zero), sent as
    /// a SET_REPORT on the control endpoint.
    public static let dualShock3 = DeviceProfile(
        name: "dualshock3", displayName: "DualShock 3 over USB (hid-sony)",
        matches: [.init(bus: busUSB, vendor: 0x054C, product: 0x0268)],
        minimumUpdateInterval: 0.008, quantization: .bits8, weakQuantization: .onOffBits8)

    public static let dualShock3Bluetooth = DeviceProfile(
        name: "dualshock3-bluetooth", displayName: "DualShock 3 over Bluetooth (hid-sony)",
        matches: [.init(bus: busBluetooth, vendor: 0x054C, product: 0x0268)],
        minimumUpdateInterval: 0.010, quantization: .bits8, weakQuantization: .onOffBits8)

    /// 4 ms: the pad's interrupt OUT endpoint (high speed, bInterval 6: every 4 ms); hid-playstation
    /// takes a played value every 4 ms without loss (VM), one report each.
    public static let dualSense = DeviceProfile(
        name: "dualsense", displayName: "DualSense / DualSense Edge over USB (hid-playstation)",
        matches: [0x0CE6, 0x0DF2].map { .init(bus: busUSB, vendor: 0x054C, product: $0) },
        minimumUpdateInterval: 0.004, quantization: .bits8)

    public static let dualSenseBluetooth = DeviceProfile(
        name: "dualsense-bluetooth", displayName: "DualSense / DualSense Edge over Bluetooth (hid-playstation)",
        matches: [0x0CE6, 0x0DF2].map { .init(bus: busBluetooth, vendor: 0x054C, product: $0) },
        minimumUpdateInterval: 0.010, quantization: .bits8)

    /// hid-bigbenff: the strong motor 8-bit, the weak one on for any non-zero magnitude; a SET_REPORT
    /// only when the pair changed.
    public static let bigben = DeviceProfile(
        name: "bigben", displayName: "BigBen Interactive PS3-style pad (hid-bigbenff)",
        matches: [.init(bus: busUSB, vendor: 0x146B, product: 0x0902)],
        minimumUpdateInterval: 0.008, quantization: .bits8, weakQuantization: .onOff)

    /// hid-nintendo (docs/devices.md): at least 25 ms between rumble packets, gated on the pad's input
    /// reports, an 8-slot ring that sends the previous value first, and periodic resends that stop
    /// after five. Paced so that every value is drained before the next; zero is written to the
    /// playing effect (a new play would cost an extra packet); refreshed before the resends run out.
    public static let switchProUSB = DeviceProfile(
        name: "switch-pro-usb", displayName: "Switch Pro Controller over USB (hid-nintendo)",
        matches: [.init(bus: busUSB, vendor: 0x057E, product: 0x2009)],
        minimumUpdateInterval: 0.070, quantization: .switchAmplitude, refreshInterval: 0.2, keepsEffectPlaying: true,
        updateMethod: .inPlace, settles: true, transientPulse: .init(sharp: 0.070, dull: 0.100, minimum: 0.070))

    public static let switchProBluetooth = DeviceProfile(
        name: "switch-pro-bluetooth", displayName: "Switch Pro Controller over Bluetooth (hid-nintendo)",
        matches: [.init(bus: busBluetooth, vendor: 0x057E, product: 0x2009)],
        minimumUpdateInterval: 0.080, quantization: .switchAmplitude, refreshInterval: 0.2, keepsEffectPlaying: true,
        updateMethod: .inPlace, settles: true, transientPulse: .init(sharp: 0.080, dull: 0.110, minimum: 0.080))

    /// A Joy-Con (L) alone over Bluetooth through hid-nintendo: the Switch Pro's profile there (the
    /// driver's code is the same), and one motor — the strong magnitude, which the driver sends to
    /// the report's left half, the one a Joy-Con (L) reads (docs/devices.md, "Joy-Cons").
    public static let joyConLeftBluetooth = switchProBluetooth.joyCon(left: true)
    /// A Joy-Con (R) alone: its one motor the weak magnitude (the report's right half).
    public static let joyConRightBluetooth = switchProBluetooth.joyCon(left: false)

    /// A Joy-Con (L) in the charging grip over USB (057E:200E; hid-nintendo binds each Joy-Con of the
    /// grip as a pad of its own, with the stick of the type the Joy-Con reports): the Switch Pro's USB
    /// profile (the same driver code: USB handshake, 3 Mbit/s, the same pacing) with the Joy-Con's one
    /// motor.
    public static let joyConLeftUSB = switchProUSB.joyCon(left: true)
    /// A Joy-Con (R) in the charging grip over USB.
    public static let joyConRightUSB = switchProUSB.joyCon(left: false)

    /// This Switch Pro profile (`switch-pro…`) for a Joy-Con alone over the same link: the Joy-Con's
    /// ID, name and one actuator, the rest — pacing, quantization, reports — the Pro's, whose driver
    /// code and report a Joy-Con shares. `rumble` becomes the one motor the Joy-Con feels, `hd-rumble`
    /// its one HD actuator. Over Bluetooth a Joy-Con has an ID of its own (057E:2006, 2007); over USB
    /// it sits in the charging grip, whose one ID (057E:200E) both halves share, told apart by the one
    /// stick hid-nintendo gives each (`Match.sticks`).
    func joyCon(left: Bool) -> DeviceProfile {
        let id = left ? "joycon-left" : "joycon-right"
        func renamed(_ s: String) -> String { s.hasPrefix("switch-pro") ? id + s.dropFirst("switch-pro".count) : s }
        var p = self
        let grip = matches.allSatisfy { $0.bus == Self.busUSB }
        p.name = renamed(name)
        p.displayName = (left ? "Joy-Con (L)" : "Joy-Con (R)") + (grip ? " in the charging grip" : "")
            + displayName.dropFirst("Switch Pro Controller".count)
        p.matches = matches.map {
            $0.bus == Self.busUSB
                ? Match(bus: $0.bus, vendor: 0x057E, product: 0x200E, sticks: left ? .left : .right)
                : Match(bus: $0.bus, vendor: 0x057E, product: left ? 0x2006 : 0x2007)
        }
        p.actuators = actuators == .hdRumble ? (left ? .hdRumbleLeft : .hdRumbleRight) : (left ? .leftMotor : .rightMotor)
        p.evdevFallback = evdevFallback.map(renamed)
        return p
    }

    /// Built-in profiles, most specific first; `generic` last.
    public static let builtIn: [DeviceProfile] = [
        xbox360, xboxOneUSB, xboxBluetooth, dualShock4, dualShock4Bluetooth, dualShock3, dualShock3Bluetooth, dualSense,
        dualSenseBluetooth, bigben, switchProUSB, switchProBluetooth, joyConLeftBluetooth, joyConRightBluetooth, joyConLeftUSB,
        joyConRightUSB, generic,
    ]

    public static func named(_ name: String, in profiles: [DeviceProfile] = allBuiltIn) -> DeviceProfile? {
        profiles.first { $0.name == name }
    }

    /// The evdev profile for a device, or `generic` (hidraw profiles are chosen apart: `reports`).
    public static func forDevice(
        bus: UInt16, vendor: UInt16, product: UInt16, name: String? = nil, sticks: Sticks? = nil, in profiles: [DeviceProfile] = builtIn
    ) -> DeviceProfile {
        profiles.first { $0.reports == nil && $0.matches(bus: bus, vendor: vendor, product: product, name: name, sticks: sticks) } ?? generic
    }

    /// Every built-in profile, hidraw and evdev.
    public static var allBuiltIn: [DeviceProfile] { hidrawBuiltIn + builtIn }
}
