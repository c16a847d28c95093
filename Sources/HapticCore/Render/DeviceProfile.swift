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
        public init(bus: UInt16? = nil, vendor: UInt16, product: UInt16) {
            self.bus = bus
            self.vendor = vendor
            self.product = product
        }
    }

    /// How the driver reduces a 16-bit magnitude before it reaches the motor.
    public enum Quantization: String, Equatable, Sendable, Codable {
        /// 0…65535 reach the pad unchanged.
        case full
        /// 8-bit motors (magnitude / 256): PlayStation pads, Xbox 360.
        case bits8
        /// 0…100 (Xbox One/Series through xpad and xpadneo).
        case percent

        /// The 16-bit magnitude that represents what the pad will actually play, so that two values
        /// the pad cannot tell apart compare equal.
        public func apply(_ m: UInt16) -> UInt16 {
            switch self {
            case .full: return m
            case .bits8: return m & 0xFF00 | (m >> 8)  // 0xAB.. → 0xABAB: full scale stays full scale
            case .percent:
                let level = (UInt32(m) * 100 + 32767) / 65535
                return UInt16((level * 65535 + 50) / 100)
            }
        }
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
    public var quantization: Quantization
    /// Pads that stop on their own need the current value re-sent this often (seconds); nil: never.
    public var refreshInterval: Double?
    public var transientPulse: TransientPulse
    /// Lowest magnitude (0…1) at which each motor still spins; non-zero output is lifted above it.
    public var strongFloor: Double
    public var weakFloor: Double

    public init(
        name: String, displayName: String, matches: [Match] = [], minimumUpdateInterval: Double,
        quantization: Quantization = .full, refreshInterval: Double? = nil,
        transientPulse: TransientPulse = .init(sharp: 0.030, dull: 0.080, minimum: 0.020),
        strongFloor: Double = 0, weakFloor: Double = 0
    ) {
        self.name = name
        self.displayName = displayName
        self.matches = matches
        self.minimumUpdateInterval = minimumUpdateInterval
        self.quantization = quantization
        self.refreshInterval = refreshInterval
        self.transientPulse = transientPulse
        self.strongFloor = strongFloor
        self.weakFloor = weakFloor
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

    /// Whether this profile is meant for the device with these ids.
    public func matches(bus: UInt16, vendor: UInt16, product: UInt16) -> Bool {
        matches.contains { ($0.bus == nil || $0.bus == bus) && $0.vendor == vendor && $0.product == product }
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
        minimumUpdateInterval: 0.008, quantization: .bits8,
        transientPulse: .init(sharp: 0.030, dull: 0.080, minimum: 0.016), strongFloor: 0.08, weakFloor: 0.08)

    public static let xboxOneUSB = DeviceProfile(
        name: "xbox-one-usb", displayName: "Xbox One / Series over USB (xpad)",
        matches: [0x02D1, 0x02DD, 0x02E3, 0x02EA, 0x0B00, 0x0B12].map {
            .init(bus: busUSB, vendor: 0x045E, product: $0)
        },
        minimumUpdateInterval: 0.008, quantization: .percent,
        transientPulse: .init(sharp: 0.030, dull: 0.080, minimum: 0.016), strongFloor: 0.06, weakFloor: 0.06)

    public static let xboxBluetooth = DeviceProfile(
        name: "xbox-bluetooth", displayName: "Xbox One / Series over Bluetooth (xpadneo)",
        matches: [0x02E0, 0x02FD, 0x0B05, 0x0B13, 0x0B20, 0x0B22].map {
            .init(bus: busBluetooth, vendor: 0x045E, product: $0)
        },
        // Firmware takes about 100 updates/s; older firmware wants 20–50 ms gaps.
        minimumUpdateInterval: 0.020, quantization: .percent,
        transientPulse: .init(sharp: 0.040, dull: 0.090, minimum: 0.040), strongFloor: 0.06, weakFloor: 0.06)

    public static let dualShock4 = DeviceProfile(
        name: "dualshock4", displayName: "DualShock 4 (hid-playstation)",
        matches: [0x05C4, 0x09CC, 0x0BA0].flatMap { p in
            [busUSB, busBluetooth].map { DeviceProfile.Match(bus: $0, vendor: 0x054C, product: p) }
        },
        // No kernel rate limit, but every write is a HID report; SDL resends every 2 s.
        minimumUpdateInterval: 0.010, quantization: .bits8, refreshInterval: 2.0)

    public static let dualSense = DeviceProfile(
        name: "dualsense", displayName: "DualSense (hid-playstation)",
        matches: [0x0CE6, 0x0DF2].flatMap { p in
            [busUSB, busBluetooth].map { DeviceProfile.Match(bus: $0, vendor: 0x054C, product: p) }
        },
        minimumUpdateInterval: 0.010, quantization: .bits8)

    public static let switchProUSB = DeviceProfile(
        name: "switch-pro-usb", displayName: "Switch Pro Controller over USB (hid-nintendo)",
        matches: [.init(bus: busUSB, vendor: 0x057E, product: 0x2009)],
        // One rumble packet per 20 ms; faster only fills the driver's 8-deep queue.
        minimumUpdateInterval: 0.020,
        transientPulse: .init(sharp: 0.040, dull: 0.080, minimum: 0.040))

    public static let switchProBluetooth = DeviceProfile(
        name: "switch-pro-bluetooth", displayName: "Switch Pro Controller over Bluetooth (hid-nintendo)",
        matches: [.init(bus: busBluetooth, vendor: 0x057E, product: 0x2009)],
        minimumUpdateInterval: 0.060,
        transientPulse: .init(sharp: 0.060, dull: 0.120, minimum: 0.060))

    /// Built-in profiles, most specific first; `generic` last.
    public static let builtIn: [DeviceProfile] = [
        xbox360, xboxOneUSB, xboxBluetooth, dualShock4, dualSense, switchProUSB, switchProBluetooth, generic,
    ]

    public static func named(_ name: String, in profiles: [DeviceProfile] = builtIn) -> DeviceProfile? {
        profiles.first { $0.name == name }
    }

    /// The profile for a device, or `generic`.
    public static func forDevice(
        bus: UInt16, vendor: UInt16, product: UInt16, in profiles: [DeviceProfile] = builtIn
    ) -> DeviceProfile {
        profiles.first { $0.matches(bus: bus, vendor: vendor, product: product) } ?? generic
    }
}
