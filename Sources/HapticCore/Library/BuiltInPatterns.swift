/// The patterns hapticd plays with no pattern file installed: UIKit's feedback generators
/// (`UIImpactFeedbackGenerator`, `UISelectionFeedbackGenerator`, `UINotificationFeedbackGenerator`),
/// which the daemon's `feedback` command and the Swift `HapticFeedback` library rely on. A library
/// file of the same name (`impact-heavy.ahap` in a pattern directory) overrides one;
/// `hapticctl convert` or `AHAPWriter` writes one out as a starting point.
public enum BuiltInPatterns {
    public struct Entry: Sendable {
        public let name: String
        public let description: String
        public let pattern: HapticPattern
    }

    public static let all: [Entry] = [
        entry("impact-light", "Feedback: a light impact (UIImpactFeedbackGenerator .light): one short, crisp tap on the light motor.",
              [.transient(at: 0, intensity: 0.55, sharpness: 0.9)]),
        entry("impact-medium", "Feedback: a medium impact (.medium): a firmer tap across both motors.",
              [.transient(at: 0, intensity: 0.8, sharpness: 0.55)]),
        entry("impact-heavy", "Feedback: a heavy impact (.heavy): a full, dull thump on the heavy motor with a brief tail.",
              [.transient(at: 0, intensity: 1, sharpness: 0.1),
               .continuous(at: 0, duration: 0.05, intensity: 0.6, sharpness: 0, extra: [.init(.releaseTime, 0.3)])]),
        entry("impact-soft", "Feedback: a soft impact (.soft): a cushioned bump that swells in and fades out, low and round.",
              [.continuous(at: 0, duration: 0.07, intensity: 0.75, sharpness: 0.25, extra: [.init(.attackTime, 0.3), .init(.releaseTime, 0.35)])]),
        entry("impact-rigid", "Feedback: a rigid impact (.rigid): the shortest, hardest click the light motor can make.",
              [.transient(at: 0, intensity: 1, sharpness: 1)]),
        entry("selection", "Feedback: a selection change (UISelectionFeedbackGenerator): a faint, quick tick.",
              [.transient(at: 0, intensity: 0.35, sharpness: 0.8)]),
        entry("notification-success", "Feedback: success (UINotificationFeedbackGenerator .success): two taps rising in strength and brightness.",
              [.transient(at: 0, intensity: 0.55, sharpness: 0.5), .transient(at: 0.12, intensity: 1, sharpness: 0.85)]),
        entry("notification-warning", "Feedback: warning (.warning): a strong, round tap and a weaker echo.",
              [.transient(at: 0, intensity: 1, sharpness: 0.35), .transient(at: 0.18, intensity: 0.6, sharpness: 0.35)]),
        entry("notification-error", "Feedback: error (.error): a rough buzz of four quick taps over a low rumble.",
              [.transient(at: 0, intensity: 1, sharpness: 0.6), .transient(at: 0.07, intensity: 0.9, sharpness: 0.2),
               .transient(at: 0.14, intensity: 1, sharpness: 0.6), .transient(at: 0.21, intensity: 0.9, sharpness: 0.2),
               .continuous(at: 0, duration: 0.25, intensity: 0.35, sharpness: 0, extra: [.init(.releaseTime, 0.2)])]),
    ]

    public static subscript(name: String) -> Entry? { all.first { $0.name == name } }

    private static func entry(_ name: String, _ description: String, _ events: [HapticEvent]) -> Entry {
        Entry(
            name: name, description: description,
            pattern: HapticPattern(metadata: JSONObject(["Description": .string(description)]), elements: events.map { .event($0) }))
    }
}
