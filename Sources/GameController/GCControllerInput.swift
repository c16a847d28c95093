// `GCController.input`: Apple's iOS 17 `GCControllerLiveInput` and `GCControllerInputState`, the
// physical input API (GCPhysicalInput.swift) over the same input the classic profile reads. The
// live input's elements read the extended gamepad's values (`InputValues`, changed by the pad's
// reader through `GCExtendedGamepad.deliver`), each input by its `ElementRole`, as the classic
// elements do; their names are the classic elements'. A capture or a queued state reads a copy of
// the values. Handlers run on `queue` (the controller's `handlerQueue` unless set), never under a
// lock here.
import Dispatch
import Foundation
import Synchronization

/// Which input of which element a timestamp is of: the part of the element an `ElementRole` reads,
/// and whether it is its pressed state (else its value).
struct InputKey: Hashable, Sendable {
    let element: GamepadElement
    let part: UInt8
    let pressed: Bool

    init(_ role: ElementRole, pressed: Bool = false) {
        self.pressed = pressed
        switch role {
        case .button(let e): (element, part) = (e, 0)
        case .axis(let e, let y): (element, part) = (e, y ? 2 : 1)
        case .direction(let e, let d):
            switch d {
            case .up: (element, part) = (e, 3)
            case .down: (element, part) = (e, 4)
            case .left: (element, part) = (e, 5)
            case .right: (element, part) = (e, 6)
            }
        case .pad(let e): (element, part) = (e, 7)
        }
    }
}

/// What an input state's elements read: the values, and when each input last changed.
final class InputReadings: Sendable {
    struct Clock: Sendable {
        var at: [InputKey: TimeInterval] = [:]
        var lastEvent: TimeInterval = 0
    }

    let values: InputValues
    let clock: Mutex<Clock>
    /// nil for the live input (its latencies are to now); a state's latencies are to when it was taken.
    let takenAt: TimeInterval?

    init(values: InputValues, clock: Clock = Clock(), takenAt: TimeInterval?) {
        self.values = values
        self.clock = Mutex(clock)
        self.takenAt = takenAt
    }

    func timestamp(_ key: InputKey) -> TimeInterval { clock.withLock { $0.at[key] ?? 0 } }

    /// From `time` to now (to when the state was taken); 0 for an input that never changed.
    func latency(since time: TimeInterval) -> TimeInterval {
        time > 0 ? max(0, (takenAt ?? HapticService.now()) - time) : 0
    }

    /// A copy apart from the pad: the values and their timestamps of one moment. The live input
    /// records a report while the profile's values lock is held (`GCControllerLiveInput.record`), so
    /// reading both under that lock sees a report whole or not at all.
    func frozen(at time: TimeInterval) -> InputReadings {
        let (v, c) = values.read { v in (v, clock.withLock { $0 }) }
        return InputReadings(values: InputValues(v), clock: c, takenAt: time)
    }
}

/// An input of an element, as the live input delivers a report to it.
protocol InputPart: AnyObject {
    /// Notes in `clock` what of this input changed from `before` to `after`; whether anything did.
    func stamp(_ clock: inout [InputKey: TimeInterval], before: GamepadState.Values, after: GamepadState.Values, at time: TimeInterval) -> Bool
    /// Runs the handlers of what changed (on the input's queue).
    func deliver(_ element: any GCPhysicalInputElement, before: GamepadState.Values, after: GamepadState.Values)
}

/// Where an input's value comes from: the classic element of the same control (for its names).
final class InputSource: NSObject, GCPhysicalInputSource, @unchecked Sendable {
    // @unchecked Sendable: immutable; the names are read from the classic element, whose own
    // descriptive properties are plain, as Apple's (GCControllerElement).
    let names: GCControllerElement
    let direction: GCPhysicalInputSourceDirection
    init(_ names: GCControllerElement, direction: GCPhysicalInputSourceDirection) {
        self.names = names
        self.direction = direction
    }
    var elementAliases: Set<String> { names.aliases }
    var elementLocalizedName: String? { names.localizedName }
    var sfSymbolsName: String? { names.sfSymbolsName }
}

