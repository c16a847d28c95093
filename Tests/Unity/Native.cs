// The native interface of Apple's Unity plug-in Apple.CoreHaptics, declared as its C# declares it
// (CoreHapticsWrapper.cs, CHError.cs, CHSendParameter.cs, CHSendParametersRequest.cs,
// CHHapticParameterCurveRequest.cs, the *Interface.cs files and the enums): the same entry points,
// argument and return types, struct layouts, delegate types and default marshalling, so that these
// tests call libCoreHapticsWrapper.so exactly as a game that uses the plug-in does. Written for these
// tests (the plug-in needs UnityEngine); only the declarations follow Apple's.
using System;
using System.Runtime.InteropServices;

namespace HapticdUnityTests
{
    internal delegate void SuccessWithPointerCallback(IntPtr pointer);
    internal delegate void GenericCallback<T1, T2>(T1 value1, T2 value2);
    internal delegate void ErrorCallback(CHError error);
    internal delegate void ErrorWithPointerCallback(IntPtr pointer, CHError error);
    internal delegate void AllPlayersFinishedStatic(IntPtr engPtr);

    [StructLayout(LayoutKind.Sequential)]
    public struct CHError
    {
        public readonly int Code;
        public readonly string LocalizedDescription;
    }

    public enum CHHapticEngineStoppedReason
    {
        SystemError = 1,
        AudioSessionInterrupt = 1,
        ApplicationSuspended = 2,
        IdleTimeout = 3,
        NotifyWhenFinished = 4,
        EngineDestroyed = 5,
        GameControllerDisconnect = 6
    }

    public enum CHHapticDynamicParameterID
    {
        HapticIntensityControl = 0, HapticSharpnessControl = 1, HapticAttackTimeControl = 2, HapticDecayTimeControl = 3,
        HapticReleaseTimeControl = 4, AudioVolumeControl = 5, AudioPanControl = 6, AudioPitchControl = 7,
        AudioBrightnessControl = 8, AudioAttackTimeControl = 9, AudioDecayTimeControl = 10, AudioReleaseTimeControl = 11,
    }

    public enum CHHapticEventParameterID
    {
        HapticIntensity = 0, HapticSharpness = 1, AttackTime = 2, DecayTime = 3, ReleaseTime = 4, Sustained = 5,
        AudioVolume = 6, AudioPan = 7, AudioPitch = 8, AudioBrightness = 9
    }

    public enum CHHapticEventType { HapticTransient = 0, HapticContinuous = 1, AudioContinuous = 2, AudioCustom = 3 }

    public enum UIImpactType { Heavy = 0, Light = 1, Medium = 2, Rigid = 3, Soft = 4 }

    public enum UINotificationStyle { Error = 0, Success = 1, Warning = 2 }

    [StructLayout(LayoutKind.Sequential, Pack = 8)]
    internal struct CHSendParameter
    {
        public int ParameterID;
        public float RelativeTime;
        public float Value;
    }

    [StructLayout(LayoutKind.Sequential, Pack = 8)]
    internal struct CHSendParametersRequest
    {
        public IntPtr Parameters;
        public int ParametersLength;
        public float AtTime;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct MarshallingParameterCurveControlPoint
    {
        public float Time;
        public float ParameterValue;
    }

    // As the plug-in's: the GCHandle that pins the points travels with the struct (8 bytes more
    // than the native struct reads).
    [StructLayout(LayoutKind.Sequential)]
    internal struct CHHapticParameterCurveRequest
    {
        public int ParameterID;
        public double Time;
        public IntPtr Points;
        public int PointsLength;
        public GCHandle _pointsHandle;
    }

    internal static class Native
    {
        const string DllName = "CoreHapticsWrapper";

