// Compile-only: every public API of Core Haptics, GameController's haptics and UIKit's feedback
// generators that issue 27 lists, called with Apple's exact spelling, labels, optionality and
// defaults, in the idioms iOS code uses. Nothing here runs: if this file compiles, code written this
// way for Apple platforms compiles on Linux. The behaviour is tested in PlaybackTests and HandlerTests.

import AVFoundation  // as Apple's samples write it, for the audio session
import AVFAudio
import CoreHaptics
import GameController
import HapticFeedback

// MARK: the engine

private final class HapticManager {
    var engine: CHHapticEngine?
    var player: CHHapticPatternPlayer?
    var advanced: CHHapticAdvancedPatternPlayer?
    var supportsHaptics = CHHapticEngine.capabilitiesForHardware().supportsHaptics

    func createEngine() {
        guard supportsHaptics else { return }
        do {
            engine = try CHHapticEngine()
        } catch let error {
            print("Engine creation error: \(error.localizedDescription)")
        }
        engine?.playsHapticsOnly = true
        engine?.isAutoShutdownEnabled = true
        engine?.isMutedForHaptics = false
        engine?.isMutedForAudio = true
        _ = engine?.playsAudioOnly
        engine?.stoppedHandler = { reason in
            switch reason {
            case .audioSessionInterrupt: print("audio session interrupt")
            case .applicationSuspended: print("application suspended")
            case .idleTimeout: print("idle timeout")
            case .notifyWhenFinished: print("finished")
            case .engineDestroyed: print("destroyed")
            case .gameControllerDisconnect: print("controller disconnected")
            case .systemError: print("system error")
            @unknown default: print("unknown \(reason.rawValue)")
            }
        }
        engine?.resetHandler = { [weak self] in
            do { try self?.engine?.start() } catch { print("restart failed: \(error)") }
        }
        engine?.start(completionHandler: { error in
            if let error { print(error.localizedDescription) }
        })
        engine?.stop(completionHandler: { _ in })
        engine?.stop()
        engine?.notifyWhenPlayersFinished { error -> CHHapticEngine.FinishedAction in
            error == nil ? .stopEngine : .leaveEngineRunning
        }
        let _: TimeInterval? = engine?.currentTime
        let reasons: [CHHapticEngine.StoppedReason] = [.gameControllerDisconnect, .systemError]
        _ = reasons.map(\.rawValue)
        _ = CHHapticEngine.FinishedAction(rawValue: 1)
    }

