import Evdev
import HapticCore
@testable import HapticDaemon
import HapticProtocol
import Testing

/// A daemon's state built directly, as `DaemonCore` holds it but with no socket and no core: a
/// `DaemonState` (with the built-in patterns), a render loop with simulated pads for the engines, and
/// clients whose events are recorded.
final class StateBench: @unchecked Sendable {
    // @unchecked Sendable: `state` is touched only under the render loop's lock — inside `perform` and
    // in the loop's event handler — as in `DaemonCore`.
    let state: DaemonState
    let loop = RenderLoop()

    init(config: DaemonConfig = DaemonConfig(), pads: Int = 1, profile: DeviceProfile = .generic) {
        state = DaemonState(config: config, library: PatternLibrary.load(directories: [], limits: config.patternLimits, builtIns: true))
        loop.setEventHandler { [weak self] event in self?.state.apply(event) }
        for i in 0..<pads { addPad(SimulatedPad(index: i), profile: profile) }
    }

    deinit { loop.shutdown() }

    @discardableResult
    func addPad(_ pad: SimulatedPad, profile: DeviceProfile = .generic) -> PadID {
        let (id, config) = loop.perform(ticking: false) { _ in
            (state.pads.attach(pad.info, profile: profile, simulated: true).id, state.config)
        }
        loop.addPad(id, sink: pad, profile: profile) { config.configure($0) }
        return id
    }

    /// A connection of `peer`, its events kept in `events`.
    func connect(_ peer: PeerCredentials?, events: Lines = Lines()) throws -> ClientID {
        try loop.perform(ticking: false) { _ in
            try state.clients.admit(peer, app: "test", outlet: LinesOutlet(lines: events), config: state.config).get()
        }
    }

    /// One request line as the daemon runs it: decoded through its declaration, then
    /// `DaemonState.dispatch` (who may send it, then its handler) under the render loop's lock.
    func send(_ line: String, from client: ClientID) throws -> Result<JSONObject, ProtocolError> {
        let request = try Request.parse(line)
        let type = Declarations.requestType(Command(rawValue: request.command)!)
        let context = loop.perform(ticking: false) { _ in state.config.decodingContext }
        let decoded = Result<any CommandRequest, ProtocolError> { () throws(ProtocolError) in try type.decode(request, context: context) }
        return loop.perform { access in
            Result { () throws(ProtocolError) in
                try state.dispatch(type.declaration, request, decoded, CommandContext(client: state.clients[client]!, access: access))
            }.map { state.finishReply($0) }
        }
    }

    /// `send`, which must succeed.
    func ok(_ line: String, from client: ClientID) throws -> JSONObject { try send(line, from: client).get() }

    /// A handler called directly, without `dispatch`.
    func run(_ command: some DaemonCommand, from client: ClientID) -> Result<JSONObject, ProtocolError> {
        loop.perform { access in
            Result { () throws(ProtocolError) in try command.run(state, CommandContext(client: state.clients[client]!, access: access)) }
                .map { state.finishReply($0) }
        }
    }

    /// Reads the state and the engines under the render loop's lock.
    func read<T>(_ body: (DaemonState, RenderLoop.PadAccess) throws -> T) rethrows -> T {
        try loop.perform(ticking: false) { access in try body(state, access) }
    }

    /// A player's phase on its engine; nil when the daemon or the engine no longer has it.
    func phase(_ player: Int) -> PlayerStatus.Phase? {
        read { state, access in
            guard let rec = state.players[player] else { return nil }
            return try? access.engine(rec.pad, rec.locality)?.status(rec.local).phase
        }
    }

    /// `play` of a pattern that lasts long enough to be playing throughout a test: its player's number.
    func playLong(from client: ClientID) throws -> Int {
        let result = try ok(#"{"id":1,"cmd":"play","pattern":\#(Self.long)}"#, from: client)
        guard case .number(let id)? = result["player"] else { throw ProtocolError(.badRequest, "no player in \(result)") }
        return Int(id)
    }

    static let long = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":60}}]}"#
}

extension PeerCredentials {
    static let alice = PeerCredentials(pid: 0, uid: 1000, gid: 1000)
    static let bob = PeerCredentials(pid: 0, uid: 1001, gid: 1001)
    static let root = PeerCredentials(pid: 0, uid: 0, gid: 0)
}

/// The handlers of every family, run on a `DaemonState` built directly.
@Suite struct DaemonStateTests {
    // MARK: players