        // CHHapticEngineInterface
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Create")]
        internal static extern IntPtr Create(ErrorCallback onError, GenericCallback<IntPtr, CHHapticEngineStoppedReason> onStopped, SuccessWithPointerCallback onReset);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Destroy")]
        internal static extern void Destroy(IntPtr enginePtr);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Start")]
        internal static extern void Start(IntPtr enginePtr, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Stop")]
        internal static extern void Stop(IntPtr enginePtr, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_MakePlayer")]
        internal static extern IntPtr MakePlayer(IntPtr enginePtr, string ahapJson, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_MakeAdvancedPlayer")]
        internal static extern IntPtr MakeAdvancedPlayer(IntPtr enginePtr, string ahapJson, SuccessWithPointerCallback onFinishedPlaying, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_PlayPatternFromUrl")]
        internal static extern void PlayPatternFromUrl(IntPtr enginePtr, string ahapUrl, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_PlayPatternFromJson")]
        internal static extern void PlayPatternFromJson(IntPtr enginePtr, string ahapJson, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_NotifyWhenPlayersFinished")]
        internal static extern void NotifyWhenPlayersFinished(IntPtr enginePointer, bool leaveEngineRunning, AllPlayersFinishedStatic onFinished, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_HardwareSupportsHaptics")]
        internal static extern bool HardwareSupportsHaptics();
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Get_PlaysHapticsOnly")]
        internal static extern bool Get_PlaysHapticsOnly(IntPtr enginePointer);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Set_PlaysHapticsOnly")]
        internal static extern void Set_PlaysHapticsOnly(IntPtr enginePointer, bool playsHapticsOnly);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Get_IsMutedForAudio")]
        internal static extern bool Get_IsMutedForAudio(IntPtr enginePointer);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Set_IsMutedForAudio")]
        internal static extern void Set_IsMutedForAudio(IntPtr enginePointer, bool isMutedForAudio);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Get_IsMutedForHaptics")]
        internal static extern bool Get_IsMutedForHaptics(IntPtr enginePointer);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Set_IsMutedForHaptics")]
        internal static extern void Set_IsMutedForHaptics(IntPtr enginePointer, bool isMutedForHaptics);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Get_IsAutoShutdownEnabled")]
        internal static extern bool Get_IsAutoShutdownEnabled(IntPtr enginePointer);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Set_IsAutoShutdownEnabled")]
        internal static extern void Set_IsAutoShutdownEnabled(IntPtr enginePointer, bool isAutoShutdownEnabled);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticEngine_Get_CurrentTime")]
        internal static extern double Get_CurrentTime(IntPtr enginePointer);

        // CHHapticPatternPlayerInterface
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticPatternPlayer_Destroy")]
        internal static extern IntPtr PlayerDestroy(IntPtr playerId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticPatternPlayer_GetIsMuted")]
        internal static extern bool PlayerGetIsMuted(IntPtr playerId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticPatternPlayer_SetIsMuted")]
        internal static extern void PlayerSetIsMuted(IntPtr playerId, bool isMuted);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticPatternPlayer_Start")]
        internal static extern void PlayerStart(IntPtr playerId, float startTime, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticPatternPlayer_Stop")]
        internal static extern void PlayerStop(IntPtr playerId, float stopTime, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticPatternPlayer_SendParameters")]
        internal static extern void PlayerSendParameters(IntPtr playerId, CHSendParametersRequest request, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticPatternPlayer_ScheduleParameterCurve")]
        internal static extern void PlayerScheduleParameterCurve(IntPtr playerId, CHHapticParameterCurveRequest request, float atTime, ErrorWithPointerCallback onError);

        // CHHapticAdvancedPatternPlayerInterface
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_Destroy")]
        internal static extern IntPtr AdvDestroy(IntPtr playerId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_GetIsMuted")]
        internal static extern bool AdvGetIsMuted(IntPtr playerId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_SetIsMuted")]
        internal static extern void AdvSetIsMuted(IntPtr playerId, bool isMuted);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_Start")]
        internal static extern void AdvStart(IntPtr playerId, float startTime, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_Stop")]
        internal static extern void AdvStop(IntPtr playerId, float stopTime, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_Pause")]
        internal static extern void AdvPause(IntPtr playerId, float pauseTime, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_Resume")]
        internal static extern void AdvResume(IntPtr playerId, float resumeTime, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_Seek")]
        internal static extern void AdvSeek(IntPtr playerId, float toOffset, ErrorWithPointerCallback onError);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_GetLoopEnabled")]
        internal static extern bool AdvGetLoopEnabled(IntPtr playerId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_SetLoopEnabled")]
        internal static extern void AdvSetLoopEnabled(IntPtr playerId, bool loopEnabled);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_GetLoopEnd")]
        internal static extern double AdvGetLoopEnd(IntPtr playerId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_SetLoopEnd")]
        internal static extern void AdvSetLoopEnd(IntPtr playerId, double loopEnd);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_GetPlaybackRate")]
        internal static extern float AdvGetPlaybackRate(IntPtr playerId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_SetPlaybackRate")]
        internal static extern void AdvSetPlaybackRate(IntPtr playerId, float playbackRate);
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_SendParameters")]
        internal static extern void AdvSendParameters(IntPtr playerId, CHSendParametersRequest request, ErrorWithPointerCallback onError);
        // Exported by Apple's native library, never declared by its C#: declared here after its Swift.
        [DllImport(DllName, EntryPoint = "CoreHaptics_CHHapticAdvancedPatternPlayer_RegisterCompletionHandler")]
        internal static extern void AdvRegisterCompletionHandler(IntPtr playerId, SuccessWithPointerCallback handler, ErrorWithPointerCallback onError);

        // CHHapticCapabilitiesInterface
        [DllImport(DllName, EntryPoint = "CoreHaptics_Capabilities_MinValueForEventParameter")]
        internal static extern float MinValueForEventParameter(int integerParameterId, int integerEventType);
        [DllImport(DllName, EntryPoint = "CoreHaptics_Capabilities_DefaultValueForEventParameter")]
        internal static extern float DefaultValueForEventParameter(int integerParameterId, int integerEventType);
        [DllImport(DllName, EntryPoint = "CoreHaptics_Capabilities_MaxValueForEventParameter")]
        internal static extern float MaxValueForEventParameter(int integerParameterId, int integerEventType);
        [DllImport(DllName, EntryPoint = "CoreHaptics_Capabilities_MinValueForDynamicParameter")]
        internal static extern float MinValueForDynamicParameter(int integerParameterId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_Capabilities_DefaultValueForDynamicParameter")]
        internal static extern float DefaultValueForDynamicParameter(int integerParameterId);
        [DllImport(DllName, EntryPoint = "CoreHaptics_Capabilities_MaxValueForDynamicParameter")]
        internal static extern float MaxValueForDynamicParameter(int integerParameterId);

        // UIFeedbackGeneratorInterface
        [DllImport(DllName, EntryPoint = "UIFeedbackGenerator_CreateImpactGenerator")]
        internal static extern IntPtr CreateImpactGenerator(int feedbackStyle);
        [DllImport(DllName, EntryPoint = "UIImpactFeedbackGenerator_Trigger")]
        internal static extern void TriggerImpactGenerator(IntPtr generatorPtr, float intensity);
        [DllImport(DllName, EntryPoint = "UIFeedbackGenerator_DestroyImpactGenerator")]
        internal static extern void DestroyImpactGenerator(IntPtr generatorPtr);
        [DllImport(DllName, EntryPoint = "UIFeedbackGenerator_CreateSelectionGenerator")]
        internal static extern IntPtr CreateSelectionGenerator();
        [DllImport(DllName, EntryPoint = "UISelectionFeedbackGenerator_Trigger")]
        internal static extern void TriggerSelectionGenerator(IntPtr generatorPtr);
        [DllImport(DllName, EntryPoint = "UIFeedbackGenerator_DestroySelectionGenerator")]
        internal static extern void DestroySelectionGenerator(IntPtr generatorPtr);
        [DllImport(DllName, EntryPoint = "UIFeedbackGenerator_CreateNotificationGenerator")]
        internal static extern IntPtr CreateNotificationGenerator();
        [DllImport(DllName, EntryPoint = "UINotificationFeedbackGenerator_Trigger")]
        internal static extern void TriggerNotificationGenerator(IntPtr generatorPtr, int feedbackType);
        [DllImport(DllName, EntryPoint = "UIFeedbackGenerator_DestroyNotificationGenerator")]
        internal static extern void DestroyNotificationGenerator(IntPtr generatorPtr);
        [DllImport(DllName, EntryPoint = "UIFeedbackGenerator_Prepare")]
        internal static extern void PrepareGenerator(IntPtr generatorPtr);
    }
}
