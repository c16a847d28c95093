// `import UIKit` on Linux, for haptics code: iOS files import UIKit for its feedback generators
// (`UIImpactFeedbackGenerator`, `UINotificationFeedbackGenerator`, `UISelectionFeedbackGenerator`),
// which are HapticFeedback's here, re-exported with Foundation as UIKit makes it available. Nothing
// else of UIKit is here: a file that also draws views does not compile, and says which name is missing
// (docs/clients.md, "Swift"). The same stand-in as AVFoundation's for the audio session.
@_exported import HapticFeedback
@_exported import Foundation
