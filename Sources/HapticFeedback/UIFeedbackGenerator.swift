// UIKit's feedback generators on Linux, over hapticd (docs/clients.md, "Swift"): an iOS file that uses
// them compiles with `import HapticFeedback` in place of `import UIKit`. As UIKit does, this module
// makes Foundation (and so `CGFloat`) available to its importers.
@_exported import Foundation
internal import CoreHaptics
internal import HapticCore

/// The base of the feedback generators: Apple's `UIFeedbackGenerator`.
///
/// Each generator plays hapticd's built-in feedback pattern of its kind (`impact-heavy`, `selection`,
/// `notification-error`, …; a pattern file of that name overrides it) on the default pad, through
/// hapticd's `feedback` command. As UIKit's, they never fail and never block: a call sends its request
/// and returns; without hapticd, or without a pad, nothing is felt. Main-actor isolated, as UIKit's
/// classes are (`@preconcurrency`, as Swift imports Apple's).
@preconcurrency @MainActor
open class UIFeedbackGenerator: NSObject {
    public nonisolated override init() {
        super.init()
    }

    /// Readies the pad for feedback in the next seconds (hapticd's `prepare`: its engine started,
    /// its kernel effect uploaded), so that the next feedback starts with the least latency.
    open func prepare() {
        HapticService.shared.postWithoutWaiting("prepare", JSONObject())
    }

    func feedback(_ type: String, _ style: String?, intensity: CGFloat? = nil) {
        var body = JSONObject(["type": .string(type)])
        if let style { body.append("style", .string(style)) }
        if let intensity {
            let x = Double(intensity)
            guard x.isFinite else { return }
            body.append("intensity", .number(min(max(x, 0), 1)))
        }
        HapticService.shared.postWithoutWaiting("feedback", body)
    }
}

/// Impacts: Apple's `UIImpactFeedbackGenerator`.
@preconcurrency @MainActor
open class UIImpactFeedbackGenerator: UIFeedbackGenerator {
    /// Apple's styles and raw values.
    public enum FeedbackStyle: Int, Sendable {
        case light = 0
        case medium = 1
        case heavy = 2
        case soft = 3
        case rigid = 4

        var name: String {
            switch self {
            case .light: "light"
            case .medium: "medium"
            case .heavy: "heavy"
            case .soft: "soft"
            case .rigid: "rigid"
            }
        }
    }

    private nonisolated let style: FeedbackStyle

    public nonisolated init(style: FeedbackStyle) {
        self.style = style
        super.init()
    }

    /// A `.medium` impact.
    public nonisolated override init() {
        style = .medium
        super.init()
    }

    open func impactOccurred() {
        feedback("impact", style.name)
    }

    /// `intensity` (0…1) scales the impact.
    open func impactOccurred(intensity: CGFloat) {
        feedback("impact", style.name, intensity: intensity)
    }
}

/// Success, warning and error: Apple's `UINotificationFeedbackGenerator`.
@preconcurrency @MainActor
open class UINotificationFeedbackGenerator: UIFeedbackGenerator {
    /// Apple's types and raw values.
    public enum FeedbackType: Int, Sendable {
        case success = 0
        case warning = 1
        case error = 2

        var name: String {
            switch self {
            case .success: "success"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    open func notificationOccurred(_ notificationType: FeedbackType) {
        feedback("notification", notificationType.name)
    }
}

/// A selection changing: Apple's `UISelectionFeedbackGenerator`.
@preconcurrency @MainActor
open class UISelectionFeedbackGenerator: UIFeedbackGenerator {
    open func selectionChanged() {
        feedback("selection", nil)
    }
}