    /// As Apple's HapticRicochet sample makes its engine.
    func withAudioSession() throws {
        try AVAudioSession.sharedInstance().setCategory(.playback, mode: .default, options: [.mixWithOthers])
        try AVAudioSession.sharedInstance().setActive(true)
        // Voice-chat and speaker idioms, and the observers apps register (a stranger's review).
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, mode: .voiceChat, options: [.defaultToSpeaker, .allowBluetooth, .allowBluetoothA2DP])
        try session.setCategory(.playback, options: .mixWithOthers)
        try session.setCategory(.playback, mode: .moviePlayback, policy: .longFormVideo)
        try session.setMode(.spokenAudio)
        try session.setActive(false, options: .notifyOthersOnDeactivation)
        _ = session.isOtherAudioPlaying || session.secondaryAudioShouldBeSilencedHint || session.categoryOptions.contains(.duckOthers)
        _ = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification, object: session, queue: .main) { _ in }
        _ = [AVAudioSession.routeChangeNotification, AVAudioSession.mediaServicesWereResetNotification]
        // The interruption handler apps keep beside an engine (a stranger's second pass: real code).
        _ = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification, object: nil, queue: nil) { note in
            guard let info = note.userInfo, let raw = info[AVAudioSessionInterruptionTypeKey] as? UInt,
                  let type = AVAudioSession.InterruptionType(rawValue: raw) else { return }
            switch type {
            case .began: break
            case .ended:
                let options = AVAudioSession.InterruptionOptions(rawValue: info[AVAudioSessionInterruptionOptionKey] as? UInt ?? 0)
                _ = options.contains(.shouldResume)
            @unknown default: break
            }
        }
        if let raw = (Notification(name: AVAudioSession.routeChangeNotification).userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt),
           AVAudioSession.RouteChangeReason(rawValue: raw) == .oldDeviceUnavailable {}
        engine = try CHHapticEngine(audioSession: .sharedInstance())
        engine = try CHHapticEngine(audioSession: nil)
    }

    func concurrency() async throws {
        let engine = try CHHapticEngine()
        try await engine.start()
        try await engine.stop()
    }

    func throwingStart() throws {
        try engine?.start()
    }

    // MARK: patterns

    func patternsInCode() throws -> CHHapticPattern {
        let intensity = CHHapticEventParameter(parameterID: .hapticIntensity, value: 1)
        let sharpness = CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.5)
        let attack = CHHapticEventParameter(parameterID: .attackTime, value: 0.1)
        let decay = CHHapticEventParameter(parameterID: .decayTime, value: 0.2)
        let release = CHHapticEventParameter(parameterID: .releaseTime, value: 0.3)
        let sustained = CHHapticEventParameter(parameterID: .sustained, value: 1)
        intensity.value = 0.8
        _ = intensity.parameterID
        let tap = CHHapticEvent(eventType: .hapticTransient, parameters: [intensity, sharpness], relativeTime: 0)
        let hum = CHHapticEvent(eventType: .hapticContinuous, parameters: [intensity, attack, decay, release, sustained],
                                relativeTime: 0.1, duration: 0.5)
        let audio = CHHapticEvent(audioResourceID: 0, parameters: [], relativeTime: 0)
        let audioLong = CHHapticEvent(audioResourceID: 0, parameters: [], relativeTime: 0, duration: 1)
        tap.relativeTime = 0.05
        hum.duration = 0.4
        _ = (tap.type, tap.eventParameters, audio, audioLong)
        _ = [CHHapticEvent.EventType.audioContinuous, .audioCustom]

        let control = CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)
        _ = [CHHapticDynamicParameter.ID.hapticSharpnessControl, .hapticAttackTimeControl, .hapticDecayTimeControl,
             .hapticReleaseTimeControl, .audioVolumeControl, .audioPanControl, .audioBrightnessControl,
             .audioPitchControl, .audioAttackTimeControl, .audioDecayTimeControl, .audioReleaseTimeControl]
        control.value = 0.7
        control.relativeTime = 0.1
        _ = control.parameterID
        _ = [CHHapticEvent.ParameterID.audioVolume, .audioPitch, .audioPan, .audioBrightness]

        let points = [
            CHHapticParameterCurve.ControlPoint(relativeTime: 0, value: 0.2),
            CHHapticParameterCurveControlPoint(relativeTime: 0.5, value: 1),
        ]
        points[0].value = 0.3
        points[0].relativeTime = 0
        let curve = CHHapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: points, relativeTime: 0)
        curve.relativeTime = 0
        _ = (curve.parameterID, curve.controlPoints)

        _ = try CHHapticPattern(events: [tap, hum], parameters: [control])
        let pattern = try CHHapticPattern(events: [tap, hum], parameterCurves: [curve])
        let _: TimeInterval = pattern.duration
        let exported: [CHHapticPattern.Key: Any] = try pattern.exportDictionary()
        _ = exported[.pattern]
        // Coding keys spelled with the key's raw type (CoreHapticsUtils).
        enum CodingKeys: CHHapticPattern.Key.RawValue, CodingKey { case pattern = "Pattern" }
        let _: CHHapticPattern.Key.RawValue = CodingKeys.pattern.rawValue
        return pattern
    }

    func patternsFromDictionaries() throws {
        let literal: [CHHapticPattern.Key: Any] = [
            .version: 1.0,
            .pattern: [
                [CHHapticPattern.Key.event: [
                    CHHapticPattern.Key.eventType: CHHapticEvent.EventType.hapticTransient,
                    CHHapticPattern.Key.time: 0.001,
                    CHHapticPattern.Key.eventDuration: 1.0,
                    CHHapticPattern.Key.eventParameters: [
                        [CHHapticPattern.Key.parameterID: CHHapticEvent.ParameterID.hapticIntensity,
                         CHHapticPattern.Key.parameterValue: 1.0],
                    ],
                ]],
                [CHHapticPattern.Key.parameterCurve: [
                    CHHapticPattern.Key.parameterID: CHHapticDynamicParameter.ID.hapticIntensityControl.rawValue,
                    CHHapticPattern.Key.time: 0.0,
                    CHHapticPattern.Key.parameterCurveControlPoints: [
                        [CHHapticPattern.Key.time: 0.0, CHHapticPattern.Key.parameterValue: 0.2],
                    ],
                ]],
                [CHHapticPattern.Key.parameter: [
                    CHHapticPattern.Key.parameterID: CHHapticDynamicParameter.ID.hapticSharpnessControl.rawValue,
                    CHHapticPattern.Key.time: 0.0,
                    CHHapticPattern.Key.parameterValue: 0.4,
                ]],
            ],
        ]
        _ = try CHHapticPattern(dictionary: literal)
        _ = [CHHapticPattern.Key.eventWaveformPath, .eventWaveformUseVolumeEnvelope, .eventWaveformLoopEnabled]
        _ = CHHapticPattern.Key(rawValue: "Pattern").rawValue

        // The most common way apps load AHAP files.
        guard let url = Bundle.main.url(forResource: "Boing", withExtension: "ahap") else { return }
        let data = try Data(contentsOf: url)
        if let dict = try JSONSerialization.jsonObject(with: data, options: []) as? [CHHapticPattern.Key: Any] {
            let pattern = try CHHapticPattern(dictionary: dict)
            player = try engine?.makePlayer(with: pattern)
        }
        _ = try CHHapticPattern(contentsOf: url)
        try engine?.playPattern(from: url)
        try engine?.playPattern(from: data)
    }

    // MARK: players

    func players(_ pattern: CHHapticPattern) throws {
        guard let engine else { return }
        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: CHHapticTimeImmediate)
        try player.start(atTime: engine.currentTime + 0.1)
        try player.stop(atTime: CHHapticTimeImmediate)
        try player.sendParameters([CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)],
                                  atTime: 0)
        try player.scheduleParameterCurve(CHHapticParameterCurve(parameterID: .hapticIntensityControl,
                                                                 controlPoints: [.init(relativeTime: 0, value: 1)],
                                                                 relativeTime: 0), atTime: 0)
        try player.cancel()
        player.isMuted = true

        let advanced = try engine.makeAdvancedPlayer(with: pattern)
        advanced.loopEnabled = true
        advanced.loopEnd = 1.5
        advanced.playbackRate = 2
        advanced.isMuted = false
        advanced.completionHandler = { error in
            if let error { print("completion: \(error)") }
        }
        try advanced.start(atTime: 0)
        try advanced.pause(atTime: CHHapticTimeImmediate)
        try advanced.seek(toOffset: 0.5)
        try advanced.resume(atTime: CHHapticTimeImmediate)
        try advanced.stop(atTime: 0)
        _ = (advanced.loopEnabled, advanced.loopEnd, advanced.playbackRate)
        let asPlain: CHHapticPatternPlayer = advanced
        self.player = asPlain
        self.advanced = asPlain as? CHHapticAdvancedPatternPlayer
    }

    // MARK: audio (accepted, not played)

    func audio() throws {
        guard let engine, let url = Bundle.main.url(forResource: "sound", withExtension: "wav") else { return }
        let id: CHHapticAudioResourceID = try engine.registerAudioResource(url, options: [:])
        _ = try engine.registerAudioResource(url, options: [CHHapticAudioResourceKeyUseVolumeEnvelope: true,
                                                            CHHapticAudioResourceKeyLoopEnabled: false])
        _ = try engine.registerAudioResource(url)
        try engine.unregisterAudioResource(id)
    }

    // MARK: capabilities

    func capabilities() throws {
        let caps = CHHapticEngine.capabilitiesForHardware()
        _ = caps.supportsHaptics && !caps.supportsAudio
        let intensity = try caps.attributes(forEventParameter: .hapticIntensity, eventType: .hapticTransient)
        let control = try caps.attributes(forDynamicParameter: .hapticIntensityControl)
        let _: Float = intensity.minValue + intensity.maxValue + intensity.defaultValue + control.maxValue
    }

    // MARK: errors

    func errors() {
        do {
            try player?.start(atTime: 0)
        } catch CHHapticError.engineNotRunning {
            try? engine?.start()
        } catch let error as CHHapticError {
            switch error.code {
            case .serverInterrupted, .serverInitFailed: print("no daemon")
            case .invalidPatternData, .invalidPatternDictionary: print("bad pattern")
            case .notSupported, .invalidPatternPlayer, .operationNotPermitted, .resourceNotAvailable: break
            default: print("\(error.code.rawValue) \(error.localizedDescription)")
            }
            let ns = error as NSError
            _ = ns.domain == CoreHapticsErrorDomain && ns.code == CHHapticError.Code.engineNotRunning.rawValue
            _ = CHHapticError.errorDomain
        } catch {
            print(error.localizedDescription)
        }
        _ = CHHapticError(.invalidTime)
        _ = [CHHapticError.engineStartTimeout, .invalidAudioSession, .invalidEngineParameter, .invalidParameterType,
             .invalidEventType, .invalidEventTime, .invalidEventDuration, .invalidAudioResource, .badEventEntry,
             .badParameterEntry, .invalidTime, .fileNotFound, .insufficientPower, .unknownError, .memoryError]
    }

    // MARK: across a C boundary (as a Unity or C bridge carries them)

    // Apple's players are Objective-C protocols, whose existentials are class types there, so Apple's
    // own bridge writes `Unmanaged<CHHapticPatternPlayer>`; on Linux the protocol is a Swift one and a
    // bridge carries the player as an object (`as AnyObject`), which compiles on both.
    func bridge(_ pattern: CHHapticPattern) throws {
        guard let engine else { return }
        let enginePtr = Unmanaged.passRetained(engine).toOpaque()
        let back = Unmanaged<CHHapticEngine>.fromOpaque(enginePtr).takeUnretainedValue()
        let player = try back.makePlayer(with: pattern)
        let playerPtr = UnsafeRawPointer(Unmanaged.passRetained(player as AnyObject).toOpaque())
        try (Unmanaged<AnyObject>.fromOpaque(playerPtr).takeUnretainedValue() as! CHHapticPatternPlayer).start(atTime: 0)
        let advancedPtr = Unmanaged.passRetained(try back.makeAdvancedPlayer(with: pattern) as AnyObject).toOpaque()
        (Unmanaged<AnyObject>.fromOpaque(advancedPtr).takeUnretainedValue() as? CHHapticAdvancedPatternPlayer)?.loopEnabled = true
        _ = Unmanaged<AnyObject>.fromOpaque(advancedPtr).autorelease()
        Unmanaged<AnyObject>.fromOpaque(playerPtr).release()
        Unmanaged<CHHapticEngine>.fromOpaque(enginePtr).release()
    }
}

