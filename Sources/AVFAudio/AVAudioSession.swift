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
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
    }

    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
    }

    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    private let lock = NSLock()
    private var _category = Category.soloAmbient
    private var _mode = Mode.default

    private static let shared = AVAudioSession()
    public class func sharedInstance() -> AVAudioSession { shared }

    public var category: Category { lock.withLock { _category } }
    public var mode: Mode { lock.withLock { _mode } }

    public func setCategory(_ category: Category, mode: Mode = .default, options: CategoryOptions = []) throws {
        lock.withLock {
            _category = category
            _mode = mode
        }
    }

    public func setCategory(_ category: Category) throws { try setCategory(category, mode: .default, options: []) }
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws {}
}