/// What every input here has: the values it reads, by its role, and its source.
class PhysicalInput: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable but for the subclasses' handlers, each behind a Mutex.
    let readings: InputReadings
    let role: ElementRole
    let analog: Bool
    let source: InputSource

    init(readings: InputReadings, role: ElementRole, analog: Bool, source: InputSource) {
        self.readings = readings
        self.role = role
        self.analog = analog
        self.source = source
    }

    var isAnalog: Bool { analog }
    var canWrap: Bool { false }
    var sources: Set<AnyHashable> { [AnyHashable(source)] }
    var valueKey: InputKey { InputKey(role) }
    var lastValueTimestamp: TimeInterval { readings.timestamp(valueKey) }
    var lastValueLatency: TimeInterval { readings.latency(since: lastValueTimestamp) }
}

/// A button's value and pressed state, or a direction pad's direction's.
final class ButtonInput: PhysicalInput, GCLinearInput, GCPressedStateInput, InputPart, @unchecked Sendable {
    // @unchecked Sendable: the handlers are behind `handlers`.
    typealias ValueHandler = (any GCPhysicalInputElement, any GCLinearInput, Float) -> Void
    typealias PressedHandler = (any GCPhysicalInputElement, any GCPressedStateInput, Bool) -> Void
    private let handlers = Mutex<(value: Unchecked<ValueHandler?>, pressed: Unchecked<PressedHandler?>)>((Unchecked(nil), Unchecked(nil)))

    var valueDidChangeHandler: ValueHandler? {
        get { handlers.withLock { $0.value.value } }
        set { let h = Unchecked(newValue); handlers.withLock { $0.value = h } }
    }
    var pressedDidChangeHandler: PressedHandler? {
        get { handlers.withLock { $0.pressed.value } }
        set { let h = Unchecked(newValue); handlers.withLock { $0.pressed = h } }
    }

    var value: Float { readings.values.read { role.buttonValue($0) } }
    var isPressed: Bool { readings.values.read { role.isPressed($0) } }
    var lastPressedStateTimestamp: TimeInterval { readings.timestamp(InputKey(role, pressed: true)) }
    var lastPressedStateLatency: TimeInterval { readings.latency(since: lastPressedStateTimestamp) }

    func stamp(_ clock: inout [InputKey: TimeInterval], before: GamepadState.Values, after: GamepadState.Values, at time: TimeInterval) -> Bool {
        var changed = false
        if role.buttonValue(before) != role.buttonValue(after) { clock[valueKey] = time; changed = true }
        if role.isPressed(before) != role.isPressed(after) { clock[InputKey(role, pressed: true)] = time; changed = true }
        return changed
    }

    func deliver(_ element: any GCPhysicalInputElement, before: GamepadState.Values, after: GamepadState.Values) {
        let h = handlers.withLock { $0 }
        let value = role.buttonValue(after), pressed = role.isPressed(after)
        if value != role.buttonValue(before) { h.value.value?(element, self, value) }
        if pressed != role.isPressed(before) { h.pressed.value?(element, self, pressed) }
    }
}

/// One axis of a direction pad, −1…1.
final class AxisInput: PhysicalInput, GCAxisInput, InputPart, @unchecked Sendable {
    // @unchecked Sendable: the handler is behind `handler`.
    typealias Handler = (any GCPhysicalInputElement, any GCAxisInput, Float) -> Void
    private let handler = Mutex(Unchecked<Handler?>(nil))

    var valueDidChangeHandler: Handler? {
        get { handler.withLock { $0.value } }
        set { let h = Unchecked(newValue); handler.withLock { $0 = h } }
    }

    var value: Float { readings.values.read { role.buttonValue($0) } }

    func stamp(_ clock: inout [InputKey: TimeInterval], before: GamepadState.Values, after: GamepadState.Values, at time: TimeInterval) -> Bool {
        guard role.buttonValue(before) != role.buttonValue(after) else { return false }
        clock[valueKey] = time
        return true
    }

    func deliver(_ element: any GCPhysicalInputElement, before: GamepadState.Values, after: GamepadState.Values) {
        let value = role.buttonValue(after)
        guard value != role.buttonValue(before) else { return }
        handler.withLock { $0 }.value?(element, self, value)
    }
}

/// Both axes of a direction pad at once.
final class Axis2DInput: PhysicalInput, GCAxis2DInput, InputPart, @unchecked Sendable {
    // @unchecked Sendable: the handler is behind `handler`.
    typealias Handler = (any GCPhysicalInputElement, any GCAxis2DInput, GCPoint2) -> Void
    private let handler = Mutex(Unchecked<Handler?>(nil))

    var valueDidChangeHandler: Handler? {
        get { handler.withLock { $0.value } }
        set { let h = Unchecked(newValue); handler.withLock { $0 = h } }
    }

