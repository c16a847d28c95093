import Evdev
import HapticCore
@testable import HapticDaemon
import Testing

/// The pads the daemon knows (`PadRegistry`), built directly: numbers, unplugging, coming back.
@Suite struct PadRegistryTests {
    func pad(_ path: String, uniq: String? = nil, product: UInt16 = 0x0ce6) -> DeviceInfo {
        DeviceInfo(
            path: path, name: "Test Pad", bus: 3, vendor: 0x054c, product: product, version: 1, uniq: uniq, effectSlots: 16,
            hasRumble: true, supportsGain: false)
    }

    @Test func aPadThatComesBackTakesUpItsNumberAndAnotherGetsANewOne() {
        var pads = PadRegistry()
        let a = pads.attach(pad("/dev/input/event5", uniq: "aa"), profile: .generic, simulated: false)
        let b = pads.attach(pad("/dev/input/event6", uniq: "bb"), profile: .generic, simulated: false)
        #expect(a.id == 0 && !a.reattached && b.id == 1 && !b.reattached)
        #expect(pads.detach(path: "/dev/input/event5") == 0)
        #expect(pads.detach(path: "/dev/input/event5") == nil, "already gone")
        #expect(pads[0]?.connected == false && pads[1]?.connected == true)
        // The same pad at another node: its number again, with its new path.
        let back = pads.attach(pad("/dev/input/event9", uniq: "aa"), profile: .generic, simulated: false)
        #expect(back.id == 0 && back.reattached && pads[0]?.info.path == "/dev/input/event9")
        // Another serial, or another model, is another pad.
        _ = pads.detach(path: "/dev/input/event9")
        #expect(pads.attach(pad("/dev/input/event7", uniq: "cc"), profile: .generic, simulated: false).id == 2)
        #expect(pads.attach(pad("/dev/input/event8", uniq: "aa", product: 0x09cc), profile: .generic, simulated: false).id == 3)
        #expect(pads.ids == [0, 1, 2, 3])
    }

    @Test func aFailedRealPadIsReopenedByPathASimulatedOneIsNot() {
        var pads = PadRegistry()
        let real = pads.attach(pad("/dev/input/event5"), profile: .generic, simulated: false).id
        let simulated = pads.attach(pad("simulated:1", uniq: "sim"), profile: .generic, simulated: true).id
        #expect(pads.failed(real) == "/dev/input/event5")
        #expect(pads[real]?.connected == false)
        #expect(pads.failed(real) == nil, "not connected any more: nothing to reopen")
        #expect(pads.failed(simulated) == nil && pads[simulated]?.connected == true)
    }
}
