import Foundation
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

    // A Joy-Con alone (docs/devices.md, "Joy-Cons"): one actuator, a handle of its own side.

    @Test func aJoyConAloneHasItsOwnSideOnly() {
        for (actuators, side, other) in [
            (DeviceProfile.Actuators.leftMotor, "leftHandle", Locality.rightHandle), (.hdRumbleLeft, "leftHandle", .rightHandle),
            (.rightMotor, "rightHandle", .leftHandle), (.hdRumbleRight, "rightHandle", .leftHandle),
        ] {
            #expect(Locality.supported(by: actuators).map(\.rawValue) == ["default", "all", "handles", side], "\(actuators)")
            #expect(other.route(for: actuators) == nil, "\(actuators) has no \(other)")
            #expect(Locality.triggers.route(for: actuators) == nil)
        }
    }

    @Test func aJoyConThroughTheKernelPlaysEverythingOnTheMotorItFeels() throws {
        let left = DeviceProfile.joyConLeftBluetooth, right = DeviceProfile.joyConRightBluetooth
        // hid-nintendo sends strong to the report's left half, weak to the right: a Joy-Con (L) feels
        // only strong, (R) only weak — so a sharp pattern, which a two-motor pad puts mostly on the
        // weak motor, goes whole to the one each has.
        let sharp = HapticPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 0.6, sharpness: 1))])
        for (profile, expected) in [(left, MotorMagnitudes(strong: 39321, weak: 0)), (right, MotorMagnitudes(strong: 0, weak: 39321))] {
            for locality in Locality.supported(by: profile.actuators) {
                let e = try engine(locality, profile)
                try e.start(e.makePlayer(sharp))
                clock.now = 0.5
                #expect(e.render() == expected, "\(profile.name) \(locality)")
                clock.now = 0
            }
        }
        // A game's rumble folds onto the one motor: the stronger of its pair, whichever motor it chose.
        for (profile, pair, expected) in [
            (left, (0.0, 0.5), MotorMagnitudes(strong: 32768, weak: 0)), (right, (0.8, 0.2), MotorMagnitudes(strong: 0, weak: 52428)),
            (right, (0.1, 0.3), MotorMagnitudes(strong: 0, weak: 19661)),
        ] {
            let e = try engine(.default, profile)
            try e.start(e.makeRumble(strong: pair.0, weak: pair.1, duration: 0.5))
            clock.now = 0.1
            #expect(e.render() == expected, "\(profile.name) rumble \(pair)")
            clock.now = 0
        }
    }

    @Test func aJoyConThroughItsReportsIsOneHDActuator() throws {
        let left = DeviceProfile.joyConLeftBluetoothHD, right = DeviceProfile.joyConRightBluetoothHD
        #expect(try rendered(.default, left) == MotorMagnitudes(strong: 27804, weak: 27804), "crossfaded into its one actuator's bands")
        #expect(try rendered(.leftHandle, left) == MotorMagnitudes(strong: 27804, weak: 27804))
        #expect(try rendered(.handles, right) == MotorMagnitudes(strong: 27804, weak: 27804), "the first pair, on either side")
        #expect(try rendered(.rightHandle, right) == MotorMagnitudes(strong: 27804, weak: 27804))
        // A rumble: low band ← strong, high band ← weak, as SDL plays one on a Joy-Con.
        let e = try engine(.default, right)
        try e.start(e.makeRumble(strong: 0.8, weak: 0.2, duration: 0.5))
        clock.now = 0.1
        #expect(e.render() == MotorMagnitudes(strong: 52428, weak: 13107))
    }

    @Test func joyConsAreFoundByTheirOwnIDs() {
        let bt = DeviceProfile.busBluetooth
        #expect(DeviceProfile.forDevice(bus: bt, vendor: 0x057E, product: 0x2006).name == "joycon-left-bluetooth")
        #expect(DeviceProfile.forDevice(bus: bt, vendor: 0x057E, product: 0x2007).name == "joycon-right-bluetooth")
        let hidraw = DeviceProfile.hidrawBuiltIn
        #expect(hidraw.first { $0.matches(bus: bt, vendor: 0x057E, product: 0x2006) }?.name == "joycon-left-bluetooth-hd")
        #expect(hidraw.first { $0.matches(bus: bt, vendor: 0x057E, product: 0x2007) }?.name == "joycon-right-bluetooth-hd")
        for p in [DeviceProfile.joyConLeftBluetoothHD, .joyConRightBluetoothHD] {
            #expect(DeviceProfile.named(p.evdevFallback ?? "")?.matches(bus: bt, vendor: 0x057E, product: p.matches[0].product) == true,
                    "\(p.name) falls back to the evdev profile of the same pad")
        }
    }

    /// The charging grip's two Joy-Cons share one USB ID (057E:200E); hid-nintendo gives each the stick
    /// of the type the Joy-Con reports, and that is what tells them apart — on Linux 6.8 and later
    /// both carry the grip's own name.
    @Test func joyConsInTheChargingGripAreFoundByTheirSticks() {
        let usb = DeviceProfile.busUSB
        func profile(_ name: String, _ sticks: DeviceProfile.Sticks?) -> String {
            DeviceProfile.forDevice(bus: usb, vendor: 0x057E, product: 0x200E, name: name, sticks: sticks).name
        }
        // 6.1's names, and 6.8's (the grip's product string for both halves): the sticks decide.
        for (left, right) in [("Nintendo Switch Left Joy-Con (Grip)", "Nintendo Switch Right Joy-Con (Grip)"),
                              ("Nintendo Co., Ltd. Nintendo Switch Charging Grip", "Nintendo Co., Ltd. Nintendo Switch Charging Grip")] {
            #expect(profile(left, .left) == "joycon-left-usb")
            #expect(profile(right, .right) == "joycon-right-usb")
        }
        // A grip's half with both sticks, none, or sticks not known is not guessed at: the generic profile.
        #expect(profile("Nintendo Switch Left Joy-Con (Grip)", [.left, .right]) == "generic")
        #expect(profile("Nintendo Switch Left Joy-Con (Grip)", []) == "generic")
        #expect(profile("Nintendo Switch Left Joy-Con (Grip)", nil) == "generic")
        // Over Bluetooth a Joy-Con's own ID is enough, whatever it reports.
        #expect(DeviceProfile.forDevice(bus: DeviceProfile.busBluetooth, vendor: 0x057E, product: 0x2006, sticks: .left).name
                == "joycon-left-bluetooth")
        #expect(DeviceProfile.forDevice(bus: DeviceProfile.busBluetooth, vendor: 0x057E, product: 0x2006).name == "joycon-left-bluetooth")
        let hidraw = DeviceProfile.hidrawBuiltIn
        #expect(hidraw.first { $0.matches(bus: usb, vendor: 0x057E, product: 0x200E, sticks: .left) }?.name == "joycon-left-usb-hd")
        #expect(hidraw.first { $0.matches(bus: usb, vendor: 0x057E, product: 0x200E, sticks: .right) }?.name == "joycon-right-usb-hd")
        #expect(DeviceProfile.joyConLeftUSBHD.actuators == .hdRumbleLeft && DeviceProfile.joyConRightUSBHD.actuators == .hdRumbleRight)
        #expect(DeviceProfile.joyConLeftUSB.actuators == .leftMotor && DeviceProfile.joyConRightUSB.actuators == .rightMotor)
        for (p, sticks) in [(DeviceProfile.joyConLeftUSBHD, DeviceProfile.Sticks.left), (.joyConRightUSBHD, .right)] {
            // The Pro's USB pacing and reports; the fallback is the same half through hid-nintendo.
            #expect(p.minimumUpdateInterval == DeviceProfile.switchProUSBHD.minimumUpdateInterval && p.reports == .switchHDRumble)
            #expect(DeviceProfile.named(p.evdevFallback ?? "")?.matches(bus: usb, vendor: 0x057E, product: 0x200E, sticks: sticks) == true,
                    "\(p.name) falls back to the evdev profile of the same half")
            #expect(p.displayName.contains("charging grip"), "\(p.displayName)")
        }
        #expect(DeviceProfile.joyConLeftUSB.minimumUpdateInterval == DeviceProfile.switchProUSB.minimumUpdateInterval)
        // Codable: a match without the newer fields reads as before.
        let old = #"{"vendor":1406,"product":8201,"bus":3}"#
        #expect((try? JSONDecoder().decode(DeviceProfile.Match.self, from: Data(old.utf8))) == .init(bus: 3, vendor: 0x057E, product: 0x2009))
    }

    /// What a layout says it drives (`channels`, which the pipeline's lost-value walk reads) is where
    /// every one of its localities puts a pattern and a rumble, and no more.
    @Test func everyLocalityStaysOnItsLayoutsChannels() throws {
        for actuators in DeviceProfile.Actuators.allCases {
            let profile = DeviceProfile(name: "t", displayName: "t", minimumUpdateInterval: 0.010, actuators: actuators)
            var reached: UInt8 = 0
            for locality in Locality.supported(by: actuators) {
                let route = try #require(locality.route(for: actuators))
                var outputs = [try rendered(locality, profile)]
                outputs.append(route.place(strong: 0xC000, weak: 0x4000))
                for m in outputs {
                    let mask: UInt8 = (m.strong > 0 ? 1 : 0) | (m.weak > 0 ? 2 : 0) | (m.third > 0 ? 4 : 0) | (m.fourth > 0 ? 8 : 0)
                    #expect(mask & ~actuators.channels == 0, "\(actuators) \(locality): \(m)")
                    reached |= mask
                }
            }
            #expect(reached == actuators.channels, "\(actuators): every channel it has is reached by some locality")
        }
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
