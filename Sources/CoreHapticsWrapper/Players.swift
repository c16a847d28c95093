// CoreHaptics_CHHapticPatternPlayer_* and CoreHaptics_CHHapticAdvancedPatternPlayer_*: the
// plug-in's players (C#: CHHapticPatternPlayerInterface, CHHapticAdvancedPatternPlayerInterface).
import CCoreHapticsWrapper
import CoreHaptics

/// What a player handle holds. The plug-in's C# calls the plain player's functions with an
/// advanced player's handle too (its base class's Destroy and Muted), so those take both kinds.
final class PlayerHandle: @unchecked Sendable {
    // @unchecked Sendable: CoreHaptics' players are thread-safe.
    let player: CHHapticPatternPlayer
    let advanced: (CHHapticAdvancedPatternPlayer)?
    init(_ player: CHHapticPatternPlayer, advanced: (CHHapticAdvancedPatternPlayer)?) {
        self.player = player
        self.advanced = advanced
    }
}

func player(_ pointer: UnsafeRawPointer?) throws(WrapperError) -> CHHapticPatternPlayer {
    guard let h = Handles.object(pointer, [.player, .advancedPlayer], as: PlayerHandle.self) else {
        throw WrapperError(.invalidPatternPlayer, pointer == nil ? "the player is null" : "not a live player (destroyed, or not a player)")
    }
    return h.player
}

func advancedPlayer(_ pointer: UnsafeRawPointer?) throws(WrapperError) -> CHHapticAdvancedPatternPlayer {
    guard let h = Handles.object(pointer, [.advancedPlayer], as: PlayerHandle.self), let p = h.advanced else {
        throw WrapperError(.invalidPatternPlayer, pointer == nil ? "the player is null" : "not a live advanced player (destroyed, or not one)")
    }
    return p
}

/// The advanced player's completion handler calls `callback` with the player's handle (on the
/// callback thread), while the handle lives. Call on the game's thread (it starts that thread).
func setCompletion(_ player: CHHapticAdvancedPatternPlayer, handle: UnsafeRawPointer, _ callback: CHWPointerCallback?) {
    let token = Handles.token(handle)
    CallbackThread.shared.start()
    player.completionHandler = { _ in
        CallbackThread.shared.post {
            guard let token, token.isLive else { return }
            callback?(token.pointer)
        }
    }
}

/// The dynamic parameters of a request (`parametersLength` of them at `parameters`).
func parameters(_ request: CHWSendParametersRequest) throws(WrapperError) -> [CHHapticDynamicParameter] {
    let n = Int(request.parametersLength)
    guard n >= 0, n <= 4096 else { throw WrapperError(.invalidParameterType, "\(n) parameters") }
    guard n == 0 || request.parameters != nil else { throw WrapperError(.invalidParameterType, "the parameters are null") }
    return (0..<n).map { i in
        let p = request.parameters![i]
        return CHHapticDynamicParameter(parameterID: dynamicParameter(p.parameterID), value: p.value, relativeTime: TimeInterval(p.relativeTime))
    }
}

/// The curve of a request (`pointsLength` control points at `points`).
func curve(_ c: CHWHapticParameterCurve) throws(WrapperError) -> CHHapticParameterCurve {
    let n = Int(c.pointsLength)
    guard n >= 0, n <= 4096 else { throw WrapperError(.invalidParameterType, "\(n) control points") }
    guard n == 0 || c.points != nil else { throw WrapperError(.invalidParameterType, "the control points are null") }
    let points = (0..<n).map { i in
        CHHapticParameterCurve.ControlPoint(relativeTime: TimeInterval(c.points![i].relativeTime), value: c.points![i].value)
    }
    return CHHapticParameterCurve(parameterID: dynamicParameter(c.parameterId), controlPoints: points, relativeTime: c.relativeTime)
}

// MARK: CHHapticPatternPlayer

@_cdecl("CoreHaptics_CHHapticPatternPlayer_Start")
public func CoreHaptics_CHHapticPatternPlayer_Start(_ playerPtr: UnsafeRawPointer?, _ startTime: Float, _ onError: CHWErrorWithPointerCallback?) {
    reporting(playerPtr, onError) { try player(playerPtr).start(atTime: time(startTime)) }
}

@_cdecl("CoreHaptics_CHHapticPatternPlayer_Stop")
public func CoreHaptics_CHHapticPatternPlayer_Stop(_ playerPtr: UnsafeRawPointer?, _ stopTime: Float, _ onError: CHWErrorWithPointerCallback?) {
    reporting(playerPtr, onError) { try player(playerPtr).stop(atTime: time(stopTime)) }
}

@_cdecl("CoreHaptics_CHHapticPatternPlayer_GetIsMuted")
public func CoreHaptics_CHHapticPatternPlayer_GetIsMuted(_ playerPtr: UnsafeRawPointer?) -> Int32 {
    bool((try? player(playerPtr).isMuted) ?? false)
}

@_cdecl("CoreHaptics_CHHapticPatternPlayer_SetIsMuted")
public func CoreHaptics_CHHapticPatternPlayer_SetIsMuted(_ playerPtr: UnsafeRawPointer?, _ isMuted: Int32) {
    guard let p = try? player(playerPtr) else { return }
    p.isMuted = bool(isMuted)
}

// The C# declares Destroy as returning a pointer (Apple's Swift: nothing): null is returned.
@_cdecl("CoreHaptics_CHHapticPatternPlayer_Destroy")
public func CoreHaptics_CHHapticPatternPlayer_Destroy(_ playerPtr: UnsafeRawPointer?) -> UnsafeMutableRawPointer? {
    Handles.release(playerPtr, [.player, .advancedPlayer])
    return nil
}