// MARK: players as Apple declares them: protocols

// Spelled with `any`, as Apple's documentation and current code spell them.
private final class PlayerCache {
    var engine: CHHapticEngine?
    private var players: [String: any CHHapticPatternPlayer] = [:]
    private var looping: (any CHHapticAdvancedPatternPlayer)?

    func player(_ name: String, _ pattern: CHHapticPattern) throws -> any CHHapticPatternPlayer {
        if let p = players[name] { return p }
        guard let engine else { throw CHHapticError(.engineNotRunning) }
        let p = try engine.makePlayer(with: pattern)
        players[name] = p
        return p
    }

    func loop(_ pattern: CHHapticPattern) throws {
        looping = try engine?.makeAdvancedPlayer(with: pattern)
        looping?.loopEnabled = true
        looping?.completionHandler = { error in print(error.map { "\($0)" } ?? "done") }
        try looping?.start(atTime: CHHapticTimeImmediate)
        if let plain = looping as (any CHHapticPatternPlayer)?, plain === looping { try plain.stop(atTime: 0) }
    }
}

// A test double of the player protocol, as apps write them for unit tests.
private final class RecordingPlayer: NSObject, CHHapticAdvancedPatternPlayer {
    var isMuted = false
    var loopEnabled = false
    var loopEnd: TimeInterval = 0
    var playbackRate: Float = 1
    var completionHandler: CHHapticAdvancedPatternPlayerCompletionHandler = { _ in }
    private(set) var starts: [TimeInterval] = []
    func start(atTime time: TimeInterval) throws { starts.append(time) }
    func stop(atTime time: TimeInterval) throws {}
    func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws {}
    func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws {}
    func cancel() throws {}
    func pause(atTime time: TimeInterval) throws {}
    func resume(atTime time: TimeInterval) throws {}
    func seek(toOffset offsetTime: TimeInterval) throws {}
}

