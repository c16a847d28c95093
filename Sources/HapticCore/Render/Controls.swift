/// The values of the five haptic dynamic parameters at one instant.
///
/// Intensity multiplies (neutral 1); sharpness, attack, decay and release add (neutral 0). Two sets
/// combine the same way (`combined(with:)`): this is how a pattern's own parameters and the ones sent
/// to its player act together.
public struct ControlValues: Equatable, Sendable {
    public var intensity: Double
    public var sharpness: Double
    public var attack: Double
    public var decay: Double
    public var release: Double

    public init(intensity: Double = 1, sharpness: Double = 0, attack: Double = 0, decay: Double = 0, release: Double = 0) {
        self.intensity = intensity
        self.sharpness = sharpness
        self.attack = attack
        self.decay = decay
        self.release = release
    }

    public static let neutral = ControlValues()

    @inlinable
    public func combined(with other: ControlValues) -> ControlValues {
        ControlValues(
            intensity: intensity * other.intensity,
            sharpness: min(max(sharpness + other.sharpness, -1), 1),
            attack: min(max(attack + other.attack, -1), 1),
            decay: min(max(decay + other.decay, -1), 1),
            release: min(max(release + other.release, -1), 1))
    }

    public subscript(id: DynamicParameterID) -> Double {
        get {
            switch id {
            case .hapticIntensityControl: intensity
            case .hapticSharpnessControl: sharpness
            case .hapticAttackTimeControl: attack
            case .hapticDecayTimeControl: decay
            case .hapticReleaseTimeControl: release
            default: id.defaultValue
            }
        }
        set {
            let v = min(max(newValue, id.range.lowerBound), id.range.upperBound)
            switch id {
            case .hapticIntensityControl: intensity = v
            case .hapticSharpnessControl: sharpness = v
            case .hapticAttackTimeControl: attack = v
            case .hapticDecayTimeControl: decay = v
            case .hapticReleaseTimeControl: release = v
            default: break
            }
        }
    }
}

/// The history of one dynamic parameter: values set at times and curves starting at times.
///
/// At any time the entry that started last (at or before it) governs; at equal start times the one
/// added later wins. A value starts at its time; a curve at its first control point (its time plus
/// that point's offset: several curves of one parameter all at time 0, each holding the next stretch
/// of points, play piecewise — how programs work around a curve's 16-point limit), interpolates
/// between its points and then holds its last value. Before the first entry the parameter has its
/// default.
public struct ControlTimeline: Equatable, Sendable {
    public enum Entry: Equatable, Sendable {
        case value(Double)
        case curve(ParameterCurve)
    }

    public let id: DynamicParameterID
    /// When each entry starts governing, in order (a curve's: its first point's time).
    public private(set) var starts: [Double] = []
    public private(set) var entries: [Entry] = []
    /// What each entry's times count from: a value's start, a curve's own time.
    public private(set) var origins: [Double] = []

    public init(id: DynamicParameterID) { self.id = id }

    /// A timeline holding many entries at once, ordered by start (stable: entries with equal starts
    /// keep the given order, the later one winning). One sort instead of one insertion per entry keeps
    /// building a pattern of many parameters linear-logarithmic whatever their file order.
    public init(id: DynamicParameterID, entries list: [(start: Double, entry: Entry)]) {
        self.id = id
        let ordered = list.map { (origin: $0.start, start: Self.governs($0.entry, from: $0.start), entry: $0.entry) }
            .enumerated().sorted { a, b in
                a.element.start < b.element.start || (a.element.start == b.element.start && a.offset < b.offset)
            }
        starts = ordered.map(\.element.start)
        entries = ordered.map(\.element.entry)
        origins = ordered.map(\.element.origin)
    }

