// Written as for an iPhone or an Apple game controller: on Linux only the UIKit import changes
// (to HapticFeedback); everything else is Apple's API as Apple documents it.
import CoreHaptics
import GameController

final class HapticManager {
    private var engine: CHHapticEngine?
    private var continuousPlayer: CHHapticAdvancedPatternPlayer?

    /// Uses the first game controller's haptics when there is one, the device's own otherwise.
    init() throws {
        if let controller = GCController.controllers().first, let haptics = controller.haptics {
            print("Using \(controller.vendorName ?? "a controller") (\(controller.productCategory)), localities: \(haptics.supportedLocalities.map(\.rawValue).sorted())")
            engine = haptics.createEngine(withLocality: .default)
        } else {
            guard CHHapticEngine.capabilitiesForHardware().supportsHaptics else {
                // On Linux: hapticd is not running, or has no pad (`hapticd --simulate` gives one).
                throw CHHapticError(.notSupported, userInfo: [NSLocalizedDescriptionKey: "no haptic hardware: is hapticd running with a pad?"])
            }
            engine = try CHHapticEngine()
        }
        engine?.stoppedHandler = { reason in
            print("The engine stopped: \(reason.rawValue)")
        }
        engine?.resetHandler = { [weak self] in
            print("The engine reset; restarting it")
            try? self?.engine?.start()
        }
        try engine?.start()
    }

    /// A heartbeat made in code: two transients and a soft continuous tail.
    func playHeartbeat() throws {
        var events: [CHHapticEvent] = []
        for (time, strength) in [(0.0, 1.0), (0.18, 0.7)] as [(TimeInterval, Float)] {
            let intensity = CHHapticEventParameter(parameterID: .hapticIntensity, value: strength)
            let sharpness = CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.3)
            events.append(CHHapticEvent(eventType: .hapticTransient, parameters: [intensity, sharpness], relativeTime: time))
        }
        events.append(CHHapticEvent(eventType: .hapticContinuous,
                                    parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.4),
                                                 CHHapticEventParameter(parameterID: .decayTime, value: 0.2),
                                                 CHHapticEventParameter(parameterID: .sustained, value: 0)],
                                    relativeTime: 0.3, duration: 0.3))
        let pattern = try CHHapticPattern(events: events, parameters: [])
        let player = try engine?.makePlayer(with: pattern)
        try player?.start(atTime: CHHapticTimeImmediate)
    }

    /// An engine hum whose strength follows the throttle.
    func startEngineHum() throws {
        let hum = CHHapticEvent(eventType: .hapticContinuous,
                                parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: 1),
                                             CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.2)],
                                relativeTime: 0, duration: 100)
        continuousPlayer = try engine?.makeAdvancedPlayer(with: CHHapticPattern(events: [hum], parameters: []))
        continuousPlayer?.completionHandler = { _ in print("The hum has stopped") }
        try continuousPlayer?.start(atTime: CHHapticTimeImmediate)
    }

    func setThrottle(_ throttle: Float) throws {
        let control = CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: throttle, relativeTime: 0)
        try continuousPlayer?.sendParameters([control], atTime: CHHapticTimeImmediate)
    }

    func stopEngineHum() throws {
        try continuousPlayer?.stop(atTime: CHHapticTimeImmediate)
    }

    /// The way most apps play a designer's AHAP file.
    func playFile(named name: String, in bundle: Bundle) throws {
        guard let url = bundle.url(forResource: name, withExtension: "ahap") else {
            throw CHHapticError(.fileNotFound)
        }
        let data = try Data(contentsOf: url)
        guard let dictionary = try JSONSerialization.jsonObject(with: data) as? [CHHapticPattern.Key: Any] else {
            throw CHHapticError(.invalidPatternDictionary)
        }
        let player = try engine?.makePlayer(with: CHHapticPattern(dictionary: dictionary))
        try player?.start(atTime: CHHapticTimeImmediate)
    }

    /// Stops the engine once everything has played.
    func finish(then done: @escaping @Sendable () -> Void) {
        engine?.notifyWhenPlayersFinished { error in
            if let error { print("Finished with \(error.localizedDescription)") }
            done()
            return .stopEngine
        }
    }
}