private func playThrough(_ player: any CHHapticPatternPlayer) throws {
    try player.start(atTime: CHHapticTimeImmediate)
}

private func useDouble() throws {
    let double = RecordingPlayer()
    try playThrough(double)
    let asProtocol: any CHHapticAdvancedPatternPlayer = double
    asProtocol.playbackRate = 2
}

// Apps subclass the pattern classes (for Decodable AHAP parsers, say).
private final class DecodedEvent: CHHapticEvent {}
private final class DecodedParameter: CHHapticEventParameter {}

// MARK: game controllers

// @unchecked Sendable: as on Apple platforms in Swift 6 mode, `addObserver`'s block is @Sendable.
private final class ControllerHaptics: @unchecked Sendable {
    var engines: [GCController: CHHapticEngine] = [:]
    var observers: [NSObjectProtocol] = []

    func watch() {
        observers.append(NotificationCenter.default.addObserver(forName: .GCControllerDidConnect, object: nil, queue: nil) { [weak self] note in
            guard let controller = note.object as? GCController else { return }
            self?.setUp(controller)
        })
        observers.append(NotificationCenter.default.addObserver(forName: NSNotification.Name.GCControllerDidDisconnect, object: nil, queue: .main) { [weak self] note in
            guard let controller = note.object as? GCController else { return }
            self?.engines[controller] = nil
        })
        for controller in GCController.controllers() { setUp(controller) }
        _ = GCController.current?.vendorName
        _ = [NSNotification.Name.GCControllerDidBecomeCurrent, .GCControllerDidStopBeingCurrent]
    }

