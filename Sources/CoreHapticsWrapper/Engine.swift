// CoreHaptics_CHHapticEngine_*: the plug-in's CHHapticEngine (C#: CHHapticEngineInterface).
import CCoreHapticsWrapper
import CoreHaptics
import Dispatch
import HapticCore
import Synchronization

/// What an engine handle holds.
final class EngineHandle: @unchecked Sendable {
    // @unchecked Sendable: `engine` is thread-safe (CHHapticEngine's documented contract).
    let engine: CHHapticEngine
    init(_ engine: CHHapticEngine) { self.engine = engine }
}

func engine(_ pointer: UnsafeRawPointer?) throws(WrapperError) -> CHHapticEngine {
    guard let h = Handles.object(pointer, [.engine], as: EngineHandle.self) else {
        throw WrapperError(.invalidEngineParameter, pointer == nil ? "the engine is null" : "not a live engine (destroyed, or not an engine)")
    }
    return h.engine
}

/// Runs `body`; an error goes to `onError` with `pointer` before this returns (synchronously, as
/// Apple's wrapper does: the C# throws it once the call returns).
func reporting(_ pointer: UnsafeRawPointer?, _ onError: CHWErrorWithPointerCallback?, _ body: () throws -> Void) {
    do { try body() } catch { onError?(pointer, CHWError(error)) }
}

/// The stopped reason as the C# enum `CHHapticEngineStoppedReason` has it: Apple's raw values,
/// except `systemError`, which the C# declares as 1 (Swift: -1).
func stoppedReason(_ reason: CHHapticEngine.StoppedReason) -> Int32 {
    reason == .systemError ? 1 : Int32(reason.rawValue)
}

@_cdecl("CoreHaptics_CHHapticEngine_Create")
public func CoreHaptics_CHHapticEngine_Create(
    _ onError: CHWErrorCallback?, _ onStopped: CHWStoppedCallback?, _ onReset: CHWPointerCallback?
) -> UnsafeMutableRawPointer? {
    let engine: CHHapticEngine
    do {
        engine = try CHHapticEngine()
    } catch {
        onError?(CHWError(error))
        return nil
    }
    let handle = Handles.retain(EngineHandle(engine), as: .engine)
    let token = Handles.token(handle)
    // On the callback thread (CallbackThread); not after Destroy.
    CallbackThread.shared.start()
    engine.stoppedHandler = { reason in
        CallbackThread.shared.post {
            guard let token, token.isLive else { return }
            onStopped?(token.pointer, stoppedReason(reason))
        }
    }
    engine.resetHandler = {
        CallbackThread.shared.post {
            guard let token, token.isLive else { return }
            onReset?(token.pointer)
        }
    }
    return handle
}

@_cdecl("CoreHaptics_CHHapticEngine_Destroy")
public func CoreHaptics_CHHapticEngine_Destroy(_ enginePtr: UnsafeRawPointer?) {
    Handles.release(enginePtr, [.engine])
}

@_cdecl("CoreHaptics_CHHapticEngine_Start")
public func CoreHaptics_CHHapticEngine_Start(_ enginePtr: UnsafeRawPointer?, _ onError: CHWErrorWithPointerCallback?) {
    reporting(enginePtr, onError) { try engine(enginePtr).start() }
}

@_cdecl("CoreHaptics_CHHapticEngine_Stop")
public func CoreHaptics_CHHapticEngine_Stop(_ enginePtr: UnsafeRawPointer?, _ onError: CHWErrorWithPointerCallback?) {
    reporting(enginePtr, onError) {
        let engine = try engine(enginePtr)
        // Apple's wrapper reports a failed stop later, from the completion handler; here the call
        // waits for it (bounded), so that the C# throws it from Stop() as it does for every other
        // call. (The completion runs on the engine's handler queue, never the callback thread: a
        // Stop from a callback does not wait for itself.)
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        let code = Mutex(CHHapticError.Code.unknownError)
        engine.stop { error in
            if let error {
                let e = CHWError(error)
                failure.withLock { $0 = String(cString: e.localizedDescription) }
                code.withLock { $0 = CHHapticError.Code(rawValue: Int(e.code)) ?? .unknownError }
            }
            done.signal()
        }
        guard done.wait(timeout: .now() + HapticService.requestTimeout + 1) == .success else {
            throw WrapperError(.serverInterrupted, "hapticd did not confirm the stop in time")
        }
        if let message = failure.withLock({ $0 }) { throw WrapperError(code.withLock { $0 }, message) }
    }
}

