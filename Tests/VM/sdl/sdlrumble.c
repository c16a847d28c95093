// SDL2's HIDAPI path against an emulated pad, for the hidraw benchmark (45-hidraw, hidraw-vmtest):
// opens the pad through SDL's HIDAPI driver (its hidraw node; the kernel driver stays bound, as on a
// user's machine) and sends the same commands hidraw-vmtest sends through hapticd's socket:
//   15 clicks: 0.75 (weak 0.67 of it) for 60 ms, then 0, 300 ms apart; then a separator;
//   a ramp: 30 steps of 0.02 … 0.6, 16 ms apart on absolute deadlines, then 0.
// mode rumble: SDL_GameControllerRumble (low = strong, high = weak); mode triggers:
// SDL_GameControllerRumbleTriggers (both triggers at the level).
// Between commands it calls SDL_GameControllerUpdate every 2 ms (SDL sends deferred rumble there):
// a game loop at 500 Hz, SDL's best case.
//
// Log (CLOCK_MONOTONIC seconds, the pads' clock):
//   <t> DEVICE <index> <vid:pid> <path> <name>
//   <t> OPENED <path> <name>
//   <t> CMD level=<0…1>          (level=-1: the separator between clicks and ramp)
//   <t> ERROR <what>
//
// Usage: sdlrumble --vid HEX --pid HEX [--path /dev/hidrawN] --mode rumble|triggers --log FILE
// (--path: the pad's own hidraw node, for two pads with the same vendor:product)
// Not a fixture built static like the others (Tests/VM/*.c): linked against Debian's libSDL2, whose
// shared libraries scripts/vm-test.sh copies into the VM.
#include <SDL2/SDL.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static FILE *logf_;
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
static void logline(const char *fmt, ...) {
    fprintf(logf_, "%.6f ", now());
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logf_, fmt, ap);
    va_end(ap);
    fputc('\n', logf_);
    fflush(logf_);
}

/// Updates SDL every 2 ms until `until` (CLOCK_MONOTONIC).
static void pump_until(double until) {
    while (now() < until) {
        SDL_GameControllerUpdate();
        double left = until - now();
        if (left > 0.002) left = 0.002;
        if (left > 0) {
            struct timespec ts = {0, (long)(left * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    SDL_GameControllerUpdate();
}

static SDL_GameController *gc;
static int triggers;

static void command(double level) {
    Uint16 low = (Uint16)(level * 65535 + 0.5), high = (Uint16)(level * 0.67 * 65535 + 0.5);
    logline("CMD level=%.3f", level);
    int r = triggers ? SDL_GameControllerRumbleTriggers(gc, low, low, level > 0 ? 5000 : 0)
                     : SDL_GameControllerRumble(gc, low, high, level > 0 ? 5000 : 0);
    if (r != 0) logline("ERROR rumble %s", SDL_GetError());
}

int main(int argc, char **argv) {
    unsigned vid = 0, pid = 0;
    const char *mode = "rumble", *path = NULL, *node = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--vid")) vid = strtoul(argv[i + 1], NULL, 16);
        else if (!strcmp(argv[i], "--pid")) pid = strtoul(argv[i + 1], NULL, 16);
        else if (!strcmp(argv[i], "--mode")) mode = argv[i + 1];
        else if (!strcmp(argv[i], "--path")) node = argv[i + 1];
        else if (!strcmp(argv[i], "--log")) path = argv[i + 1];
    }
    if (!path || !vid) {
        fprintf(stderr, "usage: sdlrumble --vid HEX --pid HEX [--path /dev/hidrawN] --mode rumble|triggers --log FILE\n");
        return 2;
    }
    logf_ = fopen(path, "w");
    if (!logf_) return 1;
    triggers = !strcmp(mode, "triggers");
    SDL_SetHint(SDL_HINT_JOYSTICK_HIDAPI, "1");
    SDL_SetHint(SDL_HINT_JOYSTICK_HIDAPI_SWITCH, "1");
    // Single Joy-Cons have their own HIDAPI driver in SDL 2.26 (on by default, as HIDAPI is). SDL would
    // combine an L and an R it finds into one pad (path "nintendo_joycons_combined", the L playing only
    // the low-frequency rumble, the R only the high): each is measured alone, as the mini-gamepad SDL
    // makes of a single Joy-Con.
    SDL_SetHint(SDL_HINT_JOYSTICK_HIDAPI_JOY_CONS, "1");
    SDL_SetHint(SDL_HINT_JOYSTICK_HIDAPI_COMBINE_JOY_CONS, "0");
    SDL_SetHint(SDL_HINT_JOYSTICK_HIDAPI_XBOX, "1");
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    if (SDL_Init(SDL_INIT_GAMECONTROLLER) != 0) {
        logline("ERROR SDL_Init %s", SDL_GetError());
        return 1;
    }
    SDL_version v;
    SDL_GetVersion(&v);
    logline("NOTE SDL %d.%d.%d", v.major, v.minor, v.patch);
    // Wait (bounded) for SDL to find the pad through HIDAPI (its path is the hidraw node).
    int index = -1;
    double deadline = now() + 15;
    while (index < 0 && now() < deadline) {
        SDL_PumpEvents();
        SDL_JoystickUpdate();
        for (int i = 0; i < SDL_NumJoysticks(); i++) {
            const char *p = SDL_JoystickPathForIndex(i);
            if (SDL_JoystickGetDeviceVendor(i) == vid && SDL_JoystickGetDeviceProduct(i) == pid && p && !strncmp(p, "/dev/hidraw", 11)
                && (!node || !strcmp(p, node)))
                index = i;
        }
        if (index < 0) SDL_Delay(50);
    }
    for (int i = 0; i < SDL_NumJoysticks(); i++)
        logline("DEVICE %d %04x:%04x %s %s", i, SDL_JoystickGetDeviceVendor(i), SDL_JoystickGetDeviceProduct(i),
                SDL_JoystickPathForIndex(i) ? SDL_JoystickPathForIndex(i) : "-", SDL_JoystickNameForIndex(i));
    if (index < 0) {
        logline("ERROR no HIDAPI device %04x:%04x", vid, pid);
        SDL_Quit();
        return 3;
    }
    gc = SDL_GameControllerOpen(index);
    if (!gc) {
        logline("ERROR open %s", SDL_GetError());
        SDL_Quit();
        return 4;
    }
    logline("OPENED %s %s", SDL_GameControllerPath(gc), SDL_GameControllerName(gc));
    if (triggers ? !SDL_GameControllerHasRumbleTriggers(gc) : !SDL_GameControllerHasRumble(gc)) logline("NOTE no %s", mode);
    pump_until(now() + 1.0);

    double t = now();
    for (int k = 0; k < 15; k++) {
        command(0.75);
        pump_until(t + 0.06);
        command(0);
        t += 0.3;
        pump_until(t);
    }
    logline("CMD level=-1");
    pump_until(now() + 0.2);
    t = now();
    for (int k = 1; k <= 30; k++) {
        command(0.02 * k);
        t += 0.016;
        pump_until(t);
    }
    pump_until(now() + 0.3);
    command(0);
    pump_until(now() + 0.5);
    SDL_GameControllerClose(gc);
    SDL_Quit();
    logline("DONE");
    return 0;
}
