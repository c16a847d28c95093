// The C types of Apple's Unity plug-in Apple.CoreHaptics (its native library CoreHapticsWrapper),
// laid out as the plug-in's C# marshals them: the structs under #pragma pack(8), the callbacks as
// plain C function pointers. Sources/CoreHapticsWrapper implements the functions over them; the
// list of functions is CoreHapticsWrapper.exports there (docs/clients.md, "Unity").
#ifndef HAPTICD_CORE_HAPTICS_WRAPPER_H
#define HAPTICD_CORE_HAPTICS_WRAPPER_H

#include <stdint.h>

#pragma pack(push, 8)

/// An error: Apple's CHHapticError code and a description (C#: struct CHError { int; string; }).
typedef struct {
    int code;
    const char *localizedDescription;
} CHWError;

/// One dynamic parameter (C#: CHSendParameter). parameterID is the C# CHHapticDynamicParameterID.
typedef struct {
    int parameterID;
    float relativeTime;
    float value;
} CHWDynamicParameter;

/// CHHapticPatternPlayer_SendParameters's request (C#: CHSendParametersRequest).
typedef struct {
    const CHWDynamicParameter *parameters;
    int parametersLength;
    float atTime;
} CHWSendParametersRequest;

/// A curve's control point (C#: MarshallingParameterCurveControlPoint).
typedef struct {
    float relativeTime;
    float value;
} CHWHapticParameterCurveControlPoint;

/// ScheduleParameterCurve's curve (C#: CHHapticParameterCurveRequest, which carries one more field
/// after these, a GCHandle, that the native side never reads).
typedef struct {
    int parameterId;
    double relativeTime;
    const CHWHapticParameterCurveControlPoint *points;
    int pointsLength;
} CHWHapticParameterCurve;

#pragma pack(pop)

typedef void (*CHWErrorCallback)(CHWError error);
typedef void (*CHWErrorWithPointerCallback)(const void *pointer, CHWError error);
typedef void (*CHWPointerCallback)(const void *pointer);
/// The engine's stopped callback: (engine, C# CHHapticEngineStoppedReason).
typedef void (*CHWStoppedCallback)(const void *engine, int32_t reason);

#endif
