import HapticCore
import Testing

/// The drivers' own arithmetic (Linux 6.1), written out from their code, as the judge of the profiles'
/// quantization. The VM test (Tests/VM/drivers-vmtest) checks the same against the real drivers.
enum Driver {
    /// hid-playstation / hid-sony / hid-bigbenff strong motor: `magnitude / 256`.
    static func div256(_ m: UInt16) -> Int { Int(m / 256) }
    /// xpad, Xbox One GIP packet: `magnitude >> 9`.
    static func shift9(_ m: UInt16) -> Int { Int(m >> 9) }
    /// hid-microsoft `ms_play_effect`: `magnitude * 100 / U16_MAX`.
    static func percent(_ m: UInt16) -> Int { Int(UInt32(m) * 100 / 65535) }
    /// hid-bigbenff weak motor: `weak_magnitude ? 1 : 0`.
    static func nonzero(_ m: UInt16) -> Int { m != 0 ? 1 : 0 }
    /// hid-sony DualShock 3 weak motor: `sc->right = weak / 256; right_motor_on = sc->right ? 1 : 0`.
    static func div256nonzero(_ m: UInt16) -> Int { m / 256 != 0 ? 1 : 0 }
    /// hid-nintendo: `amp = magnitude * 1003 / 65535`, then `joycon_find_rumble_amp`'s loop; the
    /// table amplitude of the step it picks.
    static func nintendo(_ m: UInt16) -> Int {
        let amp = UInt32(m) * 1003 / 65535
        let table = DeviceProfile.switchAmplitudes.map(UInt32.init)
        var i = 0
        if amp > table[0] {
            i = 1
            while i < table.count - 1 {
                if amp > table[i - 1] && amp <= table[i] { break }
                i += 1
            }
        }
        return Int(table[i])
    }
}

@Suite struct DeviceProfileTests {
    /// Every quantization: the level it reports is the driver's for every 16-bit magnitude; its
    /// representative is a fixed point that the driver turns into the same level; and different levels
    /// have different representatives, so the pacer writes exactly when the pad would play something else.
    @Test(arguments: [
        (DeviceProfile.Quantization.bits8, Driver.div256), (.bits7, Driver.shift9), (.percent, Driver.percent), (.switchAmplitude, Driver.nintendo),
        (.onOff, Driver.nonzero), (.onOffBits8, Driver.div256nonzero),
    ] as [(DeviceProfile.Quantization, @Sendable (UInt16) -> Int)])
    func quantizationIsTheDrivers(_ q: DeviceProfile.Quantization, _ driver: @Sendable (UInt16) -> Int) {
        var representativeOf: [Int: UInt16] = [:]
        var wrong = 0
        for m in UInt16.min...UInt16.max {
            let r = q.apply(m)
            if q.level(m) != driver(m) || driver(r) != driver(m) || q.apply(r) != r { wrong += 1 }
            if let known = representativeOf[driver(m)], known != r { wrong += 1 }
            representativeOf[driver(m)] = r
        }
        #expect(wrong == 0, "\(q.rawValue): \(wrong) magnitudes disagree with the driver")
        #expect(Set(representativeOf.values).count == representativeOf.count, "\(q.rawValue): one representative per level")
        #expect(q.apply(0) == 0 && q.apply(0xFFFF) == 0xFFFF, "\(q.rawValue): zero stays zero, full scale full scale")
    }

    @Test func switchAmplitudeRepresentsEachOfTheDriversHundredAndOneSteps() {
        let q = DeviceProfile.Quantization.switchAmplitude
        let steps = Set((UInt16.min...UInt16.max).map { q.level($0) })
        #expect(steps.count == 101, "every table step is reachable")
        #expect(q.level(65) == 0, "below 1/1003 of full scale the pad plays nothing")
        #expect(q.level(66) == 10, "the first step is amplitude 10")
        // A step's representative carries exactly the step's own amplitude (1003 = 65535).
        for m in stride(from: UInt16(0), to: 65535, by: 97) {
            #expect(Int(UInt32(q.apply(m)) * 1003 / 65535) == q.level(m))
        }
        // Non-linear: 16 steps below amplitude 117, then steps of 5…22.
        #expect(q.apply(6000) == q.apply(6050) && q.apply(59500) == q.apply(60000) && q.apply(60000) != q.apply(60200))
    }