@_cdecl("CoreHaptics_CHHapticEngine_PlayPatternFromUrl")
public func CoreHaptics_CHHapticEngine_PlayPatternFromUrl(
    _ enginePtr: UnsafeRawPointer?, _ ahapUrl: UnsafePointer<CChar>?, _ onError: CHWErrorWithPointerCallback?
) {
    reporting(enginePtr, onError) {
        let engine = try engine(enginePtr)
        let path = try string(ahapUrl, "the AHAP path")
        // The C# passes a path; a file: URL is taken too.
        let url = path.hasPrefix("file://") ? (URL(string: path) ?? URL(fileURLWithPath: path)) : URL(fileURLWithPath: path)
        try engine.playPattern(from: url)
    }
}

@_cdecl("CoreHaptics_CHHapticEngine_PlayPatternFromJson")
public func CoreHaptics_CHHapticEngine_PlayPatternFromJson(
    _ enginePtr: UnsafeRawPointer?, _ ahapJson: UnsafePointer<CChar>?, _ onError: CHWErrorWithPointerCallback?
) {
    reporting(enginePtr, onError) {
        let engine = try engine(enginePtr)
        try engine.playPattern(from: Data(try string(ahapJson, "the AHAP JSON").utf8))
    }
}

/// A pattern from the plug-in's AHAP JSON, read as Apple's wrapper reads it (JSONSerialization,
/// then `CHHapticPattern(dictionary:)`).
func pattern(_ json: UnsafePointer<CChar>?) throws -> CHHapticPattern {
    let text = try string(json, "the AHAP JSON")
    let object: Any
    do {
        object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    } catch {
        // Foundation's error says only "The data couldn't be read"; hapticd's own parser says where and why.
        let reason: String
        do { _ = try JSONParser.parse(text); reason = "\(error)" } catch let syntax { reason = syntax.description }
        throw WrapperError(.invalidPatternData, "the AHAP JSON does not parse: \(reason)")
    }
    guard let dictionary = object as? [String: Any] else {
        throw WrapperError(.invalidPatternDictionary, "the AHAP JSON is not an object")
    }
    return try CHHapticPattern(dictionary: dictionary)
}

// The C# passes an ErrorWithPointerCallback (engine, error) to MakePlayer and MakeAdvancedPlayer,
// where Apple's Swift declares an ErrorCallback (error): the C# is followed.
@_cdecl("CoreHaptics_CHHapticEngine_MakePlayer")
public func CoreHaptics_CHHapticEngine_MakePlayer(
    _ enginePtr: UnsafeRawPointer?, _ ahapJson: UnsafePointer<CChar>?, _ onError: CHWErrorWithPointerCallback?
) -> UnsafeMutableRawPointer? {
    var handle: UnsafeMutableRawPointer?
    reporting(enginePtr, onError) {
        let engine = try engine(enginePtr)
        let player = try engine.makePlayer(with: try pattern(ahapJson))
        handle = Handles.retain(PlayerHandle(player, advanced: nil), as: .player)
    }
    return handle
}

@_cdecl("CoreHaptics_CHHapticEngine_MakeAdvancedPlayer")
public func CoreHaptics_CHHapticEngine_MakeAdvancedPlayer(
    _ enginePtr: UnsafeRawPointer?, _ ahapJson: UnsafePointer<CChar>?, _ onFinishedPlaying: CHWPointerCallback?,
    _ onError: CHWErrorWithPointerCallback?
) -> UnsafeMutableRawPointer? {
    var handle: UnsafeMutableRawPointer?
    reporting(enginePtr, onError) {
        let engine = try engine(enginePtr)
        let player = try engine.makeAdvancedPlayer(with: try pattern(ahapJson))
        let h = Handles.retain(PlayerHandle(player, advanced: player), as: .advancedPlayer)
        setCompletion(player, handle: h, onFinishedPlaying)
        handle = h
    }
    return handle
}