    func setUp(_ controller: GCController) {
        print("\(controller.vendorName ?? "controller") (\(controller.productCategory))")
        guard let haptics = controller.haptics else { return }
        let localities: Set<GCHapticsLocality> = haptics.supportedLocalities
        _ = [GCHapticsLocality.default, .all, .handles, .leftHandle, .rightHandle, .triggers, .leftTrigger, .rightTrigger]
        let locality: GCHapticsLocality = localities.contains(.handles) ? .handles : .default
        guard let engine = haptics.createEngine(withLocality: locality) else { return }
        engine.stoppedHandler = { reason in
            if reason == .gameControllerDisconnect { print("gone") }
        }
        try? engine.start()
        engines[controller] = engine
        _ = haptics.createEngine(withLocality: .leftHandle)
        _ = GCHapticsLocality(rawValue: "Left Handle").rawValue
        _ = controller.productCategory == GCProductCategoryDualSense
        readInput(controller)
    }

    /// Input, as games that play haptics on a button write it.
    func readInput(_ controller: GCController) {
        controller.handlerQueue = DispatchQueue(label: "input")
        guard let gamepad = controller.extendedGamepad else { return }
        gamepad.buttonA.pressedChangedHandler = { [weak self] _, _, pressed in
            if pressed, let engine = self?.engines[controller] { try? engine.playPattern(from: URL(fileURLWithPath: "Hit.ahap")) }
        }
        gamepad.rightTrigger.valueChangedHandler = { (button: GCControllerButtonInput, value: Float, pressed: Bool) in _ = (button.isAnalog, value, pressed) }
        gamepad.leftThumbstick.valueChangedHandler = { _, x, y in _ = (x * x + y * y).squareRoot() }
        gamepad.dpad.up.pressedChangedHandler = { _, _, _ in }
        gamepad.valueChangedHandler = { (pad: GCExtendedGamepad, element: GCControllerElement) in
            if element == pad.leftThumbstick { _ = pad.leftThumbstick.xAxis.value }
            if let button = element as? GCControllerButtonInput, button.isPressed { _ = button.localizedName }
        }
        _ = gamepad.buttonHome?.isPressed ?? false
        _ = gamepad.leftThumbstickButton?.value
        _ = (gamepad.buttonB.isPressed, gamepad.buttonX.value, gamepad.buttonY.isTouched, gamepad.leftShoulder.value, gamepad.rightShoulder.value)
        _ = (gamepad.buttonMenu.isPressed, gamepad.buttonOptions?.isPressed, gamepad.rightThumbstick.yAxis.value, gamepad.rightThumbstickButton)
        _ = gamepad.controller === controller
        _ = controller.physicalInputProfile.buttons[GCInputButtonA]?.isPressed
        _ = controller.physicalInputProfile.dpads[GCInputDirectionPad]?.xAxis.value
        _ = controller.physicalInputProfile[GCInputLeftTrigger]
        _ = controller.microGamepad?.buttonA.value
        controller.physicalInputProfile.valueDidChangeHandler = { profile, element in _ = (profile.lastEventTimestamp, element.aliases) }
        readExtras(controller)
        readPhysicalInput(controller)
    }

