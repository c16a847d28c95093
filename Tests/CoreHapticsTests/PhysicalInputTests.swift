import Dispatch
import Foundation
@testable import GameController
import HapticCore
import Synchronization
import Testing

/// Apple's iOS 17 physical input API (`GCController.input`) over the pad's live input: reports go
/// through the extended profile as the pad's reader delivers them (GCExtendedGamepad.deliver).
@Suite struct PhysicalInputTests {
    /// One report: `edit` changes the values and names the elements it changed.
    static func report(_ pad: GCExtendedGamepad, at time: TimeInterval, on queue: DispatchQueue,
                       _ edit: (inout GamepadState.Values) -> [GamepadElement]) {
        var after = pad.values.read { $0 }
        let changed = edit(&after)
        pad.deliver(changed, after: after, at: time, on: queue)
    }

    /// A controller of the profile `type` whose handlers run on a queue of the test's own (`label`),
    /// its live input (made at once, as a program's first look makes it) and its extended profile.
    static func live(_ type: String, _ label: String) throws -> (GCController, DispatchQueue, GCControllerLiveInput, GCExtendedGamepad) {
        let controller = ControllerExtrasTests.controller(type)
        let queue = DispatchQueue(label: label)
        controller.handlerQueue = queue
        let input = controller.input
        return (controller, queue, input, try #require(controller.extendedGamepad))
    }

    static func press(_ e: GamepadElement, _ value: Float) -> (inout GamepadState.Values) -> [GamepadElement] {
        { v in
            v.buttons[e.rawValue] = value
            return [e]
        }
    }

    static func move(_ e: GamepadElement, x: Float, y: Float) -> (inout GamepadState.Values) -> [GamepadElement] {
        { v in
            v.x[e.rawValue] = x
            v.y[e.rawValue] = y
            return [e]
        }
    }

    @Test func theElementsReadThePadAsItIsNow() throws {
        let (controller, queue, input, pad) = try Self.live("dualsense-usb", "test.physical.values")
        #expect(controller.input === input && input.unmapped === input && input.device === controller)
        #expect(input.queue === queue, "the controller's handler queue unless set")

        // The DualSense's profile: 13 buttons and the touchpad's click; the d-pad, two sticks and two touches.
        #expect(input.buttons.count == 14 && input.dpads.count == 5 && input.axes.isEmpty && input.switches.isEmpty)
        #expect(input.elements.count == 19)
        var iterated: [String] = []
        for element in input.elements { iterated.append(element.localizedName ?? "?") }
        #expect(iterated.count == 19 && iterated.first == GCInputButtonA && Set(iterated).count == 19)
        #expect(Set(input.buttons.compactMap(\.localizedName)).isSuperset(of: [GCInputButtonA, GCInputButtonHome, GCInputDualShockTouchpadButton]))
        // Every element is found under each of its aliases, in `elements` and its kind's collection.
        for element in input.elements {
            #expect(!element.aliases.isEmpty)
            for alias in element.aliases {
                #expect(input.elements[alias] === element && input[alias] === element, "\(alias)")
                #expect(input.buttons[alias] === element || input.dpads[alias] === element, "\(alias)")
            }
        }
        let a = try #require(input.buttons[.a])
        #expect(input.buttons[GCInputButtonA] === a && input.elements[GCPhysicalInputElementName(rawValue: "Button A")] === a)
        #expect(input.buttons[GCButtonElementName(rawValue: "no such button")] == nil && input.buttons[GCInputDirectionPad] == nil)
        #expect(input.dpads[GCInputDualShockTouchpadOne] != nil && input.elements[GCInputDualShockTouchpadButton] is GCButtonElement)
        #expect(a.touchedInput == nil && !a.pressedInput.isAnalog && input.buttons[.rightTrigger] != nil)

        #expect(!a.pressedInput.isPressed && a.pressedInput.value == 0 && a.pressedInput.lastPressedStateTimestamp == 0 && input.lastEventTimestamp == 0)
        Self.report(pad, at: 5, on: queue, Self.press(.buttonA, 1))
        #expect(a.pressedInput.isPressed && a.pressedInput.value == 1, "read at once, as the classic profile's")
        #expect(a.pressedInput.lastPressedStateTimestamp == 5 && a.pressedInput.lastValueTimestamp == 5 && input.lastEventTimestamp == 5)
        #expect(a.pressedInput.lastValueLatency > 0 && input.lastEventLatency > 0)
        #expect(pad.buttonA.isPressed, "the same values as the classic elements")

        Self.report(pad, at: 6, on: queue, Self.move(.leftThumbstick, x: 0.5, y: -0.25))
        let stick = try #require(input.dpads[.leftThumbstick])
        #expect(stick.xyAxes.value.x == 0.5 && stick.xyAxes.value.y == -0.25 && stick.xAxis.value == 0.5 && stick.yAxis.value == -0.25)
        #expect(stick.down.value == 0.25 && stick.down.isPressed && stick.up.value == 0 && !stick.up.isPressed && stick.right.value == 0.5)
        #expect(stick.xyAxes.lastValueTimestamp == 6 && stick.down.lastPressedStateTimestamp == 6 && stick.up.lastPressedStateTimestamp == 0)
        #expect(a.pressedInput.lastValueTimestamp == 5, "another element's report leaves A's timestamps")
        let dpad = try #require(input.dpads[.directionPad])
        #expect(stick.xAxis.isAnalog && !dpad.xAxis.isAnalog)
        let up = try #require(input.dpads[.directionPad]?.up.sources.first as? GCPhysicalInputSource)
        #expect(up.direction == .up && up.elementAliases == [GCInputDirectionPad] && up.elementLocalizedName == GCInputDirectionPad)
    }

    @Test func handlersRunOnTheQueueElementByElementAndNeverUnderALock() throws {
        let (controller, queue, input, pad) = try Self.live("xbox-one-usb", "test.physical.handlers")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "handler")
        let a = try #require(input.buttons[.a]), dpad = try #require(input.dpads[.directionPad])
        let log = Mutex<[String]>([])
        @Sendable func note(_ s: String) { log.withLock { $0.append("\(DispatchQueue.getSpecific(key: key) ?? "off queue"): \(s)") } }

        pad.buttonA.pressedChangedHandler = { _, _, pressed in note("classic A \(pressed)") }
        a.pressedInput.valueDidChangeHandler = { element, _, value in note("A value \(value) \(element === a)") }
        a.pressedInput.pressedDidChangeHandler = { element, _, pressed in note("A pressed \(pressed) \(element === a)") }
        dpad.xyAxes.valueDidChangeHandler = { _, _, point in note("dpad \(point.x) \(point.y)") }
        dpad.up.pressedDidChangeHandler = { _, _, pressed in note("up \(pressed)") }
        dpad.xAxis.valueDidChangeHandler = { _, _, _ in note("x moved") }
        input.elementValueDidChangeHandler = { physical, element in
            // Locks of the input and its elements are free here: reading and setting them does not deadlock.
            physical.inputStateQueueDepth = physical.inputStateQueueDepth
            let name = (element as? GCButtonElement).map { "button \($0.pressedInput.isPressed) \($0.pressedInput.lastPressedStateTimestamp)" }
                ?? (element as? GCDirectionPadElement).map { "dpad \($0.xyAxes.value.y)" } ?? "?"
            note("element \(name) \(physical === input)")
        }
        input.inputStateAvailableHandler = { physical in
            physical.inputStateAvailableHandler = physical.inputStateAvailableHandler
            // Drained, so that the next state is announced again (Apple: "not again until your
            // game processes all input states in the queue").
            while physical.nextInputState() != nil {}
            note("available")
        }
        // Both reports before the queue runs: the first call drains both states.
        queue.suspend()
        Self.report(pad, at: 1, on: queue, Self.press(.buttonA, 1))
        Self.report(pad, at: 2, on: queue, Self.move(.dpad, x: 0, y: 1))
        queue.resume()
        queue.sync {}
        #expect(log.withLock { $0 } == [
            "handler: classic A true",
            "handler: A value 1.0 true", "handler: A pressed true true", "handler: element button true 1.0 true", "handler: available",
            "handler: dpad 0.0 1.0", "handler: up true", "handler: element dpad 1.0 true",
        ], "the x axis did not move: its handler does not run; the second state came before the first call drained the queue, so it was not announced again")

        // The input's own queue, when set, in place of the controller's.
        let own = DispatchQueue(label: "test.physical.own")
        own.setSpecific(key: key, value: "own")
        input.queue = own
        #expect(input.queue === own)
        log.withLock { $0 = [] }
        Self.report(pad, at: 3, on: queue, Self.press(.buttonA, 0))
        queue.sync {}
        own.sync {}
        // Two queues: each in its order, the two interleaved as they run.
        let logged = log.withLock { $0 }
        #expect(logged.filter { $0.hasPrefix("handler:") } == ["handler: classic A false"])
        #expect(logged.filter { !$0.hasPrefix("handler:") } == [
            "own: A value 0.0 true", "own: A pressed false true", "own: element button false 3.0 true", "own: available",
        ])
        input.queue = nil
        #expect(input.queue === queue, "nil: the controller's again")
    }

    @Test func statesQueueUpToTheDepthAndKeepTheirValues() throws {
        let (controller, queue, input, pad) = try Self.live("generic", "test.physical.states")
        #expect(input.inputStateQueueDepth == 1 && input.nextInputState() == nil)
        // The first state has none before it: its changes are unknown; the next one's are known.
        Self.report(pad, at: 0.5, on: queue, Self.press(.buttonY, 1))
        let firstEver = try #require(input.nextInputState())
        let firstY = try #require(firstEver.buttons[.y])
        #expect(firstEver.changedElements() == nil && firstEver.change(for: firstY) == .unknownChange)
        Self.report(pad, at: 0.75, on: queue, Self.press(.buttonY, 0))
        let next = try #require(input.nextInputState())
        let nextY = try #require(next.buttons[.y]), nextA = try #require(next.buttons[.a])
        #expect(next.change(for: nextY) == .changed && next.change(for: nextA) == .noChange)
        input.inputStateQueueDepth = 0
        #expect(input.inputStateQueueDepth == 1, "less than 1 is ignored")
        input.inputStateQueueDepth = .max
        #expect(input.inputStateQueueDepth == GCControllerLiveInput.maximumInputStateQueueDepth)
        input.inputStateQueueDepth = 3

        Self.report(pad, at: 1, on: queue, Self.press(.buttonA, 1))
        Self.report(pad, at: 2, on: queue, Self.press(.buttonB, 1))
        Self.report(pad, at: 3, on: queue, Self.press(.buttonA, 0))
        Self.report(pad, at: 4, on: queue, Self.press(.buttonX, 1))
        Self.report(pad, at: 5, on: queue, Self.move(.leftThumbstick, x: -1, y: 0))
        queue.sync {}

        let first = try #require(input.nextInputState())
        #expect(first.lastEventTimestamp == 3 && first.device === controller)
        #expect(first.buttons[.a]?.pressedInput.isPressed == false && first.buttons[.b]?.pressedInput.isPressed == true)
        #expect(first.buttons[.x]?.pressedInput.isPressed == false, "X went down after this state")
        // The state before it was dropped: what changed since is unknown (Apple: nil, `.unknownChange`).
        let liveA = try #require(input.buttons[.a]), liveX = try #require(input.buttons[.x])
        #expect(first.changedElements() == nil && first.change(for: liveA) == .unknownChange && first.change(for: liveX) == .unknownChange)

        let second = try #require(input.nextInputState())
        #expect(second.lastEventTimestamp == 4 && second.buttons[.x]?.pressedInput.isPressed == true)
        let secondX = try #require(second.buttons[.x])
        #expect(second.change(for: liveA) == .noChange && second.change(for: liveX) == .changed && second.change(for: secondX) == .changed)
        let third = try #require(input.nextInputState())
        #expect(third.dpads[.leftThumbstick]?.xyAxes.value.x == -1 && third.dpads[.leftThumbstick]?.left.isPressed == true)
        var thirdChanged: [any GCPhysicalInputElement] = []
        if let elements = third.changedElements() {
            for element in elements { thirdChanged.append(element) }
        }
        #expect(thirdChanged.count == 1 && thirdChanged.first === third.dpads[.leftThumbstick])
        #expect(input.nextInputState() == nil, "three kept, the oldest two dropped")

        Self.report(pad, at: 6, on: queue, Self.press(.buttonY, 1))
        #expect(first.buttons[.b]?.pressedInput.isPressed == true && third.buttons[.y]?.pressedInput.isPressed == false, "a taken state does not follow the pad")
        #expect(input.nextInputState()?.buttons[.y]?.pressedInput.lastPressedStateTimestamp == 6)

        // Drained from the handler, as Apple's samples do.
        let seen = Mutex<[TimeInterval]>([])
        input.inputStateAvailableHandler = { physical in
            while let state = physical.nextInputState() { seen.withLock { $0.append(state.lastEventTimestamp) } }
        }
        Self.report(pad, at: 7, on: queue, Self.press(.buttonY, 0))
        Self.report(pad, at: 8, on: queue, Self.press(.buttonY, 1))
        queue.sync {}
        #expect(seen.withLock { $0 } == [7, 8])

        // Setting a smaller depth drops the oldest at once.
        input.inputStateAvailableHandler = nil
        for t in 9...11 { Self.report(pad, at: TimeInterval(t), on: queue, Self.press(.buttonY, Float(t % 2))) }
        input.inputStateQueueDepth = 1
        #expect(input.nextInputState()?.lastEventTimestamp == 11 && input.nextInputState() == nil)
    }

    @Test func aCaptureIsFrozen() throws {
        let (controller, queue, input, pad) = try Self.live("dualshock4-usb", "test.physical.capture")
        Self.report(pad, at: 2, on: queue, Self.press(.rightTrigger, 0.75))
        Self.report(pad, at: 3, on: queue, Self.move(.rightThumbstick, x: 0, y: 1))
        let frozen = input.capture()
        let latency = frozen.lastEventLatency
        Self.report(pad, at: 4, on: queue, Self.press(.rightTrigger, 0))
        Self.report(pad, at: 5, on: queue, Self.move(.rightThumbstick, x: 0, y: 0))
        #expect(frozen.buttons[.rightTrigger]?.pressedInput.value == 0.75 && frozen.dpads[.rightThumbstick]?.up.isPressed == true)
        #expect(frozen.lastEventTimestamp == 3 && frozen.lastEventLatency == latency && frozen.device === controller)
        #expect(input.buttons[.rightTrigger]?.pressedInput.value == 0 && input.lastEventTimestamp == 5)
        #expect(frozen.buttons[.rightTrigger] !== input.buttons[.rightTrigger] && frozen.elements.count == input.elements.count)
        // Through the protocol, as generic code holds it.
        let physical: any GCDevicePhysicalInput = input
        let state: any GCDevicePhysicalInputState = physical.capture()
        #expect(state.dpads[.rightThumbstick]?.xyAxes.value.y == 0 && state["Right Trigger"] is GCButtonElement)
        #expect(!(state is GCControllerLiveInput))
        queue.sync {}
    }

    /// `GCController()` (a placeholder until a pad connects) and a controller made by code.
    @Test func aControllerWithoutAPadHasAnInputWithNoElements() throws {
        let bare = GCController()
        let input = bare.input
        #expect(input.elements.isEmpty && input.buttons[.a] == nil && input.dpads[.directionPad] == nil && input["Button A"] == nil)
        #expect(input.capture().elements.count == 0 && input.nextInputState() == nil && input.lastEventTimestamp == 0)
        input.elementValueDidChangeHandler = { _, _ in }
        input.inputStateQueueDepth = 4
        #expect(input.device === bare && input.inputStateQueueDepth == 4)

        let scripted = GCController.withExtendedGamepad()
        scripted.extendedGamepad?.buttonA.setValue(1)
        scripted.extendedGamepad?.dpad.setValueForXAxis(-1, yAxis: 0)
        #expect(scripted.input.buttons[.a]?.pressedInput.isPressed == true && scripted.input.dpads[.directionPad]?.left.isPressed == true)
        let frozen = scripted.capture()
        #expect(frozen.input.buttons[.a]?.pressedInput.isPressed == true && frozen.input !== scripted.input)
    }
}

