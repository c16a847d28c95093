/// Xbox One / Series controllers over Bluetooth: the four motors — both handles and the two
/// impulse-trigger motors — in one output report `0x03` on the pad's hidraw node, which hid-microsoft
/// sends with the trigger bytes always 0.
///
/// `03 EN LT RT S W DUR DELAY LOOP`: `EN` enables motors (bit 0 the weak, right-handle motor; bit 1
/// the strong, left-handle one; bit 2 the right trigger; bit 3 the left trigger); each magnitude is
/// 0…100; `DUR` 0xFF holds the value until the next report, `DELAY` 0, `LOOP` 0xEB (as SDL sends it).
/// Pure: inputs saturate into 0…1 (NaN reads as 0).
public enum XboxImpulseTriggers {
    public struct Motors: Equatable, Sendable {
        public var leftTrigger: Double
        public var rightTrigger: Double
        public var strong: Double
        public var weak: Double
        public init(leftTrigger: Double = 0, rightTrigger: Double = 0, strong: Double = 0, weak: Double = 0) {
            self.leftTrigger = leftTrigger
            self.rightTrigger = rightTrigger
            self.strong = strong
            self.weak = weak
        }
        public static let off = Motors()
    }

    /// A magnitude 0…1 as the report's 0…100, rounded up so that any non-zero value moves the motor.
    static func percent(_ x: Double) -> UInt8 {
        guard !x.isNaN, x > 0 else { return 0 }
        return UInt8((min(x, 1) * 100).rounded(.up))
    }

    /// The 9-byte report driving all four motors.
    public static func report(_ m: Motors) -> [UInt8] {
        [0x03, 0x0F, percent(m.leftTrigger), percent(m.rightTrigger), percent(m.strong), percent(m.weak), 0xFF, 0x00, 0xEB]
    }

    /// Reads a report back (the tests' emulated pad); nil when it is not a rumble report. A motor whose
    /// enable bit is clear reads as 0.
    public static func decode(_ bytes: some Collection<UInt8>) -> Motors? {
        let b = Array(bytes)
        guard b.count >= 6, b[0] == 0x03 else { return nil }
        func v(_ i: Int, _ bit: UInt8) -> Double { b[1] & bit == 0 ? 0 : Double(min(b[i], 100)) / 100 }
        return Motors(leftTrigger: v(2, 0x08), rightTrigger: v(3, 0x04), strong: v(4, 0x02), weak: v(5, 0x01))
    }
}