    @Test func profilesMatchTheirPadsOnBothBuses() {
        let cases: [(UInt16, UInt16, UInt16, String)] = [
            (0x03, 0x054C, 0x0CE6, "dualsense"), (0x03, 0x054C, 0x0DF2, "dualsense"),
            (0x05, 0x054C, 0x0CE6, "dualsense-bluetooth"), (0x05, 0x054C, 0x0DF2, "dualsense-bluetooth"),
            (0x03, 0x054C, 0x05C4, "dualshock4"), (0x03, 0x054C, 0x09CC, "dualshock4"), (0x03, 0x054C, 0x0BA0, "dualshock4"),
            (0x05, 0x054C, 0x05C4, "dualshock4-bluetooth"), (0x05, 0x054C, 0x09CC, "dualshock4-bluetooth"),
            (0x03, 0x054C, 0x0268, "dualshock3"), (0x05, 0x054C, 0x0268, "dualshock3-bluetooth"),
            (0x03, 0x146B, 0x0902, "bigben"),
            (0x03, 0x057E, 0x2009, "switch-pro-usb"), (0x05, 0x057E, 0x2009, "switch-pro-bluetooth"),
            (0x05, 0x045E, 0x0B13, "xbox-bluetooth"), (0x05, 0x045E, 0x02FD, "xbox-bluetooth"),
            (0x03, 0x146B, 0x0903, "generic"),
        ]
        for (bus, vendor, product, name) in cases {
            #expect(DeviceProfile.forDevice(bus: bus, vendor: vendor, product: product).name == name, "\(bus) \(vendor):\(product)")
        }
        #expect(Set(DeviceProfile.builtIn.map(\.name)).count == DeviceProfile.builtIn.count, "profile names are unique")
    }

    /// The hid-nintendo profiles, from the measurements in docs/devices.md: a value costs two packets
    /// (the ring sends the previous one first), each 25 ms or more apart and gated on the pad's input
    /// reports, so a value may come only every two packets; zero goes to the playing effect; the value
    /// is re-sent before the driver's five resends run out (5 × 50 ms).
    @Test func switchProfilesPaceForTheDriversRingAndResend() {
        for p in [DeviceProfile.switchProUSB, .switchProBluetooth, .joyConLeftBluetooth, .joyConRightBluetooth] {
            #expect(p.quantization == .switchAmplitude && p.weakQuantization == nil)
            #expect(p.minimumUpdateInterval >= 2 * 0.033, "\(p.name): two packets per value")
            #expect(p.keepsEffectPlaying)
            #expect(p.refreshInterval.map { $0 < 0.25 } == true, "\(p.name): refreshed before the resends stop")
        }
        #expect(DeviceProfile.switchProBluetooth.minimumUpdateInterval >= DeviceProfile.switchProUSB.minimumUpdateInterval,
                "input reports come every 15 ms over Bluetooth, 8 ms over USB")
        #expect(DeviceProfile.builtIn.filter(\.keepsEffectPlaying).map(\.name)
                == ["switch-pro-usb", "switch-pro-bluetooth", "joycon-left-bluetooth", "joycon-right-bluetooth", "joycon-left-usb", "joycon-right-usb"])
        // A Joy-Con alone is hid-nintendo's code over Bluetooth: the Pro's pacing there.
        for p in [DeviceProfile.joyConLeftBluetooth, .joyConRightBluetooth] {
            #expect(p.minimumUpdateInterval == DeviceProfile.switchProBluetooth.minimumUpdateInterval, "\(p.name)")
            #expect(p.refreshInterval == DeviceProfile.switchProBluetooth.refreshInterval && p.updateMethod == .inPlace && p.settles)
        }
    }

    @Test func everyProfilesShortestPulseOutlastsItsInterval() {
        for p in DeviceProfile.builtIn {
            #expect(p.transientPulse.minimum >= p.minimumUpdateInterval, "\(p.name)")
            #expect(p.pulseLength(sharpness: 1) >= p.minimumUpdateInterval, "\(p.name)")
        }
    }

    @Test func quantizeAppliesEachMotorsOwnQuantization() {
        let m = MotorMagnitudes(strong: 0x1234, weak: 0x00FF)
        #expect(DeviceProfile.dualShock3.quantize(m) == MotorMagnitudes(strong: 0x1212, weak: 0))
        #expect(DeviceProfile.bigben.quantize(m) == MotorMagnitudes(strong: 0x1212, weak: 0xFFFF))
        #expect(DeviceProfile.dualSense.quantize(m) == MotorMagnitudes(strong: 0x1212, weak: 0))
        #expect(DeviceProfile.generic.quantize(m) == m)
    }
}