/// What a stranger checked against Apple's documented behaviour ("Handling input events",
/// `GCDevicePhysicalInputStateDiff.changedElements()`), and the input from several threads.
extension PhysicalInputTests {
    /// Apple: the handler is called when a new input state becomes available, "and not again until
    /// your game processes all input states in the queue".
    @Test func theAvailableHandlerIsNotCalledAgainUntilTheQueueIsDrained() throws {
        let (controller, queue, input, pad) = try Self.live("generic", "test.physical.available")
        input.inputStateQueueDepth = 20
        let calls = Mutex(0)
        input.inputStateAvailableHandler = { _ in calls.withLock { $0 += 1 } }  // does not drain
        for t in 1...5 { Self.report(pad, at: TimeInterval(t), on: queue, Self.press(.buttonA, Float(t % 2))) }
        queue.sync {}
        #expect(calls.withLock { $0 } == 1)
        var taken = 0
        while input.nextInputState() != nil { taken += 1 }
        #expect(taken == 5)
        Self.report(pad, at: 6, on: queue, Self.press(.buttonA, 0))
        queue.sync {}
        #expect(calls.withLock { $0 } == 2, "drained: the next state is announced")
    }

    /// A capture is one moment: a pressed A carries the timestamp of the report that pressed it, while
    /// another thread reports (odd times press, even times release).
    @Test func capturesAmidReportsAreEachOneMoment() throws {
        let (controller, queue, input, pad) = try Self.live("xbox-one-usb", "test.physical.capture")
        input.inputStateQueueDepth = 64
        input.inputStateAvailableHandler = { p in while p.nextInputState() != nil {} }
        let stop = Atomic<Bool>(false)
        let bad = Mutex<[String]>([])
        let amid = Atomic<Int>(0)
        let reporter = DispatchGroup()
        let running = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: reporter) {
            var t = 1
            while !stop.load(ordering: .relaxed) {
                Self.report(pad, at: TimeInterval(t), on: queue, Self.press(.buttonA, Float(t % 2)))
                if t == 100 { running.signal() }
                t += 1
                if t % 200 == 0 { queue.sync {} }
            }
        }
        running.wait()  // the captures begin while the reports go on
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<3_000 {
                let s = input.capture()
                guard let a = s.buttons[.a]?.pressedInput else { continue }
                let pressed = a.isPressed, ts = a.lastPressedStateTimestamp, last = s.lastEventTimestamp
                if ts > 0 { amid.add(1, ordering: .relaxed) }
                if ts > 0, (Int(ts) % 2 == 1) != pressed || last < ts {
                    bad.withLock { if $0.count < 5 { $0.append("pressed \(pressed) pressed at \(ts) last event \(last)") } }
                }
            }
        }
        stop.store(true, ordering: .relaxed)
        reporter.wait()
        queue.sync {}
        #expect(amid.load(ordering: .relaxed) == 12_000, "every capture after a report")
        #expect(bad.withLock { $0 }.isEmpty)
    }

    /// Two readers of one pad (its node and its touchpad's) report at once: the queued states follow
    /// the order the values changed in (each stick only moves forward).
    @Test func statesFromTwoReadersKeepTheirOrder() throws {
        let (controller, queue, input, pad) = try Self.live("dualsense-usb", "test.physical.order")
        input.inputStateQueueDepth = 1024
        var backwards = 0, states = 0
        for _ in 0..<4 {
            for e in [GamepadElement.leftThumbstick, .rightThumbstick] { Self.report(pad, at: 0, on: queue, Self.move(e, x: -0.5, y: 0)) }
            queue.sync {}
            while input.nextInputState() != nil {}
            DispatchQueue.concurrentPerform(iterations: 2) { reader in
                let e: GamepadElement = reader == 0 ? .leftThumbstick : .rightThumbstick
                for i in 1...500 {
                    // Each reader changes only its own element (as GamepadInput's two readers do).
                    var after = GamepadState(layout: GamepadLayout(.unknown)).committed
                    after.x[e.rawValue] = Float(i) / 1000
                    pad.deliver([e], after: after, at: TimeInterval(i), on: queue)
                }
            }
            queue.sync {}
            var lastL: Float = -1, lastR: Float = -1
            while let s = input.nextInputState() {
                states += 1
                let l = s.dpads[.leftThumbstick]?.xAxis.value ?? 0, r = s.dpads[.rightThumbstick]?.xAxis.value ?? 0
                if l < lastL || r < lastR { backwards += 1 }
                lastL = l
                lastR = r
            }
        }
        #expect(states == 4 * 1000 && backwards == 0)
    }

    /// A handler queue that never runs: the states stay at the depth, the handler is announced once.
    @Test func aStalledQueueStaysBounded() throws {
        let (controller, queue, input, pad) = try Self.live("generic", "test.physical.stalled")
        input.inputStateQueueDepth = 1_000_000
        let calls = Atomic<Int>(0)
        input.inputStateAvailableHandler = { _ in calls.add(1, ordering: .relaxed) }
        input.elementValueDidChangeHandler = { _, _ in }
        queue.suspend()
        for t in 1...5_000 { Self.report(pad, at: TimeInterval(t), on: queue, Self.press(.buttonA, Float(t % 2))) }
        queue.resume()
        queue.sync {}
        var n = 0
        while input.nextInputState() != nil { n += 1 }
        #expect(n == GCControllerLiveInput.maximumInputStateQueueDepth && calls.load(ordering: .relaxed) == 1)
    }

    /// A state answers `change(for:)` for its own controller's elements only; its changes also come
    /// as Apple's Objective-C enumerator; a handler taken away before its call leaves the queue to be
    /// announced to the next one set.
    @Test func changesAreOfThisControllerAndTheHandlerCanComeLater() throws {
        let (controller, queue, input, pad) = try Self.live("generic", "test.physical.later")
        let other = ControllerExtrasTests.controller("generic")
        input.inputStateQueueDepth = 8
        Self.report(pad, at: 1, on: queue, Self.press(.buttonA, 1))
        Self.report(pad, at: 2, on: queue, Self.press(.buttonB, 1))
        queue.sync {}
        _ = input.nextInputState()
        let state = try #require(input.nextInputState())
        let b = try #require(state.buttons[.b]), liveB = try #require(input.buttons[.b]), otherB = try #require(other.input.buttons[.b])
        #expect(state.change(for: b) == .changed && state.change(for: liveB) == .changed)
        #expect(state.change(for: otherB) == .unknownChange, "another controller's B")
        let enumerator: NSEnumerator? = state.changedElements()
        #expect((enumerator?.nextObject() as? GCButtonElement) === b && enumerator?.nextObject() == nil)

        // A handler set, then taken away before the queue runs its call: the next one set hears of the next state.
        let calls = Mutex(0)
        queue.suspend()
        input.inputStateAvailableHandler = { _ in calls.withLock { $0 += 1 } }
        Self.report(pad, at: 3, on: queue, Self.press(.buttonA, 0))
        input.inputStateAvailableHandler = nil
        queue.resume()
        queue.sync {}
        input.inputStateAvailableHandler = { physical in
            calls.withLock { $0 += 10 }
            while physical.nextInputState() != nil {}
        }
        Self.report(pad, at: 4, on: queue, Self.press(.buttonB, 0))
        queue.sync {}
        #expect(calls.withLock { $0 } == 10)
    }
}