    /// Input as iOS 17 / macOS 14 code reads it: `controller.input`, its element collections, the
    /// inputs' handlers and the queue of input states.
    func readPhysicalInput(_ controller: GCController) {
        let input: GCControllerLiveInput = controller.input
        input.queue = DispatchQueue(label: "input")
        input.inputStateQueueDepth = 20
        _ = controller.input.buttons[.a]?.pressedInput.isPressed
        _ = input.dpads[.directionPad]?.xyAxes.value
        let stick: GCPoint2 = input.dpads[.leftThumbstick]?.xyAxes.value ?? GCPoint2Zero
        _ = (stick.x, stick.y, NSStringFromGCPoint2(stick), GCPoint2(x: 0, y: 1), GCPoint2())
        _ = (input.buttons[.leftTrigger]?.pressedInput.value, input.buttons[.home]?.pressedInput.lastPressedStateTimestamp)
        _ = [GCButtonElementName.a, .b, .x, .y, .leftShoulder, .rightShoulder, .leftTrigger, .rightTrigger, .leftThumbstickButton,
             .rightThumbstickButton, .menu, .options, .home, .share]
        _ = [GCDirectionPadElementName.directionPad, .leftThumbstick, .rightThumbstick]
        _ = (input.buttons[GCInputButtonA], input.elements[GCInputDualShockTouchpadButton], input["Button A"], input.elements[GCButtonElementName.a])
        _ = input.elements[GCButtonElementName.a]?.pressedInput.isPressed  // an element of the name's kind, as Apple's
        _ = input.elements[GCDirectionPadElementName.leftThumbstick]?.xyAxes.value
        _ = (input.elements[GCPhysicalInputElementName(rawValue: "Button B")], input.axes[GCAxisElementName(rawValue: "Axis")], input.switches.isEmpty)
        _ = (input.buttons.count, input.device, input.lastEventTimestamp, input.lastEventLatency, input.unmapped)
        for element in input.elements {
            _ = (element.aliases, element.localizedName, element.sfSymbolsName)
        }
        for button in input.buttons {
            let pressed: any GCLinearInput & GCPressedStateInput = button.pressedInput
            pressed.valueDidChangeHandler = { (element: any GCPhysicalInputElement, input: any GCLinearInput, value: Float) in _ = (element, input.isAnalog, value) }
            pressed.pressedDidChangeHandler = { element, input, isPressed in _ = (element.localizedName, input.lastPressedStateLatency, isPressed) }
            _ = (pressed.canWrap, pressed.lastValueTimestamp, pressed.lastValueLatency, pressed.sources.count)
            button.touchedInput?.touchedDidChangeHandler = { _, input, touched in _ = (input.isTouched, input.lastTouchedStateTimestamp, touched) }
        }
        for dpad in input.dpads {
            dpad.xyAxes.valueDidChangeHandler = { _, input, point in _ = (input.value.x, point.y) }
            dpad.xAxis.valueDidChangeHandler = { _, axis, value in _ = (axis.value, axis.canWrap, value) }
            _ = (dpad.yAxis.lastValueLatency, dpad.up.isPressed, dpad.down.value, dpad.left.isPressed, dpad.right.lastPressedStateTimestamp)
            for case let source as GCPhysicalInputSource in dpad.up.sources where source.direction.contains(.up) {
                _ = (source.elementAliases, source.elementLocalizedName, source.sfSymbolsName, GCPhysicalInputSourceDirection.notApplicable)
            }
        }
        input.elementValueDidChangeHandler = { (physicalInput: any GCDevicePhysicalInput, element: any GCPhysicalInputElement) in
            if let button = element as? GCButtonElement, button.pressedInput.isPressed { _ = physicalInput.lastEventTimestamp }
            if let dpad = element as? GCDirectionPadElement { _ = dpad.xyAxes.value }
            if let axis = element as? GCAxisElement { _ = (axis.absoluteInput?.value, axis.relativeInput.delta, axis.relativeInput.lastDeltaTimestamp) }
            if let control = element as? GCSwitchElement { _ = (control.positionInput.position, control.positionInput.positionRange, control.positionInput.isSequential) }
        }
        input.inputStateAvailableHandler = { input in
            while let state = input.nextInputState() {
                if let changed = state.changedElements() {
                    for element in changed where state.change(for: element) == .changed { _ = element.localizedName }
                }
                while let element = state.changedElements()?.nextObject() as? GCPhysicalInputElement { _ = element; break }
                _ = state.buttons[.b]?.pressedInput.isPressed
            }
        }
        let frozen: GCControllerInputState = input.capture()
        _ = frozen.dpads[.rightThumbstick]?.xAxis.value
        let physical: any GCDevicePhysicalInput = input
        let state: any GCDevicePhysicalInputState = physical.capture()
        _ = (state.buttons[.x], physical.inputStateQueueDepth, physical.queue)
        if let next = input.nextInputState() { _ = (next.change(for: next.elements.first!), next.lastEventTimestamp) }
        _ = [GCDevicePhysicalInputElementChange.unknownChange, .noChange, .changed]
        _ = GCController().input.elements.isEmpty  // a placeholder's
    }