@_cdecl("CoreHaptics_CHHapticPatternPlayer_SendParameters")
public func CoreHaptics_CHHapticPatternPlayer_SendParameters(
    _ playerPtr: UnsafeRawPointer?, _ request: CHWSendParametersRequest, _ onError: CHWErrorWithPointerCallback?
) {
    reporting(playerPtr, onError) { try player(playerPtr).sendParameters(try parameters(request), atTime: time(request.atTime)) }
}

@_cdecl("CoreHaptics_CHHapticPatternPlayer_ScheduleParameterCurve")
public func CoreHaptics_CHHapticPatternPlayer_ScheduleParameterCurve(
    _ playerPtr: UnsafeRawPointer?, _ parameterCurve: CHWHapticParameterCurve, _ atTime: Float, _ onError: CHWErrorWithPointerCallback?
) {
    reporting(playerPtr, onError) { try player(playerPtr).scheduleParameterCurve(try curve(parameterCurve), atTime: time(atTime)) }
}

// MARK: CHHapticAdvancedPatternPlayer

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_Start")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_Start(_ playerPtr: UnsafeRawPointer?, _ startTime: Float, _ onError: CHWErrorWithPointerCallback?) {
    reporting(playerPtr, onError) { try advancedPlayer(playerPtr).start(atTime: time(startTime)) }
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_Stop")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_Stop(_ playerPtr: UnsafeRawPointer?, _ stopTime: Float, _ onError: CHWErrorWithPointerCallback?) {
    reporting(playerPtr, onError) { try advancedPlayer(playerPtr).stop(atTime: time(stopTime)) }
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_Pause")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_Pause(_ playerPtr: UnsafeRawPointer?, _ pauseTime: Float, _ onError: CHWErrorWithPointerCallback?) {
    reporting(playerPtr, onError) { try advancedPlayer(playerPtr).pause(atTime: time(pauseTime)) }
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_Resume")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_Resume(_ playerPtr: UnsafeRawPointer?, _ resumeTime: Float, _ onError: CHWErrorWithPointerCallback?) {
    reporting(playerPtr, onError) { try advancedPlayer(playerPtr).resume(atTime: time(resumeTime)) }
}

/// An offset into the pattern (seconds), not a time: 0 is its start.
@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_Seek")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_Seek(_ playerPtr: UnsafeRawPointer?, _ seekTime: Float, _ onError: CHWErrorWithPointerCallback?) {
    reporting(playerPtr, onError) { try advancedPlayer(playerPtr).seek(toOffset: TimeInterval(seekTime)) }
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_GetIsMuted")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_GetIsMuted(_ playerPtr: UnsafeRawPointer?) -> Int32 {
    bool((try? advancedPlayer(playerPtr).isMuted) ?? false)
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_SetIsMuted")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_SetIsMuted(_ playerPtr: UnsafeRawPointer?, _ isMuted: Int32) {
    guard let p = try? advancedPlayer(playerPtr) else { return }
    p.isMuted = bool(isMuted)
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_GetLoopEnabled")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_GetLoopEnabled(_ playerPtr: UnsafeRawPointer?) -> Int32 {
    bool((try? advancedPlayer(playerPtr).loopEnabled) ?? false)
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_SetLoopEnabled")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_SetLoopEnabled(_ playerPtr: UnsafeRawPointer?, _ loopEnabled: Int32) {
    guard let p = try? advancedPlayer(playerPtr) else { return }
    p.loopEnabled = bool(loopEnabled)
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_GetLoopEnd")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_GetLoopEnd(_ playerPtr: UnsafeRawPointer?) -> Double {
    (try? advancedPlayer(playerPtr).loopEnd) ?? 0
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_SetLoopEnd")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_SetLoopEnd(_ playerPtr: UnsafeRawPointer?, _ loopEnd: Double) {
    guard let p = try? advancedPlayer(playerPtr) else { return }
    p.loopEnd = loopEnd
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_GetPlaybackRate")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_GetPlaybackRate(_ playerPtr: UnsafeRawPointer?) -> Float {
    (try? advancedPlayer(playerPtr).playbackRate) ?? 0
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_SetPlaybackRate")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_SetPlaybackRate(_ playerPtr: UnsafeRawPointer?, _ rate: Float) {
    guard let p = try? advancedPlayer(playerPtr) else { return }
    p.playbackRate = rate
}

// As CHHapticPatternPlayer_Destroy: the C# expects a pointer back.
@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_Destroy")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_Destroy(_ playerPtr: UnsafeRawPointer?) -> UnsafeMutableRawPointer? {
    Handles.release(playerPtr, [.advancedPlayer])
    return nil
}

@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_SendParameters")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_SendParameters(
    _ playerPtr: UnsafeRawPointer?, _ request: CHWSendParametersRequest, _ onError: CHWErrorWithPointerCallback?
) {
    reporting(playerPtr, onError) { try advancedPlayer(playerPtr).sendParameters(try parameters(request), atTime: time(request.atTime)) }
}

/// Replaces the completion callback given to MakeAdvancedPlayer (the C# never calls this one).
@_cdecl("CoreHaptics_CHHapticAdvancedPatternPlayer_RegisterCompletionHandler")
public func CoreHaptics_CHHapticAdvancedPatternPlayer_RegisterCompletionHandler(
    _ playerPtr: UnsafeRawPointer?, _ handler: CHWPointerCallback?, _ onError: CHWErrorWithPointerCallback?
) {
    reporting(playerPtr, onError) {
        let p = try advancedPlayer(playerPtr)
        setCompletion(p, handle: playerPtr!, handler)
    }
}
