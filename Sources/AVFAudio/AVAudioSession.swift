// AVFAudio on Linux: the audio session alone, as Core Haptics code uses it (docs/clients.md, "Swift").
import Foundation

/// A stand-in for AVFAudio's `AVAudioSession`, so that `CHHapticEngine(audioSession:
/// .sharedInstance())` — Apple's own samples create engines this way — compiles and plays on Linux,
/// with the `import AVFoundation` (or `import AVFAudio`) line those files have.
///
/// A pad has no speaker and hapticd plays no audio, so the session records what it is told and does
/// nothing else; every call succeeds.
public final class AVAudioSession: @unchecked Sendable {
    // @unchecked Sendable: its two properties are behind `lock`.

    public struct Category: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    public struct Mode: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
    }

    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
    }

    public enum RouteSharingPolicy: UInt, Sendable {
        case `default` = 0
        case longFormAudio = 1
        case independent = 2
        case longFormVideo = 3
    }

    /// Apple's session notifications (none is ever posted here: nothing interrupts a session that
    /// plays no audio), so that observers register as they do on Apple platforms.
    public static let interruptionNotification = Notification.Name("AVAudioSessionInterruptionNotification")
    public static let routeChangeNotification = Notification.Name("AVAudioSessionRouteChangeNotification")
    public static let mediaServicesWereLostNotification = Notification.Name("AVAudioSessionMediaServicesWereLostNotification")
    public static let mediaServicesWereResetNotification = Notification.Name("AVAudioSessionMediaServicesWereResetNotification")
    public static let silenceSecondaryAudioHintNotification = Notification.Name("AVAudioSessionSilenceSecondaryAudioHintNotification")

    /// What an `interruptionNotification`'s `userInfo` would say (`AVAudioSessionInterruptionTypeKey`,
    /// …): the types an observer decodes it with, Apple's raw values.
    public enum InterruptionType: UInt, Sendable {
        case ended = 0
        case began = 1
    }

    public struct InterruptionOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    public enum InterruptionReason: UInt, Sendable {
        case `default` = 0
        case appWasSuspended = 1
        case builtInMicMuted = 2
        case routeDisconnected = 4
    }

    /// What a `routeChangeNotification`'s `userInfo` would say (`AVAudioSessionRouteChangeReasonKey`).
    public enum RouteChangeReason: UInt, Sendable {
        case unknown = 0
        case newDeviceAvailable = 1
        case oldDeviceUnavailable = 2
        case categoryChange = 3
        case override = 4
        case wakeFromSleep = 6
        case noSuitableRouteForCategory = 7
        case routeConfigurationChange = 8
    }

    /// What a `silenceSecondaryAudioHintNotification`'s `userInfo` would say.
    public enum SilenceSecondaryAudioHintType: UInt, Sendable {
        case end = 0
        case begin = 1
    }

    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    private let lock = NSLock()
    private var _category = Category.soloAmbient
    private var _mode = Mode.default
    private var _options: CategoryOptions = []

    private static let shared = AVAudioSession()
    public class func sharedInstance() -> AVAudioSession { shared }

    public var category: Category { lock.withLock { _category } }
    public var mode: Mode { lock.withLock { _mode } }
    public var categoryOptions: CategoryOptions { lock.withLock { _options } }
    /// No other audio is heard through a pad.
    public var isOtherAudioPlaying: Bool { false }
    public var secondaryAudioShouldBeSilencedHint: Bool { false }
    public var outputVolume: Float { 1 }
    public var sampleRate: Double { 48_000 }

    public func setCategory(_ category: Category, mode: Mode = .default, options: CategoryOptions = []) throws {
        lock.withLock {
            _category = category
            _mode = mode
            _options = options
        }
    }

    public func setCategory(_ category: Category, mode: Mode, policy: RouteSharingPolicy, options: CategoryOptions = []) throws {
        try setCategory(category, mode: mode, options: options)
    }

    public func setCategory(_ category: Category) throws { try setCategory(category, mode: .default, options: []) }
    public func setMode(_ mode: Mode) throws { lock.withLock { _mode = mode } }
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws {}
}

/// The `userInfo` keys of the session's notifications (none is posted here), as Apple names them.
public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
public let AVAudioSessionInterruptionReasonKey = "AVAudioSessionInterruptionReasonKey"
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"
public let AVAudioSessionRouteChangePreviousRouteKey = "AVAudioSessionRouteChangePreviousRouteKey"
public let AVAudioSessionSilenceSecondaryAudioHintTypeKey = "AVAudioSessionSilenceSecondaryAudioHintTypeKey"
