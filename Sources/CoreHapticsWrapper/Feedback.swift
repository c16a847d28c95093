// UIFeedbackGenerator_* and UI*FeedbackGenerator_Trigger: the plug-in's UIKit feedback generators
// (C#: UIFeedbackGeneratorInterface). Apple's build does nothing outside iOS; here they play
// hapticd's feedback patterns on the default pad, as the HapticFeedback module does (hapticd's
// `feedback` command, sent without waiting: never failing, never blocking, nothing felt without
// hapticd or a pad).
import CoreHaptics
import HapticCore

/// What a generator handle holds.
final class GeneratorHandle: Sendable {
    /// The impact style, in hapticd's names (nil for the others).
    let style: String?
    init(style: String?) { self.style = style }
}

/// The C# enum `UIImpactType`: Heavy 0, Light 1, Medium 2, Rigid 3, Soft 4 (UIKit's raw values are
/// light 0, medium 1, heavy 2, soft 3, rigid 4); anything else heavy, as in Apple's wrapper.
func impactStyle(_ style: Int32) -> String {
    switch style {
    case 1: "light"
    case 2: "medium"
    case 3: "rigid"
    case 4: "soft"
    default: "heavy"
    }
}

/// The C# enum `UINotificationStyle`: Error 0, Success 1, Warning 2 (UIKit's: success 0, warning 1,
/// error 2); anything else success, as in Apple's wrapper.
func notificationType(_ type: Int32) -> String {
    switch type {
    case 0: "error"
    case 2: "warning"
    default: "success"
    }
}

func feedback(_ type: String, _ style: String?, intensity: Float? = nil) {
    var body = JSONObject(["type": .string(type)])
    if let style { body.append("style", .string(style)) }
    if let intensity {
        guard intensity.isFinite else { return }
        body.append("intensity", .number(Double(min(max(intensity, 0), 1))))
    }
    HapticService.shared.postWithoutWaiting("feedback", body)
}

// The C# passes `int`s (Apple's Swift declares `Int`): the C# is followed.
@_cdecl("UIFeedbackGenerator_CreateImpactGenerator")
public func UIFeedbackGenerator_CreateImpactGenerator(_ feedbackStyle: Int32) -> UnsafeMutableRawPointer? {
    Handles.retain(GeneratorHandle(style: impactStyle(feedbackStyle)), as: .impactGenerator)
}

@_cdecl("UIFeedbackGenerator_CreateSelectionGenerator")
public func UIFeedbackGenerator_CreateSelectionGenerator() -> UnsafeMutableRawPointer? {
    Handles.retain(GeneratorHandle(style: nil), as: .selectionGenerator)
}

@_cdecl("UIFeedbackGenerator_CreateNotificationGenerator")
public func UIFeedbackGenerator_CreateNotificationGenerator() -> UnsafeMutableRawPointer? {
    Handles.retain(GeneratorHandle(style: nil), as: .notificationGenerator)
}

@_cdecl("UIFeedbackGenerator_DestroyImpactGenerator")
public func UIFeedbackGenerator_DestroyImpactGenerator(_ generatorPtr: UnsafeRawPointer?) {
    Handles.release(generatorPtr, [.impactGenerator])
}

@_cdecl("UIFeedbackGenerator_DestroySelectionGenerator")
public func UIFeedbackGenerator_DestroySelectionGenerator(_ generatorPtr: UnsafeRawPointer?) {
    Handles.release(generatorPtr, [.selectionGenerator])
}

@_cdecl("UIFeedbackGenerator_DestroyNotificationGenerator")
public func UIFeedbackGenerator_DestroyNotificationGenerator(_ generatorPtr: UnsafeRawPointer?) {
    Handles.release(generatorPtr, [.notificationGenerator])
}

/// hapticd's `prepare`: the pad's engine started and its effect uploaded, for the least latency.
@_cdecl("UIFeedbackGenerator_Prepare")
public func UIFeedbackGenerator_Prepare(_ generatorPtr: UnsafeRawPointer?) {
    guard Handles.object(generatorPtr, [.impactGenerator, .selectionGenerator, .notificationGenerator], as: GeneratorHandle.self) != nil else { return }
    HapticService.shared.postWithoutWaiting("prepare", JSONObject())
}

/// `intensity` (0…1) scales the impact (the C#'s Trigger() passes 1).
@_cdecl("UIImpactFeedbackGenerator_Trigger")
public func UIImpactFeedbackGenerator_Trigger(_ generatorPtr: UnsafeRawPointer?, _ intensity: Float) {
    guard let g = Handles.object(generatorPtr, [.impactGenerator], as: GeneratorHandle.self) else { return }
    feedback("impact", g.style, intensity: intensity)
}

@_cdecl("UISelectionFeedbackGenerator_Trigger")
public func UISelectionFeedbackGenerator_Trigger(_ generatorPtr: UnsafeRawPointer?) {
    guard Handles.object(generatorPtr, [.selectionGenerator], as: GeneratorHandle.self) != nil else { return }
    feedback("selection", nil)
}

@_cdecl("UINotificationFeedbackGenerator_Trigger")
public func UINotificationFeedbackGenerator_Trigger(_ generatorPtr: UnsafeRawPointer?, _ feedbackType: Int32) {
    guard Handles.object(generatorPtr, [.notificationGenerator], as: GeneratorHandle.self) != nil else { return }
    feedback("notification", notificationType(feedbackType))
}
