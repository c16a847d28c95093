import Evdev
import HapticCore
import Testing

/// How `RumbleDevice.set` hands a value to the kernel (issue 26 §2), as the data `steps(for:…)` returns
/// — the same decision `set` carries out on a real node (Tests/VM checks what the drivers then send).
@Suite struct UpdateMethodTests {
    let a = MotorMagnitudes(strong: 0xC000, weak: 0x8000)
    let b = MotorMagnitudes(strong: 0x4000, weak: 0x2000)

    func steps(_ m: MotorMagnitudes, from current: MotorMagnitudes, playing: Bool, _ method: DeviceProfile.UpdateMethod,
               keeps: Bool = false) -> [RumbleDevice.Step] {
        RumbleDevice.steps(for: m, current: current, isPlaying: playing, method: method, keepsEffectPlaying: keeps)
    }

    @Test func playSendsEveryValueAsAPlay() {
        // ff-memless sends a play at once; an in-place update would wait for its next jiffy.
        #expect(steps(a, from: .zero, playing: false, .play) == [.upload(a), .play])
        #expect(steps(b, from: a, playing: true, .play) == [.upload(b), .play], "a change of a playing effect is played too")
        #expect(steps(a, from: .zero, playing: true, .play) == [.upload(a), .play])
        #expect(steps(.zero, from: a, playing: true, .play) == [.stop])
    }

    @Test func inPlaceUpdatesAPlayingEffectAndPlaysOnlyFromRest() {
        #expect(steps(a, from: .zero, playing: false, .inPlace) == [.upload(a), .play], "a stopped effect must be started")
        // One report per value, no play; uploaded twice (ff-memless can send the old values for the
        // first when a tick falls inside the upload: RumbleDevice.inPlace).
        #expect(steps(b, from: a, playing: true, .inPlace) == [.upload(b), .upload(b)], "one report per value: no play")
        // From rest (the effect playing a settling re-send's zeros): played, so that a stop right after
        // cannot clear a deferred update before ff-memless sends it (the lost BigBen pulse).
        #expect(steps(a, from: .zero, playing: true, .inPlace) == [.upload(a), .play])
        #expect(steps(.zero, from: a, playing: true, .inPlace) == [.stop])
    }

    @Test func hidNintendoKeepsItsEffectPlayingAndNeverPlaysAgain() {
        // Every play costs hid-nintendo's queue more packets: zero is an upload, a value from zero too.
        let p = DeviceProfile.switchProUSB
        #expect(p.updateMethod == .inPlace && p.keepsEffectPlaying)
        #expect(steps(.zero, from: a, playing: true, p.updateMethod, keeps: true) == [.upload(.zero), .upload(.zero)])
        #expect(steps(a, from: .zero, playing: true, p.updateMethod, keeps: true) == [.upload(a), .upload(a)])
        #expect(steps(b, from: a, playing: true, p.updateMethod, keeps: true) == [.upload(b), .upload(b)])
        #expect(steps(a, from: .zero, playing: false, p.updateMethod, keeps: true) == [.upload(a), .play], "the first value starts it")
    }

    @Test func aRefreshOfAPlayedProfileLeavesTheEffectPlaying() {
        func refresh(_ current: MotorMagnitudes, playing: Bool, _ method: DeviceProfile.UpdateMethod, keeps: Bool = false) -> [RumbleDevice.Step] {
            RumbleDevice.refreshSteps(current: current, isPlaying: playing, method: method, keepsEffectPlaying: keeps)
        }
        // Played profiles do not settle: after an in-place upload alone the effect would be "started
        // but not playing" until ff-memless's next jiffy, and a stop then is lost with nothing to repair it.
        #expect(refresh(a, playing: true, .play) == [.upload(a), .play])
        // In place: one report, the same values (a play would send two); the settling re-send is there.
        #expect(refresh(a, playing: true, .inPlace) == [.upload(a), .upload(a)])
        #expect(refresh(a, playing: false, .inPlace) == [.upload(a), .play])
        // Zero after a stop (the settling re-send): zeros uploaded and played; nothing while playing zeros.
        #expect(refresh(.zero, playing: false, .inPlace) == [.upload(.zero), .play])
        #expect(refresh(.zero, playing: true, .inPlace) == [])
        #expect(refresh(.zero, playing: true, .inPlace, keeps: true) == [.upload(.zero), .upload(.zero)], "hid-nintendo: zeros uploaded again")
    }

    @Test func closingPlaysZeroBeforeTheStop() {
        // A stop right after an in-place upload (shutdown writes zero in place, then closes) is lost in
        // ff-memless; zeros uploaded and played are sent at once, and the stop then aborts a playing effect.
        #expect(RumbleDevice.closeSteps(hasPlayed: true) == [.upload(.zero), .play, .stop])
        #expect(RumbleDevice.closeSteps(hasPlayed: false) == [], "an effect that never played has nothing to silence")
    }

    @Test func aHeldValueIsReSentLongBeforeTheEffectEnds() {
        // The effect's length makes a play one report (ff-memless); the pacer re-sends a held value
        // every `maximumHold`, so the effect never ends by itself while a value is held.
        #expect(RumbleDevice.effectLengthMilliseconds == 0xFFFF)
        #expect(RumbleDevice.effectLength(for: .play) == 0xFFFF)
        #expect(RumbleDevice.effectLength(for: .inPlace) == 0, "an effect kept playing zeros must not end by itself")
        #expect(Double(RumbleDevice.effectLengthMilliseconds) / 1000 > 2 * DeviceProfile.maximumHold)
        #expect(DeviceProfile.builtIn.allSatisfy { $0.refreshPeriod <= DeviceProfile.maximumHold })
    }

    @Test func theProfilesChooseAsMeasured() {
        // docs/devices.md, "The profiles": the VM's METHOD table per driver.
        let inPlace = DeviceProfile.builtIn.filter { $0.updateMethod == .inPlace }.map(\.name)
        #expect(inPlace == ["switch-pro-usb", "switch-pro-bluetooth", "joycon-left-bluetooth", "joycon-right-bluetooth", "joycon-left-usb", "joycon-right-usb"])
        #expect(DeviceProfile.generic.updateMethod == .play, "an unknown pad is driven as SDL drives it")
        // Settling repairs a lost in-place update; a played value cannot be lost that way.
        #expect(DeviceProfile.builtIn.filter(\.settles).map(\.name) == inPlace)
        // The device layer takes the method of the profile that matches the pad.
        let ds = DeviceInfo(path: "/dev/input/event9", name: "DualSense", bus: 0x03, vendor: 0x054C, product: 0x0CE6, version: 1,
                            effectSlots: 16, hasRumble: true, supportsGain: true)
        #expect(ds.profile().name == "dualsense" && ds.profile().updateMethod == .play)
        let sw = DeviceInfo(path: "/dev/input/event8", name: "Pro Controller", bus: 0x05, vendor: 0x057E, product: 0x2009, version: 1,
                            effectSlots: 16, hasRumble: true, supportsGain: true)
        #expect(sw.profile().updateMethod == .inPlace)
    }
}