    /// The rest of a controller as controller code reads it: battery, motion, the pads' own profiles,
    /// captures and snapshots, and the deprecated API older code still calls.
    func readExtras(_ controller: GCController) {
        if let battery = controller.battery {
            let level: Float = battery.batteryLevel
            switch battery.batteryState {
            case .charging, .full: _ = level
            case .discharging: _ = level < 0.2
            case .unknown: break
            @unknown default: break
            }
        }
        if let motion = controller.motion {
            if motion.sensorsRequireManualActivation { motion.sensorsActive = true }
            motion.valueChangedHandler = { (m: GCMotion) in
                let g: GCAcceleration = m.hasGravityAndUserAcceleration ? m.gravity : m.acceleration
                let r: GCRotationRate = m.rotationRate
                let q: GCQuaternion = m.attitude
                _ = (GCQuaternion(), GCMotion(), m.hasAttitudeAndRotationRate, GCDualSenseAdaptiveTrigger.discretePositionCount)
                _ = (g.x + m.userAcceleration.y, r.z, q.w, m.hasAttitude, m.hasRotationRate, m.controller)
            }
        }
        if let dualSense = controller.physicalInputProfile as? GCDualSenseGamepad {
            dualSense.leftTrigger.setModeFeedbackWithStartPosition(0.2, resistiveStrength: 0.8)
            dualSense.rightTrigger.setModeWeaponWithStartPosition(0.2, endPosition: 0.6, resistiveStrength: 1)
            dualSense.rightTrigger.setModeVibrationWithStartPosition(0.1, amplitude: 0.5, frequency: 0.3)
            dualSense.leftTrigger.setModeFeedback(resistiveStrengths: GCDualSenseAdaptiveTrigger.PositionalResistiveStrengths(values: (0, 0, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1, 1)))
            dualSense.leftTrigger.setModeSlopeFeedback(startPosition: 0.1, endPosition: 0.9, startStrength: 0.2, endStrength: 1)
            if dualSense.rightTrigger.mode == .weapon, dualSense.rightTrigger.status == .weaponFired { dualSense.rightTrigger.setModeOff() }
            _ = (dualSense.touchpadButton.isPressed, dualSense.touchpadPrimary.xAxis.value, dualSense.touchpadSecondary.yAxis.value, dualSense.leftTrigger.armPosition)
        } else if let dualShock = controller.extendedGamepad as? GCDualShockGamepad {
            dualShock.touchpadButton.pressedChangedHandler = { _, _, pressed in _ = pressed }
            if let touch = dualShock.touchpadPrimary { _ = touch.xAxis.value }  // implicitly unwrapped, as Apple's
        } else if let xbox = controller.extendedGamepad as? GCXboxGamepad {
            _ = (xbox.paddleButton1?.isPressed, xbox.buttonShare?.value)
        }
        _ = controller.physicalInputProfile.isKind(of: GCDualSenseGamepad.self)
        controller.extendedGamepad?.buttonHome?.preferredSystemGestureState = .alwaysReceive
        controller.extendedGamepad?.buttonOptions?.preferredSystemGestureState = .disabled
        GCController.shouldMonitorBackgroundEvents = true
        controller.light?.color = GCColor(red: 1, green: 0.2, blue: 0)
        controller.physicalInputProfile.setStateFromPhysicalInput(controller.physicalInputProfile.capture())

        // Recording and replaying input.
        let frozen: GCController = controller.capture()
        if frozen.isSnapshot, let pad = frozen.extendedGamepad {
            pad.buttonA.setValue(1)
            pad.leftThumbstick.setValueForXAxis(0.5, yAxis: -0.5)
        }
        let copy: GCExtendedGamepad? = controller.extendedGamepad?.capture()
        _ = copy?.buttonA.value
        let scripted = GCController.withExtendedGamepad()
        scripted.extendedGamepad?.rightTrigger.setValue(0.7)
        // A placeholder until a pad connects (NES_EMU's `var gameController: GCController = GCController()`).
        var placeholder: GCController = GCController()
        if placeholder.extendedGamepad == nil, let first = GCController.controllers().first { placeholder = first }
        _ = placeholder.vendorName

        // Deprecated, still in older games.
        controller.controllerPausedHandler = { (paused: GCController) in _ = paused.playerIndex }
        if let gamepad = controller.gamepad {
            gamepad.buttonA.pressedChangedHandler = { _, _, _ in }
            gamepad.valueChangedHandler = { (g: GCGamepad, element: GCControllerElement) in _ = (g.dpad.xAxis.value, element == g.buttonX) }
        }
        if let snapshot: GCExtendedGamepadSnapshot = controller.extendedGamepad?.saveSnapshot() {
            let data: Data = snapshot.snapshotData
            let restored = GCExtendedGamepadSnapshot(snapshotData: data)
            var fields = GCExtendedGamepadSnapshotData()
            if GCExtendedGamepadSnapshotDataFromNSData(&fields, data), fields.version == GCCurrentExtendedGamepadSnapshotDataVersion.rawValue {
                fields.buttonA = 1
                _ = NSDataFromGCExtendedGamepadSnapshotData(&fields)
            }
            _ = GCExtendedGamepadSnapshot(controller: controller, snapshotData: data)
            _ = (restored.buttonA.value, restored.dpad.up.isPressed, restored.leftTrigger.value)
        }
    }
}

// MARK: keyboards and mice as game code reads them (none is exposed on Linux)