    private func point(_ v: GamepadState.Values) -> GCPoint2 {
        guard case .pad(let e) = role else { return GCPoint2() }
        return GCPoint2(x: v.x[e.rawValue], y: v.y[e.rawValue])
    }

    private func moved(_ before: GamepadState.Values, _ after: GamepadState.Values) -> Bool {
        let a = point(before), b = point(after)
        return a.x != b.x || a.y != b.y
    }

    var value: GCPoint2 { readings.values.read { point($0) } }

    func stamp(_ clock: inout [InputKey: TimeInterval], before: GamepadState.Values, after: GamepadState.Values, at time: TimeInterval) -> Bool {
        guard moved(before, after) else { return false }
        clock[valueKey] = time
        return true
    }

    func deliver(_ element: any GCPhysicalInputElement, before: GamepadState.Values, after: GamepadState.Values) {
        guard moved(before, after) else { return }
        handler.withLock { $0 }.value?(element, self, point(after))
    }
}

/// An element of an input state, named as its classic element is.
class PhysicalElement: NSObject, GCPhysicalInputElement, @unchecked Sendable {
    // @unchecked Sendable: immutable; the names are the classic element's (see InputSource).
    let element: GamepadElement
    let names: GCControllerElement
    /// Its inputs, in the order their handlers run.
    let parts: [any InputPart]

    init(element: GamepadElement, names: GCControllerElement, parts: [any InputPart]) {
        self.element = element
        self.names = names
        self.parts = parts
    }

    var aliases: Set<String> { names.aliases }
    var localizedName: String? { names.localizedName }
    var sfSymbolsName: String? { names.sfSymbolsName }

    /// The elements of a profile's classic elements, in the profile's order, reading `readings`.
    static func make(_ classic: [GamepadElement: GCControllerElement], readings: InputReadings) -> [PhysicalElement] {
        classic.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { e, c in
            if let pad = c as? GCControllerDirectionPad { return DirectionPadElement(element: e, pad: pad, readings: readings) }
            if let button = c as? GCControllerButtonInput { return ButtonElement(element: e, button: button, readings: readings) }
            return nil
        }
    }
}

final class ButtonElement: PhysicalElement, GCButtonElement, @unchecked Sendable {
    // @unchecked Sendable: as PhysicalElement.
    let input: ButtonInput

    init(element: GamepadElement, button: GCControllerButtonInput, readings: InputReadings) {
        input = ButtonInput(readings: readings, role: button.role, analog: button.isAnalog, source: InputSource(button, direction: .notApplicable))
        super.init(element: element, names: button, parts: [input])
    }

    var pressedInput: any GCLinearInput & GCPressedStateInput { input }
    /// nil: evdev pads report no touch on their buttons.
    var touchedInput: (any GCTouchedStateInput)? { nil }
}

final class DirectionPadElement: PhysicalElement, GCDirectionPadElement, @unchecked Sendable {
    // @unchecked Sendable: as PhysicalElement.
    let x: AxisInput, y: AxisInput, xy: Axis2DInput
    let directions: (up: ButtonInput, down: ButtonInput, left: ButtonInput, right: ButtonInput)

    init(element: GamepadElement, pad: GCControllerDirectionPad, readings: InputReadings) {
        let analog = pad.isAnalog
        func axis(_ a: GCControllerAxisInput, _ d: GCPhysicalInputSourceDirection) -> AxisInput {
            AxisInput(readings: readings, role: a.role, analog: analog, source: InputSource(pad, direction: d))
        }
        func direction(_ b: GCControllerButtonInput, _ d: GCPhysicalInputSourceDirection) -> ButtonInput {
            ButtonInput(readings: readings, role: b.role, analog: analog, source: InputSource(pad, direction: d))
        }
        x = axis(pad.xAxis, [.left, .right])
        y = axis(pad.yAxis, [.up, .down])
        xy = Axis2DInput(readings: readings, role: pad.role, analog: analog, source: InputSource(pad, direction: [.up, .down, .left, .right]))
        directions = (direction(pad.up, .up), direction(pad.down, .down), direction(pad.left, .left), direction(pad.right, .right))
        super.init(element: element, names: pad, parts: [xy, x, y, directions.up, directions.down, directions.left, directions.right])
    }

