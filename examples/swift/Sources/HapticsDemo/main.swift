import CoreHaptics
import Dispatch
import HapticFeedback

// Plays a short tour of Core Haptics on the first pad hapticd has, then exits.
do {
    let haptics = try HapticManager()
    try haptics.playHeartbeat()
    try await Task.sleep(for: .milliseconds(800))

    try haptics.startEngineHum()
    for throttle in stride(from: Float(0.2), through: 1, by: 0.2) {
        try haptics.setThrottle(throttle)
        try await Task.sleep(for: .milliseconds(100))
    }
    try haptics.stopEngineHum()

    try haptics.playFile(named: "Heartbeat", in: .module)
    try await Task.sleep(for: .milliseconds(500))

    let impact = UIImpactFeedbackGenerator(style: .heavy)
    impact.prepare()
    impact.impactOccurred()
    UINotificationFeedbackGenerator().notificationOccurred(.success)

    let finished = DispatchSemaphore(value: 0)
    haptics.finish { finished.signal() }
    if finished.wait(timeout: .now() + 10) == .timedOut {
        print("Players did not finish in 10 s")
        exit(1)
    }
    print("Done")
} catch {
    print("Haptics failed: \(error.localizedDescription)")
    exit(1)
}
