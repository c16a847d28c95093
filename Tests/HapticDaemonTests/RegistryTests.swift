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
        // The same device back through another backend (other actuators, another profile): a new
        // number, and the one it replaces is gone from the order (pad 0 is unplugged above).
        let other = pads.attach(pad("/dev/hidraw2", uniq: "aa"), profile: .dualShock4, simulated: false)
        #expect(other.id == 4 && other.replaced == 0 && !other.reattached)
        #expect(pads.ids == [1, 2, 3, 4] && pads[0] == nil)
        #expect(!pads.isConnected(0) && pads.isConnected(4) && pads.isConnected(1))
    }

    /// The charging grip's two Joy-Cons: one ID, and from Linux 6.8 on one name; without a serial
    /// only their sticks tell which of them comes back.
    @Test func theGripsTwoJoyConsAreTwoPadsByTheirSticks() {
        func half(_ path: String, _ sticks: DeviceProfile.Sticks) -> DeviceInfo {
            DeviceInfo(path: path, name: "Nintendo Co., Ltd. Nintendo Switch Charging Grip", bus: 3, vendor: 0x057E, product: 0x200E,
                       version: 1, uniq: "", effectSlots: 16, hasRumble: true, supportsGain: false, sticks: sticks)
        }
        var pads = PadRegistry()
        let left = pads.attach(half("/dev/input/event5", .left), profile: .joyConLeftUSB, simulated: false)
        let right = pads.attach(half("/dev/input/event6", .right), profile: .joyConRightUSB, simulated: false)
        #expect(left.id == 0 && right.id == 1)
        _ = pads.detach(path: "/dev/input/event5")
        _ = pads.detach(path: "/dev/input/event6")
        // Plugged in again, the right one first: each takes up its own number.
        #expect(pads.attach(half("/dev/input/event9", .right), profile: .joyConRightUSB, simulated: false).id == 1)
        #expect(pads.attach(half("/dev/input/event8", .left), profile: .joyConLeftUSB, simulated: false).id == 0)
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

/// Who may hold another player (`PlayerRegistry.requireRoom`), with the registries built directly.
@Suite struct PlayerRoomTests {
    @Test func playersAreBoundedPerConnectionPerUserAndForTheDaemon() throws {
        var config = DaemonConfig()
        config.limits.maxPlayersPerClient = 2
        config.limits.maxPlayersPerUID = 3
        config.limits.maxPlayers = 4
        var clients = ClientRegistry(), players = PlayerRegistry()
        let alice = PeerCredentials(pid: 0, uid: 1000, gid: 1000), bob = PeerCredentials(pid: 0, uid: 1001, gid: 1001)
        let a1 = try clients.admit(alice, app: "a", outlet: LinesOutlet(lines: Lines()), config: config).get()
        let a2 = try clients.admit(alice, app: "a", outlet: LinesOutlet(lines: Lines()), config: config).get()
        let b1 = try clients.admit(bob, app: "b", outlet: LinesOutlet(lines: Lines()), config: config).get()
        func give(_ client: ClientID, _ uid: UInt32) throws {
            try players.requireRoom(for: clients.byID[client]!, config.limits)
            let id = players.add(pad: 0, locality: .default, local: players.count, owner: client, ownerUID: uid, kind: .created, app: "x")
            clients.addPlayer(id, to: client)
        }
        func refusal(_ client: ClientID, adopting: Bool = false) -> String? {
            do {
                try players.requireRoom(for: clients.byID[client]!, config.limits, adopting: adopting)
                return nil
            } catch {
                return error.code == .limitExceeded ? error.message : "\(error)"
            }
        }
        try give(a1, 1000)
        try give(a1, 1000)
        #expect(refusal(a1)?.contains("limits.max_players_per_client") == true)
        try give(a2, 1000)
        #expect(refusal(a2)?.contains("limits.max_players_per_uid") == true, "alice's third player is her user's last")
        #expect(refusal(a2, adopting: true) == nil, "an orphan already counts for its user")
        try give(b1, 1001)
        #expect(players.count == 4)
        #expect(refusal(b1)?.contains("limits.max_players)") == true, "the daemon is full")
    }
}
