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

    /// How this locality's output reaches the motors of an evdev rumble pad; nil where it has nothing.
    public var route: MotorRoute? { route(for: .rumble) }

    /// How this locality's output reaches a pad with these actuators; nil where the pad has nothing
    /// there (docs/rendering.md §10 and §13).
    public func route(for actuators: DeviceProfile.Actuators) -> MotorRoute? {
        switch (actuators, self) {
        case (.rumble, .default), (.rumble, .all), (.rumble, .handles): .both
        case (.rumble, .leftHandle): .strongOnly
        case (.rumble, .rightHandle): .weakOnly
        case (.rumble, _): nil
        // Two HD-rumble actuators, each with a low and a high band: a handle is a whole actuator,
        // crossfaded by sharpness like the pair of a rumble pad.
        case (.hdRumble, .default), (.hdRumble, .all), (.hdRumble, .handles):
            MotorRoute(crossfadesFirstPair: true, crossfadesSecondPair: true)
        case (.hdRumble, .leftHandle): MotorRoute(crossfadesFirstPair: true)
        case (.hdRumble, .rightHandle): MotorRoute(crossfadesSecondPair: true)
        case (.hdRumble, _): nil
        // Handle motors as on a rumble pad, and a motor in each trigger (one frequency each).
        case (.rumbleAndTriggers, .default), (.rumbleAndTriggers, .handles): .both
        case (.rumbleAndTriggers, .all):
            MotorRoute(crossfadesFirstPair: true, direct: MotorRoute.thirdChannel | MotorRoute.fourthChannel)
        case (.rumbleAndTriggers, .leftHandle): .strongOnly
        case (.rumbleAndTriggers, .rightHandle): .weakOnly
        case (.rumbleAndTriggers, .triggers): MotorRoute(direct: MotorRoute.thirdChannel | MotorRoute.fourthChannel)
        case (.rumbleAndTriggers, .leftTrigger): MotorRoute(direct: MotorRoute.thirdChannel)
        case (.rumbleAndTriggers, .rightTrigger): MotorRoute(direct: MotorRoute.fourthChannel)
        // One motor, a handle alone (a Joy-Con through hid-nintendo): every locality the pad has is
        // that motor, at the intensity (it has one frequency); a rumble's pair folds onto it.
        case (.leftMotor, .default), (.leftMotor, .all), (.leftMotor, .handles), (.leftMotor, .leftHandle):
            MotorRoute(direct: MotorRoute.strongChannel, foldsPair: true)
        case (.leftMotor, _): nil
        case (.rightMotor, .default), (.rightMotor, .all), (.rightMotor, .handles), (.rightMotor, .rightHandle):
            MotorRoute(direct: MotorRoute.weakChannel, foldsPair: true)
        case (.rightMotor, _): nil
        // One HD-rumble actuator, a handle alone (a Joy-Con through its own reports): every locality
        // the pad has is that actuator, crossfaded by sharpness into its bands (the first pair).
        case (.hdRumbleLeft, .default), (.hdRumbleLeft, .all), (.hdRumbleLeft, .handles), (.hdRumbleLeft, .leftHandle):
            MotorRoute(crossfadesFirstPair: true)
        case (.hdRumbleLeft, _): nil
        case (.hdRumbleRight, .default), (.hdRumbleRight, .all), (.hdRumbleRight, .handles), (.hdRumbleRight, .rightHandle):
            MotorRoute(crossfadesFirstPair: true)
        case (.hdRumbleRight, _): nil
        }
    }

    /// The localities an evdev rumble pad supports, in Apple's order.
    public static let rumblePad: [Locality] = supported(by: .rumble)

    /// The localities a pad with these actuators supports, in Apple's order.
    public static func supported(by actuators: DeviceProfile.Actuators) -> [Locality] {
        allCases.filter { $0.route(for: actuators) != nil }
    }
}

/// Which actuator channels a signal drives (`MotorMagnitudes`' four): pairs that take the
/// equal-power crossfade by sharpness, and channels that take the intensity as it is (one motor, one
/// frequency: sharpness moves no energy there).
public struct MotorRoute: Sendable, Equatable, Hashable {
    /// Whether (`strong`, `weak`) take the crossfade.
    public var crossfadesFirstPair: Bool
    /// Whether (`third`, `fourth`) take the crossfade.
    public var crossfadesSecondPair: Bool
    /// The channels that take the intensity itself: a mask of `strongChannel`, `weakChannel`,
    /// `thirdChannel`, `fourthChannel`.
    public var direct: UInt8
    /// The pad has one motor that is felt (`direct`'s handle channel): a rumble's pair of magnitudes
    /// folds onto it (`place`), where on a two-motor pad each would go to its own motor.
    public var foldsPair: Bool

    public static let strongChannel: UInt8 = 1
    public static let weakChannel: UInt8 = 2
    public static let thirdChannel: UInt8 = 4
    public static let fourthChannel: UInt8 = 8

    public init(crossfadesFirstPair: Bool = false, crossfadesSecondPair: Bool = false, direct: UInt8 = 0, foldsPair: Bool = false) {
        self.crossfadesFirstPair = crossfadesFirstPair
        self.crossfadesSecondPair = crossfadesSecondPair
        self.direct = direct & 0x0F
        self.foldsPair = foldsPair
    }

    /// Both motors of a rumble pad, by sharpness: the equal-power crossfade (docs/rendering.md §5).
    public static let both = MotorRoute(crossfadesFirstPair: true)
    /// Only the strong (left, low-frequency) motor: intensity is its magnitude.
    public static let strongOnly = MotorRoute(direct: strongChannel)
    /// Only the weak (right, high-frequency) motor: intensity is its magnitude.
    public static let weakOnly = MotorRoute(direct: weakChannel)

    /// Where a fixed pair of magnitudes (a `rumble` command's strong and weak) goes: on a route with
    /// a handle motor it ignores the route's one-motor choices — its magnitudes are the handle
    /// motors' — and where the route crossfades into the second pair (both HD-rumble actuators),
    /// that pair takes them too, as SDL plays a rumble on a Switch pad (low band ← strong, high band
    /// ← weak, on both actuators). A trigger locality's route has no handle motor, and a rumble
    /// there never moves one: the left trigger takes strong, the right one weak (the order of
    /// SDL's `SDL_RumbleGamepadTriggers(left, right)`), each where the route has it. On a pad with
    /// one motor (`foldsPair`) the pair folds onto it: the stronger of the two, so that a game's
    /// rumble is felt whichever of its motors it chose.
    public func place(strong: UInt16, weak: UInt16) -> MotorMagnitudes {
        if foldsPair {
            let one = max(strong, weak)
            return MotorMagnitudes(strong: direct & Self.strongChannel != 0 ? one : 0, weak: direct & Self.weakChannel != 0 ? one : 0)
        }
        guard crossfadesFirstPair || direct & (Self.strongChannel | Self.weakChannel) != 0 else {
            return MotorMagnitudes(strong: 0, weak: 0, third: direct & Self.thirdChannel != 0 ? strong : 0,
                                   fourth: direct & Self.fourthChannel != 0 ? weak : 0)
        }
        return MotorMagnitudes(strong: strong, weak: weak, third: crossfadesSecondPair ? strong : 0, fourth: crossfadesSecondPair ? weak : 0)
    }
}