// The C# declares the finished callback as returning nothing (Apple's Swift: Int32, unused): the C#
// is followed. `leaveEngineRunning` is a C# bool: 4 bytes.
@_cdecl("CoreHaptics_CHHapticEngine_NotifyWhenPlayersFinished")
public func CoreHaptics_CHHapticEngine_NotifyWhenPlayersFinished(
    _ enginePtr: UnsafeRawPointer?, _ leaveEngineRunning: Int32, _ onAllPlayersFinished: CHWPointerCallback?,
    _ onError: CHWErrorWithPointerCallback?
) {
    reporting(enginePtr, onError) {
        let engine = try engine(enginePtr)
        let token = enginePtr.flatMap(Handles.token)
        let leave = bool(leaveEngineRunning)
        CallbackThread.shared.start()
        engine.notifyWhenPlayersFinished { error in
            let failure = error.map { CHWErrorBox(CHWError($0)) }
            // On the callback thread, as Apple's calls both from its handler queue: after this call.
            CallbackThread.shared.post {
                guard let token, token.isLive else { return }
                if let failure { onError?(token.pointer, failure.error) }
                onAllPlayersFinished?(token.pointer)
            }
            return leave ? .leaveEngineRunning : .stopEngine
        }
    }
}

@_cdecl("CoreHaptics_CHHapticEngine_HardwareSupportsHaptics")
public func CoreHaptics_CHHapticEngine_HardwareSupportsHaptics() -> Int32 {
    bool(CHHapticEngine.capabilitiesForHardware().supportsHaptics)
}

@_cdecl("CoreHaptics_CHHapticEngine_Get_IsAutoShutdownEnabled")
public func CoreHaptics_CHHapticEngine_Get_IsAutoShutdownEnabled(_ enginePtr: UnsafeRawPointer?) -> Int32 {
    bool((try? engine(enginePtr).isAutoShutdownEnabled) ?? false)
}

@_cdecl("CoreHaptics_CHHapticEngine_Set_IsAutoShutdownEnabled")
public func CoreHaptics_CHHapticEngine_Set_IsAutoShutdownEnabled(_ enginePtr: UnsafeRawPointer?, _ value: Int32) {
    (try? engine(enginePtr))?.isAutoShutdownEnabled = bool(value)
}

@_cdecl("CoreHaptics_CHHapticEngine_Get_PlaysHapticsOnly")
public func CoreHaptics_CHHapticEngine_Get_PlaysHapticsOnly(_ enginePtr: UnsafeRawPointer?) -> Int32 {
    bool((try? engine(enginePtr).playsHapticsOnly) ?? false)
}

@_cdecl("CoreHaptics_CHHapticEngine_Set_PlaysHapticsOnly")
public func CoreHaptics_CHHapticEngine_Set_PlaysHapticsOnly(_ enginePtr: UnsafeRawPointer?, _ value: Int32) {
    (try? engine(enginePtr))?.playsHapticsOnly = bool(value)
}

@_cdecl("CoreHaptics_CHHapticEngine_Get_IsMutedForAudio")
public func CoreHaptics_CHHapticEngine_Get_IsMutedForAudio(_ enginePtr: UnsafeRawPointer?) -> Int32 {
    bool((try? engine(enginePtr).isMutedForAudio) ?? false)
}

@_cdecl("CoreHaptics_CHHapticEngine_Set_IsMutedForAudio")
public func CoreHaptics_CHHapticEngine_Set_IsMutedForAudio(_ enginePtr: UnsafeRawPointer?, _ value: Int32) {
    (try? engine(enginePtr))?.isMutedForAudio = bool(value)
}

@_cdecl("CoreHaptics_CHHapticEngine_Get_IsMutedForHaptics")
public func CoreHaptics_CHHapticEngine_Get_IsMutedForHaptics(_ enginePtr: UnsafeRawPointer?) -> Int32 {
    bool((try? engine(enginePtr).isMutedForHaptics) ?? false)
}

@_cdecl("CoreHaptics_CHHapticEngine_Set_IsMutedForHaptics")
public func CoreHaptics_CHHapticEngine_Set_IsMutedForHaptics(_ enginePtr: UnsafeRawPointer?, _ value: Int32) {
    (try? engine(enginePtr))?.isMutedForHaptics = bool(value)
}

@_cdecl("CoreHaptics_CHHapticEngine_Get_CurrentTime")
public func CoreHaptics_CHHapticEngine_Get_CurrentTime(_ enginePtr: UnsafeRawPointer?) -> Double {
    (try? engine(enginePtr).currentTime).map(PluginClock.reading) ?? 0
}