    /// When an entry placed at `origin` starts governing: a curve at its first point.
    static func governs(_ entry: Entry, from origin: Double) -> Double {
        guard case .curve(let c) = entry, let first = c.controlPoints.first, first.time > 0 else { return origin }
        return origin + first.time
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Adds an entry, keeping start order (stable for equal starts).
    public mutating func add(_ entry: Entry, at origin: Double) {
        let start = Self.governs(entry, from: origin)
        var i = starts.count
        while i > 0 && starts[i - 1] > start { i -= 1 }
        starts.insert(start, at: i)
        entries.insert(entry, at: i)
        origins.insert(origin, at: i)
    }

    /// Drops every entry that starts after `time` (a cancelled schedule).
    public mutating func removeEntries(after time: Double) {
        while let last = starts.last, last > time {
            starts.removeLast()
            entries.removeLast()
            origins.removeLast()
        }
    }

    /// Forgets the entries that can no longer govern any time from `time` on: all but the last of
    /// those starting at or before it. A player's history stays as long as what is still to come.
    public mutating func prune(through time: Double) {
        guard starts.count > 1, starts[1] <= time else { return }
        let governing = startsThrough(time) - 1
        starts.removeFirst(governing)
        entries.removeFirst(governing)
        origins.removeFirst(governing)
    }

    /// How many entries start after `time` (scheduled, not yet in effect).
    public func entries(after time: Double) -> Int { starts.count - startsThrough(time) }

    /// The number of entries starting at or before `t` (binary search).
    @usableFromInline
    func startsThrough(_ t: Double) -> Int {
        var lo = 0
        var hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    @inlinable
    public func value(at t: Double) -> Double {
        let lo = startsThrough(t)
        guard lo > 0 else { return id.defaultValue }
        switch entries[lo - 1] {
        case .value(let v): return v
        case .curve(let c): return c.value(atOffset: t - origins[lo - 1])
        }
    }

    /// The largest value the timeline ever takes (the default included).
    public var maximum: Double {
        var m = id.defaultValue
        for entry in entries {
            switch entry {
            case .value(let v): m = max(m, v)
            case .curve(let c): for p in c.controlPoints { m = max(m, p.value) }
            }
        }
        return m
    }
}

/// Timelines for the five haptic controls.
public struct ControlTimelines: Equatable, Sendable {
    public var intensity = ControlTimeline(id: .hapticIntensityControl)
    public var sharpness = ControlTimeline(id: .hapticSharpnessControl)
    public var attack = ControlTimeline(id: .hapticAttackTimeControl)
    public var decay = ControlTimeline(id: .hapticDecayTimeControl)
    public var release = ControlTimeline(id: .hapticReleaseTimeControl)

    public init() {}

    /// Timelines holding these entries (audio controls have none and are left out).
    public init(_ entries: [(id: DynamicParameterID, entry: ControlTimeline.Entry, start: Double)]) {
        func list(_ id: DynamicParameterID) -> ControlTimeline {
            ControlTimeline(id: id, entries: entries.filter { $0.id == id }.map { ($0.start, $0.entry) })
        }
        intensity = list(.hapticIntensityControl)
        sharpness = list(.hapticSharpnessControl)
        attack = list(.hapticAttackTimeControl)
        decay = list(.hapticDecayTimeControl)
        release = list(.hapticReleaseTimeControl)
    }

    public var isEmpty: Bool {
        intensity.isEmpty && sharpness.isEmpty && attack.isEmpty && decay.isEmpty && release.isEmpty
    }

    /// Adds an entry to the timeline of `id`; audio controls have none and are ignored.
    public mutating func add(_ id: DynamicParameterID, _ entry: ControlTimeline.Entry, at start: Double) {
        switch id {
        case .hapticIntensityControl: intensity.add(entry, at: start)
        case .hapticSharpnessControl: sharpness.add(entry, at: start)
        case .hapticAttackTimeControl: attack.add(entry, at: start)
        case .hapticDecayTimeControl: decay.add(entry, at: start)
        case .hapticReleaseTimeControl: release.add(entry, at: start)
        default: break
        }
    }

    /// Applies `body` to each of the five timelines in place.
    @inline(__always)
    mutating func updateEach(_ body: (inout ControlTimeline) -> Void) {
        body(&intensity)
        body(&sharpness)
        body(&attack)
        body(&decay)
        body(&release)
    }

    /// The sum of `value` over the five timelines.
    @inline(__always)
    func sum(_ value: (ControlTimeline) -> Int) -> Int {
        value(intensity) + value(sharpness) + value(attack) + value(decay) + value(release)
    }

    public mutating func removeEntries(after time: Double) { updateEach { $0.removeEntries(after: time) } }

    public mutating func prune(through time: Double) { updateEach { $0.prune(through: time) } }

    /// Entries of every control that start after `time`.
    public func entries(after time: Double) -> Int { sum { $0.entries(after: time) } }

    /// Entries of every control (for bounds and tests).
    public var count: Int { sum { $0.entries.count } }

    @inlinable
    public func values(at t: Double) -> ControlValues {
        ControlValues(
            intensity: intensity.value(at: t), sharpness: sharpness.value(at: t), attack: attack.value(at: t),
            decay: decay.value(at: t), release: release.value(at: t))
    }
}