    @Test func playMakesAPlayerOwnedByItsClient() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice)
        let request = try PlayRequest.decode(Request.parse(#"{"id":1,"cmd":"play","pattern":\#(StateBench.long)}"#))
        let result = try bench.run(request, from: a).get()
        #expect(result["player"] == .number(1) && result["device"] == .number(0) && result["locality"] == .string("default"))
        #expect(result["state"] == .string("playing"), "\(result)")
        bench.read { state, access in
            let rec = state.players[1]
            #expect(rec?.owner == a && rec?.ownerUID == 1000 && rec?.kind == .play && rec?.app == "test")
            #expect(state.clients[a]?.players == [1])
            #expect(access.engine(0)?.playerIDs.count == 1)
        }
        #expect(bench.phase(1) == .playing)
    }

    @Test func anotherClientsPlayerIsOffLimitsAndDestroyLeavesNoTrace() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice), b = try bench.connect(.bob)
        let created = try bench.ok(#"{"id":1,"cmd":"player.create","pattern":\#(StateBench.long)}"#, from: a)
        #expect(created["player"] == .number(1) && created["state"] == .string("idle"), "\(created)")
        #expect(try bench.send(#"{"id":2,"cmd":"player.start","player":1}"#, from: b)
            == .failure(ProtocolError(.permissionDenied, "player 1 belongs to another client")))
        #expect(bench.phase(1) == .idle, "bob's start did nothing")
        #expect(try bench.ok(#"{"id":3,"cmd":"player.start","player":1}"#, from: a)["state"] == .string("playing"))
        let destroyed = try bench.ok(#"{"id":4,"cmd":"player.destroy","player":1}"#, from: a)
        #expect(destroyed["destroyed"] == .bool(true))
        bench.read { state, access in
            #expect(state.players.count == 0 && state.clients[a]?.players.isEmpty == true)
            #expect(access.engine(0)?.playerIDs.isEmpty == true)
        }
        #expect(try bench.send(#"{"id":5,"cmd":"player.start","player":1}"#, from: a) == .failure(ProtocolError(.notFound, "no player 1")))
    }

