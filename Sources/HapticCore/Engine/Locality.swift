/// Where on a pad an engine plays: Core Haptics' `GCHapticsLocality` names.
///
/// On Apple platforms a game makes one engine per locality of a controller; their outputs add up.
/// A rumble pad has two motors: the left, heavy, low-frequency one (`FF_RUMBLE`'s strong magnitude)
/// and the right, light, high-frequency one (weak). `leftHandle` drives only the first, `rightHandle`
/// only the second — a woofer and a tweeter — and `default`, `all` and `handles` spread a pattern over
/// both by its sharpness. The kernel has no trigger rumble: `triggers`, `leftTrigger` and
/// `rightTrigger` exist on no evdev pad (docs/rendering.md §10).
public enum Locality: String, CaseIterable, Sendable, Hashable {
    case `default` = "default"
    case all
    case handles
    case leftHandle
    case rightHandle
    case triggers
    case leftTrigger
    case rightTrigger

    /// How this locality's output reaches the motors; nil where a rumble pad has nothing.
    public var route: MotorRoute? {
        switch self {
        case .default, .all, .handles: .both
        case .leftHandle: .strongOnly
        case .rightHandle: .weakOnly
        case .triggers, .leftTrigger, .rightTrigger: nil
        }
    }

    /// The localities an evdev rumble pad supports, in Apple's order.
    public static let rumblePad: [Locality] = allCases.filter { $0.route != nil }
}

/// Which motors a signal drives.
public enum MotorRoute: Sendable, Equatable {
    /// Both, by sharpness: the equal-power crossfade (docs/rendering.md §5).
    case both
    /// Only the strong (left, low-frequency) motor: intensity is its magnitude.
    case strongOnly
    /// Only the weak (right, high-frequency) motor: intensity is its magnitude.
    case weakOnly
}