    var xAxis: any GCAxisInput { x }
    var yAxis: any GCAxisInput { y }
    var xyAxes: any GCAxis2DInput { xy }
    var up: any GCLinearInput & GCPressedStateInput { directions.up }
    var down: any GCLinearInput & GCPressedStateInput { directions.down }
    var left: any GCLinearInput & GCPressedStateInput { directions.left }
    var right: any GCLinearInput & GCPressedStateInput { directions.right }
}

/// Apple's `GCControllerInputState`: a controller's elements and their values, apart from the pad
/// (what `capture()` gives); `GCControllerLiveInput` is the live one.
open class GCControllerInputState: NSObject, GCDevicePhysicalInputState, @unchecked Sendable {
    // @unchecked Sendable: the tables and collections are set once in init; `owner` too (weak);
    // the values and timestamps are behind `readings`' locks.
    let readings: InputReadings
    /// The classic elements the state's elements are named after (and a copy's are made from).
    let classic: [GamepadElement: GCControllerElement]
    let byElement: [GamepadElement: PhysicalElement]
    weak var owner: GCController?

    public let elements: GCPhysicalInputElementCollection<any GCPhysicalInputElement>
    public let buttons: GCPhysicalInputElementCollection<any GCButtonElement>
    /// None: a gamepad's sticks are direction pads and its triggers buttons, as on Apple's platforms.
    public let axes: GCPhysicalInputElementCollection<any GCAxisElement>
    /// None: a gamepad has no switch.
    public let switches: GCPhysicalInputElementCollection<any GCSwitchElement>
    public let dpads: GCPhysicalInputElementCollection<any GCDirectionPadElement>

    init(readings: InputReadings, classic: [GamepadElement: GCControllerElement], owner: GCController?) {
        self.readings = readings
        self.classic = classic
        self.owner = owner
        let made = PhysicalElement.make(classic, readings: readings)
        byElement = Dictionary(uniqueKeysWithValues: made.map { ($0.element, $0) })
        elements = GCPhysicalInputElementCollection(made.map { $0 as any GCPhysicalInputElement }, aliases: { $0.aliases })
        buttons = GCPhysicalInputElementCollection(made.compactMap { $0 as? ButtonElement }.map { $0 as any GCButtonElement }, aliases: { $0.aliases })
        axes = GCPhysicalInputElementCollection([], aliases: { $0.aliases })
        switches = GCPhysicalInputElementCollection([], aliases: { $0.aliases })
        dpads = GCPhysicalInputElementCollection(made.compactMap { $0 as? DirectionPadElement }.map { $0 as any GCDirectionPadElement }, aliases: { $0.aliases })
        super.init()
    }

    /// The controller (weak).
    open var device: (any GCDevice)? { owner }
    /// When the pad last reported a change of an element (seconds on the monotonic clock, as the
    /// classic profile's `lastEventTimestamp`); 0 before any.
    open var lastEventTimestamp: TimeInterval { readings.clock.withLock { $0.lastEvent } }
    /// From then to now (for a state apart from the pad: to when it was taken).
    open var lastEventLatency: TimeInterval { readings.latency(since: lastEventTimestamp) }

    open subscript(key: String) -> (any GCPhysicalInputElement)? { elements[key] }
}

/// A state from the live input's queue: its values when the pad reported, and what changed since
/// the state before it — unknown (nil) for the first state and for one whose previous state the
/// queue dropped, as Apple's.
final class QueuedInputState: GCControllerInputState, GCDevicePhysicalInputStateDiff, @unchecked Sendable {
    // @unchecked Sendable: as GCControllerInputState; `changed` is immutable.
    let changed: Set<GamepadElement>?

    init(readings: InputReadings, classic: [GamepadElement: GCControllerElement], owner: GCController?, changed: Set<GamepadElement>?) {
        self.changed = changed
        super.init(readings: readings, classic: classic, owner: owner)
    }

    /// Whether the element changed; the element may be this state's or the same control's of
    /// another state (the live input's, say). `.unknownChange` when the state before is unknown, and
    /// for an element of no control here.
    func change(for element: any GCPhysicalInputElement) -> GCDevicePhysicalInputElementChange {
        // The same control of this controller: a state's elements and the live input's are named
        // after the same classic elements; another controller's are not.
        guard let changed, let e = element as? PhysicalElement, byElement[e.element]?.names === e.names else { return .unknownChange }
        return changed.contains(e.element) ? .changed : .noChange
    }

    func __changedElements() -> [any GCPhysicalInputElement]? {
        guard let changed else { return nil }
        return elements.filter { ($0 as? PhysicalElement).map { changed.contains($0.element) } ?? false }
    }
}

