// Loads libCoreHapticsWrapper.so as a game's runtime does (dlopen) and checks that it has every
// function of CoreHapticsWrapper.exports (the one list of them), that the C types have the layout
// the plug-in's C# marshals (#pragma pack(8)), and that creating an engine with no daemon fails
// through the error callback instead of crashing.
// Usage: dlopen_test LIBRARY EXPORTS   (HAPTICD_SOCKET should name a socket where nothing listens)
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../../Sources/CCoreHapticsWrapper/CoreHapticsWrapper.h"

static int failures;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static int error_calls, error_code;
static char error_text[256];

static void on_error(CHWError e) {
    error_calls++;
    error_code = e.code;
    snprintf(error_text, sizeof error_text, "%s", e.localizedDescription ? e.localizedDescription : "(null)");
}

static void on_stopped(const void *engine, int32_t reason) { (void)engine, (void)reason; }
static void on_reset(const void *engine) { (void)engine; }

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBRARY EXPORTS\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
        return 1;
    }
    FILE *list = fopen(argv[2], "r");
    if (!list) {
        perror(argv[2]);
        return 2;
    }
    char line[256];
    int symbols = 0;
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == 0 || line[0] == '#') continue;
        symbols++;
        if (!dlsym(lib, line)) {
            fprintf(stderr, "FAIL: %s is missing\n", line);
            failures++;
        }
    }
    fclose(list);
    check(symbols == 58, "the exports list names Apple's 58 functions");

    // The layouts the C# declares (Sequential, Pack = 8) on x86_64.
    check(sizeof(CHWError) == 16 && offsetof(CHWError, localizedDescription) == 8, "CHWError layout");
    check(sizeof(CHWDynamicParameter) == 12 && offsetof(CHWDynamicParameter, value) == 8, "CHWDynamicParameter layout");
    check(sizeof(CHWSendParametersRequest) == 16 && offsetof(CHWSendParametersRequest, parametersLength) == 8
              && offsetof(CHWSendParametersRequest, atTime) == 12, "CHWSendParametersRequest layout");
    check(sizeof(CHWHapticParameterCurveControlPoint) == 8, "CHWHapticParameterCurveControlPoint layout");
    check(sizeof(CHWHapticParameterCurve) == 32 && offsetof(CHWHapticParameterCurve, relativeTime) == 8
              && offsetof(CHWHapticParameterCurve, points) == 16 && offsetof(CHWHapticParameterCurve, pointsLength) == 24,
          "CHWHapticParameterCurve layout");

    // No daemon: the engine is not made, and the error callback has said why before Create returns.
    void *(*create)(CHWErrorCallback, CHWStoppedCallback, CHWPointerCallback) =
        (void *(*)(CHWErrorCallback, CHWStoppedCallback, CHWPointerCallback))dlsym(lib, "CoreHaptics_CHHapticEngine_Create");
    int (*supports)(void) = (int (*)(void))dlsym(lib, "CoreHaptics_CHHapticEngine_HardwareSupportsHaptics");
    if (create && supports) {
        void *engine = create(on_error, on_stopped, on_reset);
        check(engine == NULL, "no engine without a daemon");
        check(error_calls == 1, "the error callback ran once, synchronously");
        check(error_code == -4810, "the error is serverInitFailed (-4810)");
        check(strlen(error_text) > 0, "the error says why");
        check(supports() == 0, "no haptics without a daemon");
        // Null callbacks are not called.
        check(create(NULL, NULL, NULL) == NULL, "no engine, no crash, with null callbacks");
    }
    // The host may unload the plug-in (Mono does at exit) while the library's threads still run:
    // it is linked -z nodelete, so dlclose leaves it mapped.
    check(dlclose(lib) == 0, "dlclose succeeds");
    check(dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD) != NULL, "dlclose leaves the library loaded (-z nodelete)");
    if (failures) return 1;
    printf("dlopen test: %d functions found, layouts as the C# marshals them, no daemon reported (%d: %s)\n", symbols, error_code,
           error_text);
    return 0;
}