// @unchecked Sendable: as on Apple platforms in Swift 6 mode, `addObserver`'s block is @Sendable.
private final class KeyboardAndMouse: @unchecked Sendable {
    var pressed: Set<GCKeyCode> = []
    var observers: [NSObjectProtocol] = []

    func watch() {
        if let keyboard = GCKeyboard.coalesced { attach(keyboard) }
        observers.append(NotificationCenter.default.addObserver(forName: .GCKeyboardDidConnect, object: nil, queue: .main) { [weak self] note in
            if let keyboard = note.object as? GCKeyboard { self?.attach(keyboard) }
        })
        observers.append(NotificationCenter.default.addObserver(forName: .GCKeyboardDidDisconnect, object: nil, queue: .main) { _ in })
        for name in [NSNotification.Name.GCMouseDidConnect, .GCMouseDidDisconnect, .GCMouseDidBecomeCurrent, .GCMouseDidStopBeingCurrent] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                if let mouse = note.object as? GCMouse { self?.attach(mouse) }
            })
        }
        if let mouse = GCMouse.current ?? GCMouse.mice().first { attach(mouse) }
    }

    func attach(_ keyboard: GCKeyboard) {
        keyboard.handlerQueue = .main
        keyboard.keyboardInput?.keyChangedHandler = { [weak self] _, _, keyCode, pressed in
            if pressed { self?.pressed.insert(keyCode) } else { self?.pressed.remove(keyCode) }
            switch keyCode {
            case .spacebar, .returnOrEnter, .keypadEnter: print("jump")
            case .keyW, .upArrow: print("up")
            case .F1: print("help")
            case .leftShift, .rightShift, .leftGUI: break
            default: break
            }
        }
        let jump = keyboard.keyboardInput?.button(forKeyCode: .spacebar)?.isPressed ?? false
        _ = (jump, keyboard.keyboardInput?.isAnyKeyPressed, keyboard.productCategory == GCProductCategoryKeyboard)
        _ = GCKeyCode(rawValue: 0x04) == .keyA && GCKeyCode(0x29) == .escape
    }

    func attach(_ mouse: GCMouse) {
        guard let input = mouse.mouseInput else { return }
        input.mouseMovedHandler = { _, deltaX, deltaY in print(deltaX, deltaY) }
        input.leftButton.pressedChangedHandler = { _, _, pressed in print(pressed) }
        input.rightButton?.valueChangedHandler = { _, _, _ in }
        input.scroll.valueChangedHandler = { _, x, y in print(x, y) }
        _ = (input.middleButton, input.auxiliaryButtons?.count, mouse.productCategory == GCProductCategoryMouse)
        let remotes: Set<String> = [
            GCProductCategorySiriRemote1stGen, GCProductCategorySiriRemote2ndGen, GCProductCategoryControlCenterRemote,
            GCProductCategoryCoalescedRemote, GCProductCategoryUniversalElectronicsRemote, GCProductCategoryArcadeStick,
        ]
        _ = remotes.contains(mouse.productCategory)
        let device: any GCDevice = mouse
        _ = device.physicalInputProfile.buttons
    }
}

// MARK: UIKit's feedback generators

@MainActor
private final class Feedback {
    let impact = UIImpactFeedbackGenerator(style: .medium)
    let notification = UINotificationFeedbackGenerator()
    let selection = UISelectionFeedbackGenerator()

    func tapped() {
        impact.prepare()
        impact.impactOccurred()
        impact.impactOccurred(intensity: 0.5)
        for style in [UIImpactFeedbackGenerator.FeedbackStyle.light, .medium, .heavy, .soft, .rigid] {
            UIImpactFeedbackGenerator(style: style).impactOccurred()
        }
        UIImpactFeedbackGenerator().impactOccurred()
        notification.prepare()
        notification.notificationOccurred(.success)
        notification.notificationOccurred(.warning)
        notification.notificationOccurred(UINotificationFeedbackGenerator.FeedbackType.error)
        selection.prepare()
        selection.selectionChanged()
        _ = UINotificationFeedbackGenerator.FeedbackType(rawValue: 0)
        _ = UIImpactFeedbackGenerator.FeedbackStyle(rawValue: 3)
    }
}

// MARK: a program's own engine class

/// Apple's engine initialisers are designated: a program's subclass inherits them (WhyPeopleKit's
/// `SendableCHHapticEngine`).
final class SendableEngine: CHHapticEngine, @unchecked Sendable {}

func makeOwnEngines() throws {
    let engine = try SendableEngine()
    let withSession = try SendableEngine(audioSession: .sharedInstance())
    try engine.start()
    _ = withSession.currentTime
}