/// Apple's `GCControllerLiveInput` (`GCController.input`): the controller's elements, reading the
/// pad as it is now, with their handlers; `capture()` a copy apart from the pad; and a queue of the
/// states the pad went through (`inputStateQueueDepth` deep, 1 unless set: the oldest go first, and
/// the state after one that went says its changes are unknown). Per report, on `queue`: for each
/// element that changed, its inputs' handlers, then `elementValueDidChangeHandler`; then
/// `inputStateAvailableHandler` when a state came into an empty queue, and not again until the queue
/// was drained (`nextInputState()` gave nil, or its last state), as Apple's. A controller without a
/// pad (`GCController()`) has one with no elements that never changes.
open class GCControllerLiveInput: GCControllerInputState, GCDevicePhysicalInput, @unchecked Sendable {
    // @unchecked Sendable: as GCControllerInputState; the handlers, queue and queued states are
    // behind `local`.
    public typealias ElementHandler = (any GCDevicePhysicalInput, any GCPhysicalInputElement) -> Void
    public typealias StateHandler = (any GCDevicePhysicalInput) -> Void

    /// A report as the queue keeps it: made into a state when taken.
    struct Record {
        var values: GamepadState.Values
        var clock: InputReadings.Clock
        /// nil: not known (the first state, or one whose previous state was dropped).
        var changed: Set<GamepadElement>?
    }

    private struct Local {
        var queue: DispatchQueue?
        var elementHandler = Unchecked<ElementHandler?>(nil)
        var stateHandler = Unchecked<StateHandler?>(nil)
        var depth = 1
        /// The queued states: `pending[head...]` (taken from the front by moving `head`, the array
        /// compacted now and then, so that a deep queue costs no shifting per report).
        var pending: [Record] = []
        var head = 0
        var count: Int { pending.count - head }

        mutating func dropFirst(_ n: Int) {
            head += n
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64 && head * 2 > pending.count {
                pending.removeFirst(head)
                head = 0
            }
        }
        /// A state was queued before: the next one's changes are known (unless one is dropped).
        var queuedBefore = false
        /// `inputStateAvailableHandler` was called (or is on its way) and the queue not drained since.
        var announced = false
    }

    private let local = Mutex(Local())
    /// Reports whose handlers wait on the queue (bounded as the classic profile's are).
    private let queued = Atomic<Int>(0)

    /// The deepest `inputStateQueueDepth` taken; deeper asks get this.
    public static let maximumInputStateQueueDepth = 1024

    init(profile: GCExtendedGamepad?, owner: GCController) {
        let values = profile?.values ?? InputValues(GamepadState(layout: GamepadLayout(.unknown)).committed)
        super.init(readings: InputReadings(values: values, takenAt: nil), classic: profile?.byElement ?? [:], owner: owner)
        profile?.physicalInput.withLock { $0 = WeakBox(self) }
    }

    /// The controller's input without the system's remapping: this one (nothing is remapped here).
    open var unmapped: GCControllerLiveInput? { self }

    /// Where the handlers run: the controller's `handlerQueue` unless set (nil sets it back).
    open var queue: DispatchQueue? {
        get { local.withLock { $0.queue } ?? owner?.handlerQueue }
        set { local.withLock { $0.queue = newValue } }
    }

    open var elementValueDidChangeHandler: ElementHandler? {
        get { local.withLock { $0.elementHandler.value } }
        set { let h = Unchecked(newValue); local.withLock { $0.elementHandler = h } }
    }

    open var inputStateAvailableHandler: StateHandler? {
        get { local.withLock { $0.stateHandler.value } }
        set { let h = Unchecked(newValue); local.withLock { $0.stateHandler = h } }
    }

    /// How many states the queue keeps: 1 unless set (Apple's default: no buffering); less than 1 is
    /// ignored (the queue keeps at least the newest state), more
    /// than `maximumInputStateQueueDepth` taken as that. States past it go, the oldest first.
    open var inputStateQueueDepth: Int {
        get { local.withLock { $0.depth } }
        set {
            guard newValue >= 1 else { return }
            let depth = min(newValue, Self.maximumInputStateQueueDepth)
            local.withLock { s in
                s.depth = depth
                Self.trim(&s)
            }
        }
    }

    /// The elements and their values as they are now, apart from the pad.
    open func capture() -> GCControllerInputState {
        GCControllerInputState(readings: readings.frozen(at: HapticService.now()), classic: classic, owner: owner)
    }

