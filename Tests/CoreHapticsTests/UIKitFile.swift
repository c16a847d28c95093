// A file as an iOS app writes it for its feedback generators: `import UIKit` and nothing else of ours.
// (No `import Testing` here: swift-testing cross-imports an overlay with UIKit, `_Testing_UIKit`, that
// exists only on Apple's platforms; UIKitImport.swift runs this.)
import UIKit

@MainActor
final class TapFeedback {
    private let impact = UIImpactFeedbackGenerator(style: .heavy)
    private let notification = UINotificationFeedbackGenerator()
    private let selection = UISelectionFeedbackGenerator()

    func buttonPressed(strength: CGFloat) {
        impact.prepare()
        impact.impactOccurred(intensity: strength)
        selection.selectionChanged()
        notification.notificationOccurred(.success)
    }
}