    @Test func aClosedConnectionsCreatedPlayersGoAndItsOneShotPlaysOnForItsUser() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice)
        _ = try bench.ok(#"{"id":1,"cmd":"player.create","pattern":\#(StateBench.long)}"#, from: a)
        let oneShot = try bench.playLong(from: a)
        bench.read { state, access in state.disconnect(a, access) }
        bench.read { state, _ in
            #expect(state.clients.count == 0)
            #expect(state.players[1] == nil, "a created player stops with its connection")
            #expect(state.players[oneShot]?.owner == nil && state.players[oneShot]?.ownerUID == 1000, "an orphan, still alice's")
        }
        #expect(bench.phase(oneShot) == .playing)
        // Bob may not take it over; alice, on another connection, may.
        let b = try bench.connect(.bob), a2 = try bench.connect(.alice)
        #expect(try bench.send(#"{"id":2,"cmd":"player.stop","player":\#(oneShot)}"#, from: b)
            == .failure(ProtocolError(.permissionDenied, "player \(oneShot) belongs to another client")))
        _ = try bench.ok(#"{"id":3,"cmd":"player.set","player":\#(oneShot),"rate":1.5}"#, from: a2)
        bench.read { state, _ in
            #expect(state.players[oneShot]?.owner == a2 && state.clients[a2]?.players == [oneShot])
        }
    }

    // MARK: engines

    @Test func engineStopStopsThePadsPlayersAndTellsTheOtherClients() throws {
        let bench = StateBench()
        let aliceEvents = Lines(), adminEvents = Lines()
        let a = try bench.connect(.alice, events: aliceEvents), admin = try bench.connect(.root, events: adminEvents)
        _ = try bench.ok(#"{"id":1,"cmd":"subscribe"}"#, from: a)
        let player = try bench.playLong(from: a)
        #expect(try bench.send(#"{"id":2,"cmd":"engine.stop","device":0}"#, from: a) == .failure(ProtocolError(
            .permissionDenied, "engine.stop acts on every client's players of the pad: it needs root or an admin (clients.admin_uids, clients.admin_gids)")))
        #expect(bench.phase(player) == .playing, "a plain client's engine.stop changed nothing")
        let result = try bench.ok(#"{"id":3,"cmd":"engine.stop","device":0}"#, from: admin)
        #expect(result["running"] == .bool(false) && result["device"] == .number(0))
        bench.read { state, access in
            #expect(access.engine(0)?.isRunning == false)
            #expect(state.players[player] == nil, "its one-shot ended with the engine and is gone")
            #expect(state.clients[a]?.players.isEmpty == true)
        }
        let events = aliceEvents.all
        #expect(events.contains { $0.contains(#""event":"engine.stopped""#) && $0.contains(#""by":"engine.stop""#) }, "\(events)")
        #expect(events.contains { $0.contains(#""event":"player.finished""#) && $0.contains(#""reason":"stopped""#) }, "\(events)")
        #expect(adminEvents.all.isEmpty, "the admin subscribed to nothing")
        // Stopped, it refuses to play until an admin starts it again.
        #expect(try bench.send(#"{"id":4,"cmd":"play","name":"impact-heavy"}"#, from: a).map { _ in "ok" }
            == .failure(ProtocolError(.engineStopped, "the device's engine is stopped: an admin must send engine.start (or set engine.idle_shutdown to start on demand)")))
        #expect(try bench.ok(#"{"id":5,"cmd":"engine.start","device":0}"#, from: admin)["running"] == .bool(true))
    }

    @Test func aUsersStopAllStopsOnlyThatUsersPlayersAnAdminsStopsEveryone() throws {
        let bench = StateBench()
        let a1 = try bench.connect(.alice), a2 = try bench.connect(.alice), b = try bench.connect(.bob)
        let p1 = try bench.playLong(from: a1), p2 = try bench.playLong(from: a2), p3 = try bench.playLong(from: b)
        let mine = try bench.ok(#"{"id":1,"cmd":"stop_all"}"#, from: a1)
        #expect(mine["stopped"] == .number(2) && mine["scope"] == .string("user"), "\(mine)")
        #expect(bench.phase(p1) != .playing && bench.phase(p2) != .playing, "both of alice's connections")
        #expect(bench.phase(p3) == .playing, "bob's player plays on")
        let admin = try bench.connect(.root)
        let all = try bench.ok(#"{"id":2,"cmd":"stop_all"}"#, from: admin)
        #expect(all["stopped"] == .number(1) && all["scope"] == .string("all"), "\(all)")
        #expect(bench.phase(p3) != .playing)
    }

    /// The panic button drops a start scheduled for later too: nothing comes on after it.
    @Test func stopAllDropsAStartScheduledForLater() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice)
        let made = try bench.ok(#"{"id":1,"cmd":"player.create","name":"impact-heavy"}"#, from: a)
        guard case .number(let id)? = made["player"] else { Issue.record("\(made)"); return }
        _ = try bench.ok(#"{"id":2,"cmd":"player.start","player":\#(Int(id)),"after":5}"#, from: a)
        #expect(bench.phase(Int(id)) == .scheduled)
        let stopped = try bench.ok(#"{"id":3,"cmd":"stop_all"}"#, from: a)
        #expect(stopped["stopped"] == .number(1), "\(stopped)")
        #expect(bench.phase(Int(id)) == .idle, "nothing left to start")
    }

    @Test func anEngineResetInvalidatesItsPlayers() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice), admin = try bench.connect(.root)
        _ = try bench.ok(#"{"id":1,"cmd":"player.create","pattern":\#(StateBench.long)}"#, from: a)
        let status = try bench.ok(#"{"id":2,"cmd":"engine.status"}"#, from: a)
        #expect(status["my_players"] == .array([.number(1)]) && status["players"] == .number(1), "\(status)")
        _ = try bench.ok(#"{"id":3,"cmd":"engine.reset","device":0}"#, from: admin)
        bench.read { state, _ in #expect(state.players.count == 0 && state.players.isInvalidated(1) && state.clients[a]?.players.isEmpty == true) }
        #expect(try bench.send(#"{"id":4,"cmd":"player.start","player":1}"#, from: a)
            == .failure(ProtocolError(.playerInvalidated, "player 1 was invalidated by an engine reset; create it again")))
    }

    // MARK: policy

    @Test func policySetChangesThePolicyForEveryPadAndClient() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice), admin = try bench.connect(.root)
        let line = #"{"id":1,"cmd":"policy.set","mode":"quiet","max_strength":0.5,"duck":0.1}"#
        #expect(try bench.send(line, from: a).map { _ in "ok" } == .failure(ProtocolError(
            .permissionDenied, "policy.set changes what every client is heard at: it needs root or an admin (clients.admin_uids, clients.admin_gids)")))
        bench.read { state, _ in #expect(state.config.policy == PolicyConfig()) }
        let result = try bench.ok(line, from: admin)
        #expect(result["mode"] == .string("quiet") && result["max_strength"] == .number(0.5) && result["duck"] == .number(0.1))
        bench.read { state, access in
            #expect(state.config.policy.mode == .quiet && state.config.policy.maxStrength == 0.5 && state.config.policy.duck == 0.1)
            #expect(state.shared.withLockedValue { $0.policy } == state.config.policy, "published to the socket threads")
            #expect(access.pipeline(0)?.maxStrength == 0.5 && access.pipeline(0)?.duck == 0.1)
        }
        // Under `quiet`, alice's app is not heard.
        let policy = try bench.ok(#"{"id":2,"cmd":"policy"}"#, from: a)
        #expect(policy["app"]?["heard_at"] == .number(0), "\(policy)")
    }

    @Test func helloNamesTheAppAndAReservedIdStaysReserved() throws {
        var config = DaemonConfig()
        var rule = PolicyConfig.AppRule(id: "org.example.Reader")
        rule.uids = [1001]
        rule.gain = 0.5
        config.policy.apps = [rule]
        let bench = StateBench(config: config)
        let a = try bench.connect(.alice), b = try bench.connect(.bob)
        #expect(try bench.send(#"{"id":1,"cmd":"hello","app":"org.example.Reader"}"#, from: a).map { _ in "ok" }
            == .failure(ProtocolError(.permissionDenied, #"the app id "org.example.Reader" is reserved for users 1001 (policy.app uids)"#)))
        let result = try bench.ok(#"{"id":2,"cmd":"hello","app":"org.example.Reader"}"#, from: b)
        #expect(result["app"] == .string("org.example.Reader") && result["uid"] == .number(1001))
        #expect(result["policy"]?["app"]?["heard_at"] == .number(0.5))
        bench.read { state, _ in #expect(state.clients[b]?.app == "org.example.Reader" && state.clients[a]?.app == "test") }
    }

    // MARK: devices, patterns, feedback and rumble, diagnostics

    @Test func devicesListThePadsAndOnlyAnAdminSetsAGain() throws {
        let bench = StateBench(pads: 2)
        let a = try bench.connect(.alice), admin = try bench.connect(.root)
        let devices = try bench.run(DevicesRequest.decode(Request.parse(#"{"id":1,"cmd":"devices"}"#)), from: a).get()
        guard case .array(let list)? = devices["devices"] else { Issue.record("\(devices)"); return }
        #expect(list.count == 2 && list[1]["device"] == .number(1) && list[1]["simulated"] == .bool(true) && list[1]["gain"] == .number(1))
        #expect(try bench.send(#"{"id":2,"cmd":"gain.set","device":1,"gain":0.25}"#, from: a).map { _ in "ok" }
            == .failure(ProtocolError(.permissionDenied, "gain.set changes the pad for every client: it needs root or an admin (clients.admin_uids, clients.admin_gids)")))
        #expect(try bench.ok(#"{"id":3,"cmd":"gain.set","device":1,"gain":0.25}"#, from: admin)["gain"] == .number(0.25))
        bench.read { _, access in #expect(access.pipeline(1)?.gain == 0.25 && access.pipeline(0)?.gain == 1) }
        #expect(try bench.send(#"{"id":4,"cmd":"capabilities","device":7}"#, from: a).map { _ in "ok" }
            == .failure(ProtocolError(.notFound, "no device 7 (see the devices command)")))
        let capabilities = try bench.ok(#"{"id":5,"cmd":"capabilities","device":1}"#, from: a)
        #expect(capabilities["profile"] == .string("generic") && capabilities["simulated"] == .bool(true))
    }

    @Test func patternsListTheLibrary() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice)
        let result = try bench.run(PatternsRequest.decode(Request.parse(#"{"id":1,"cmd":"patterns"}"#)), from: a).get()
        guard case .array(let list)? = result["patterns"] else { Issue.record("\(result)"); return }
        let heavy = list.first { $0["name"] == .string("impact-heavy") }
        #expect(heavy?["path"] == .string("built-in"), "\(list)")
        #expect(result["problems"] == .array([]))
    }

    @Test func feedbackPlaysItsPatternAndARumbleReplacesTheConnectionsLast() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice)
        let feedback = try bench.ok(#"{"id":1,"cmd":"feedback","type":"impact","style":"heavy"}"#, from: a)
        #expect(feedback["pattern"] == .string("impact-heavy") && feedback["player"] == .number(1), "\(feedback)")
        #expect(try bench.send(#"{"id":2,"cmd":"feedback","type":"bump"}"#, from: a).map { _ in "ok" } != .success("ok"))
        let first = try bench.ok(#"{"id":3,"cmd":"rumble","strong":0.5,"weak":0.25,"duration":30}"#, from: a)
        #expect(first["replaced"] == .bool(false))
        guard case .number(let firstID)? = first["player"] else { Issue.record("\(first)"); return }
        // While it plays, the next one changes it in place: the same player.
        let second = try bench.ok(#"{"id":4,"cmd":"rumble","strong":1,"weak":0,"duration":30}"#, from: a)
        #expect(second["replaced"] == .bool(true) && second["player"] == .number(firstID), "\(second)")
        bench.read { state, _ in
            #expect(state.players[Int(firstID)]?.kind == .rumble)
            #expect(state.clients[a]?.rumble == Int(firstID))
        }
        // A delayed one cannot: it replaces the player.
        let third = try bench.ok(#"{"id":5,"cmd":"rumble","strong":1,"weak":0,"duration":30,"delay":0.5}"#, from: a)
        #expect(third["replaced"] == .bool(true))
        guard case .number(let thirdID)? = third["player"] else { Issue.record("\(third)"); return }
        bench.read { state, _ in
            #expect(thirdID != firstID && state.players[Int(firstID)] == nil && state.players[Int(thirdID)]?.kind == .rumble)
            #expect(state.clients[a]?.rumble == Int(thirdID))
        }
    }

    /// A rumble is a player like any other: its owner hears `player.finished` when 0/0 stops it
    /// (`stopped`) and when the next one replaces it before its delay ran out (`cancelled`) — as for
    /// any player destroyed while active.
    @Test func aRumbleStoppedOrReplacedFinishesLikeAnyPlayer() throws {
        let bench = StateBench()
        let events = Lines()
        let a = try bench.connect(.alice, events: events)
        _ = try bench.ok(#"{"id":1,"cmd":"subscribe"}"#, from: a)
        func finished(_ id: Double, _ reason: String) -> Bool {
            events.all.contains { $0.contains(#""event":"player.finished""#) && $0.contains(#""player":\#(Int(id)),"#) && $0.contains(#""reason":"\#(reason)""#) }
        }
        let first = try bench.ok(#"{"id":2,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":30}"#, from: a)
        guard case .number(let firstID)? = first["player"] else { Issue.record("\(first)"); return }
        _ = try bench.ok(#"{"id":3,"cmd":"rumble","strong":0,"weak":0}"#, from: a)
        #expect(finished(firstID, "stopped"), "\(events.all)")
        let delayed = try bench.ok(#"{"id":4,"cmd":"rumble","strong":1,"weak":0,"duration":30,"delay":5}"#, from: a)
        guard case .number(let delayedID)? = delayed["player"] else { Issue.record("\(delayed)"); return }
        _ = try bench.ok(#"{"id":5,"cmd":"rumble","strong":1,"weak":0,"duration":30}"#, from: a)
        #expect(finished(delayedID, "cancelled"), "\(events.all)")
        // And any player destroyed while it plays.
        let long = try bench.playLong(from: a)
        _ = try bench.ok(#"{"id":6,"cmd":"player.destroy","player":\#(long)}"#, from: a)
        #expect(finished(Double(long), "stopped"), "\(events.all)")
    }

    /// Errors name a player by the daemon's number (the one the client has), not its engine's.
    @Test func anEngineErrorNamesThePlayerByItsDaemonNumber() throws {
        let bench = StateBench()
        let a = try bench.connect(.alice)
        for i in 1...2 { _ = try bench.ok(#"{"id":\#(i),"cmd":"player.create","name":"impact-heavy"}"#, from: a) }
        let made = try bench.ok(#"{"id":3,"cmd":"player.create","name":"impact-heavy","locality":"leftHandle","advanced":false}"#, from: a)
        guard case .number(let id)? = made["player"] else { Issue.record("\(made)"); return }
        let message: String
        switch try bench.send(#"{"id":4,"cmd":"player.pause","player":\#(Int(id))}"#, from: a) {
        case .failure(let e): message = e.message
        case .success(let r): Issue.record("paused a plain player: \(r)"); return
        }
        #expect(message.hasPrefix("player \(Int(id)) is not an advanced player"), "\(message)")
    }

    /// Starting a player whose pad is unplugged is the pad's `device_error`, as every other command
    /// naming that pad, not an administrator's stopped engine.
    @Test(arguments: [0.0, 10.0]) func startingAPlayerOnAnUnpluggedPadIsADeviceError(idleShutdown: Double) throws {
        var config = DaemonConfig()
        config.idleShutdown = idleShutdown  // > 0: engines start on demand, even an unplugged pad's
        let bench = StateBench(config: config)
        let a = try bench.connect(.alice)
        let made = try bench.ok(#"{"id":1,"cmd":"player.create","name":"impact-heavy"}"#, from: a)
        guard case .number(let id)? = made["player"] else { Issue.record("\(made)"); return }
        let path = SimulatedPad(index: 0).info.path
        let pad = bench.read { state, _ in state.pads.detach(path: path) }
        #expect(pad == 0)
        bench.loop.detachPad(0)
        switch try bench.send(#"{"id":2,"cmd":"player.start","player":\#(Int(id))}"#, from: a) {
        case .failure(let e): #expect(e.code == .deviceError && e.message.contains("disconnected"), "\(e)")
        case .success(let r): Issue.record("started on an unplugged pad: \(r)")
        }
    }

    @Test func subscribeChoosesTheEventsAClientGets() throws {
        let bench = StateBench()
        let events = Lines()
        let a = try bench.connect(.alice, events: events)
        let all = try bench.run(SubscribeRequest.decode(Request.parse(#"{"id":1,"cmd":"subscribe"}"#)), from: a).get()
        guard case .array(let names)? = all["events"] else { Issue.record("\(all)"); return }
        #expect(!names.contains(.string("device.output")) && names.contains(.string("player.finished")))
        _ = try bench.ok(#"{"id":2,"cmd":"subscribe","events":["device.added"]}"#, from: a)
        bench.read { state, _ in #expect(state.clients[a]?.subscriptions == [.deviceAdded]) }
        bench.read { state, _ in state.clients.broadcast(.engineReset, JSONObject(["device": .number(0)])) }
        bench.read { state, _ in state.clients.broadcast(.deviceAdded, JSONObject(["device": .number(1)])) }
        #expect(events.all.count == 1 && events.all[0].contains(#""event":"device.added""#), "\(events.all)")
    }
}