    @_disfavoredOverload
    open func capture() -> any GCDevicePhysicalInputState { capture() as GCControllerInputState }

    /// The oldest queued state, taken off the queue (nil when none is). Its `changedElements()` are
    /// those that changed since the state before it; nil for the first state and after a drop.
    open func nextInputState() -> (GCControllerInputState & GCDevicePhysicalInputStateDiff)? {
        let taken = local.withLock { s -> Record? in
            guard s.count > 0 else {
                s.announced = false
                return nil
            }
            let r = s.pending[s.head]
            s.dropFirst(1)
            if s.count == 0 { s.announced = false }
            return r
        }
        guard let r = taken else { return nil }
        let readings = InputReadings(values: InputValues(r.values), clock: r.clock, takenAt: HapticService.now())
        return QueuedInputState(readings: readings, classic: classic, owner: owner, changed: r.changed)
    }

    @_disfavoredOverload
    open func nextInputState() -> (any GCDevicePhysicalInputState & GCDevicePhysicalInputStateDiff)? {
        nextInputState() as (GCControllerInputState & GCDevicePhysicalInputStateDiff)?
    }

    /// Drops the oldest states past the depth; the one after a dropped state does not know its changes.
    private static func trim(_ s: inout Local) {
        guard s.count > s.depth else { return }
        s.dropFirst(s.count - s.depth)
        s.pending[s.head].changed = nil
    }

    /// What a report's handlers need, made while it is recorded.
    struct Delivery {
        let fired: [PhysicalElement]
        let before: GamepadState.Values
        let after: GamepadState.Values
        let announce: Bool
        let queue: DispatchQueue?
    }

    /// A report the extended profile is taking (GCExtendedGamepad.deliver, on a reader's thread,
    /// **with the profile's values lock held**, so that reports are recorded in the order their
    /// values were applied and a capture sees a report whole or not at all): the timestamps and the
    /// queue of states change now. Only locks of its own are taken here, and no handler runs; nil
    /// when no element's value changed.
    func record(_ changed: [GamepadElement], before: GamepadState.Values, after: GamepadState.Values, at time: TimeInterval) -> Delivery? {
        let hit = changed.compactMap { byElement[$0] }
        guard !hit.isEmpty else { return nil }
        let (fired, clock) = readings.clock.withLock { c -> ([PhysicalElement], InputReadings.Clock) in
            var fired: [PhysicalElement] = []
            for element in hit {
                var moved = false
                for part in element.parts {
                    if part.stamp(&c.at, before: before, after: after, at: time) { moved = true }
                }
                if moved { fired.append(element) }
            }
            if !fired.isEmpty { c.lastEvent = max(c.lastEvent, time) }
            return (fired, c)
        }
        guard !fired.isEmpty else { return nil }
        let (announce, own) = local.withLock { s -> (Bool, DispatchQueue?) in
            s.pending.append(Record(values: after, clock: clock, changed: s.queuedBefore ? Set(fired.map(\.element)) : nil))
            s.queuedBefore = true
            Self.trim(&s)
            // Announced once until drained; not while no handler is set (one set later hears of the
            // next state).
            let announce = !s.announced && s.stateHandler.value != nil
            if announce { s.announced = true }
            return (announce, s.queue)
        }
        return Delivery(fired: fired, before: before, after: after, announce: announce, queue: own)
    }

    /// Runs a recorded report's handlers on `queue` (else `deviceQueue`, the controller's
    /// `handlerQueue`), after the profile's own handlers were queued, with no lock held.
    func deliver(_ d: Delivery, on deviceQueue: DispatchQueue) {
        guard queued.add(1, ordering: .relaxed).newValue <= GCExtendedGamepad.maximumQueuedReports else {
            queued.subtract(1, ordering: .relaxed)
            // Its announcement is not lost: the queue stays announced only if a call is on its way.
            if d.announce { local.withLock { $0.announced = false } }
            return
        }
        let job = Unchecked({ [self] in
            defer { queued.subtract(1, ordering: .relaxed) }
            for element in d.fired {
                for part in element.parts { part.deliver(element, before: d.before, after: d.after) }
                elementValueDidChangeHandler?(self, element)
            }
            if d.announce {
                if let handler = inputStateAvailableHandler {
                    handler(self)
                } else {
                    // Taken away since: the queue is not announced, so that one set later hears
                    // of the next state.
                    local.withLock { $0.announced = false }
                }
            }
        })
        (d.queue ?? deviceQueue).async { job.value() }
    }
}
