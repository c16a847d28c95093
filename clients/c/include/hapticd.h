/*
 * libhapticd — a C client for hapticd, the haptic player daemon for Linux gamepads.
 *
 * Shaped like Apple's Core Haptics: connect to the daemon, make an engine for a pad and a
 * locality, load a pattern (an AHAP file or text, or a library pattern by name), make a player of
 * it and start, stop, pause, seek, loop it, send it dynamic parameters and parameter curves. One-call
 * helpers play a library pattern, UIKit-style feedback, or a plain rumble.
 *
 * Every function that can fail returns HAPTICD_OK (0) or a negative HAPTICD_E_* code; the message
 * for the last failure on the calling thread says what to fix (hapticd_last_error()).
 *
 * Events (player finished, engine stopped or reset, pad added or removed, connection lost) come
 * through a callback and a pollable descriptor, so a game loop needs no thread:
 *
 *     struct pollfd p = { hapticd_fd(client), POLLIN, 0 };
 *     if (poll(&p, 1, 0) > 0) hapticd_dispatch(client, 0);
 *
 * Thread safety: every function that takes a client, or an engine or player made from it, may be
 * called from any thread; calls on one client are serialised by a lock inside it (one request at a
 * time). The exceptions are marked "not thread-safe": hapticd_close, hapticd_engine_destroy and
 * hapticd_player_destroy must not run while another thread uses the same handle, and a pattern
 * must not be changed (hapticd_pattern_add_*) while another thread uses it. The event callback runs
 * on the thread that called hapticd_dispatch, outside the lock: it may call any function except
 * hapticd_close on its client. Error messages are per thread.
 *
 * The protocol: docs/PROTOCOL.md. The API reference: docs/clients.md.
 */
#ifndef HAPTICD_H
#define HAPTICD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HAPTICD_API __attribute__((visibility("default")))
#else
#define HAPTICD_API
#endif

#define HAPTICD_VERSION_MAJOR 1
#define HAPTICD_VERSION_MINOR 0
#define HAPTICD_VERSION_PATCH 0
/* The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (the header's is HAPTICD_VERSION). */
#define HAPTICD_VERSION (HAPTICD_VERSION_MAJOR * 10000 + HAPTICD_VERSION_MINOR * 100 + HAPTICD_VERSION_PATCH)
HAPTICD_API int hapticd_version(void);

/* ---------------------------------------------------------------------------------------------- */
/* Status codes                                                                                    */

enum {
    HAPTICD_OK = 0,
    HAPTICD_E_INVALID_ARGUMENT = -1,   /* a NULL handle, a value out of range, a non-finite number */
    HAPTICD_E_NOT_RUNNING = -2,        /* no daemon at the socket path */
    HAPTICD_E_PERMISSION = -3,         /* the socket's group, the daemon's allow-list, an admin-only control, another client's player */
    HAPTICD_E_DISCONNECTED = -4,       /* the connection was lost (the daemon stopped or restarted): hapticd_reconnect */
    HAPTICD_E_TIMEOUT = -5,            /* no reply within the timeout (hapticd_set_timeout) */
    HAPTICD_E_IO = -6,                 /* a system call failed */
    HAPTICD_E_PROTOCOL = -7,           /* the daemon sent something this library cannot read (too long, not JSON) */
    HAPTICD_E_NO_MEMORY = -8,
    HAPTICD_E_FILE = -9,               /* a pattern file cannot be read, or is too large */
    HAPTICD_E_BAD_JSON = -10,          /* a pattern's text is not JSON (line and column), or the daemon's bad_json */
    HAPTICD_E_BAD_REQUEST = -11,       /* the daemon's bad_request: a member missing, ill-typed or out of range */
    HAPTICD_E_UNKNOWN_COMMAND = -12,   /* the daemon does not know the command (an older daemon) */
    HAPTICD_E_INVALID_PATTERN = -13,   /* the daemon refused the pattern: hapticd_last_error_details() has every JSON path */
    HAPTICD_E_NOT_FOUND = -14,         /* no such player, pad or library pattern */
    HAPTICD_E_LIMIT = -15,             /* a bound of the daemon's [limits] was reached: the message names the key */
    HAPTICD_E_DEVICE = -16,            /* the pad is disconnected, or writing to it failed */
    HAPTICD_E_ENGINE_STOPPED = -17,    /* the pad's engine is stopped (an admin starts it) */
    HAPTICD_E_PLAYER_INVALIDATED = -18,/* the player was lost in an engine reset or with the connection: make it again */
    HAPTICD_E_UNSUPPORTED = -19,       /* the pad cannot do this at all (trigger localities) */
    HAPTICD_E_DAEMON = -20             /* an error code this library does not know: see hapticd_last_error_code() */
};

/* "HAPTICD_E_NOT_RUNNING" for HAPTICD_E_NOT_RUNNING, …; never NULL. Thread-safe. */
HAPTICD_API const char *hapticd_status_name(int status);
/* What went wrong in the last failed call on this thread, and what to do; "" if none. Valid until
 * the next call on this thread. Thread-safe (per thread). */
HAPTICD_API const char *hapticd_last_error(void);
/* The daemon's error code of that failure ("invalid_pattern", "limit_exceeded", …), or "" when the
 * failure was found by the library itself. Thread-safe (per thread). */
HAPTICD_API const char *hapticd_last_error_code(void);
/* The daemon's details of that failure, one per line: for invalid_pattern every problem with its
 * JSON path ("Pattern[0].Event.EventType: unknown event type …"); "" if none. Thread-safe (per thread). */
HAPTICD_API const char *hapticd_last_error_details(void);
/* Frees a string this library returned (hapticd_request). Thread-safe. */
HAPTICD_API void hapticd_free(void *p);

/* ---------------------------------------------------------------------------------------------- */
/* Connecting                                                                                      */

typedef struct hapticd_client hapticd_client;

/* The socket path hapticctl would use: $HAPTICD_SOCKET; else, for a user other than root,
 * $XDG_RUNTIME_DIR/hapticd.sock when it exists or /run/hapticd/hapticd.sock does not; else
 * /run/hapticd/hapticd.sock. Writes it, NUL-terminated, into buf. Thread-safe. */
HAPTICD_API int hapticd_default_socket_path(char *buf, size_t size);

/* Connects to the daemon at socket_path (NULL or "": hapticd_default_socket_path), says who the
 * app is when app_id is not NULL (hapticd_hello; a daemon that does not know it is fine; an id
 * hapticd_hello refuses is HAPTICD_E_INVALID_ARGUMENT before connecting), and subscribes to
 * HAPTICD_EVENTS_DEFAULT. On failure *out is NULL and the message says what to
 * do: start the daemon (with the path tried), join the socket's group, … Thread-safe. */
HAPTICD_API int hapticd_connect(const char *socket_path, const char *app_id, hapticd_client **out);
/* Closes the connection (the daemon stops this connection's players) and frees the client with
 * every engine and player made from it. NULL is fine. Not thread-safe. */
HAPTICD_API void hapticd_close(hapticd_client *client);
/* After HAPTICD_EVENT_CONNECTION_LOST (or any HAPTICD_E_DISCONNECTED): connects again to the same
 * path, with the same app id and subscription. Engines stay valid; players do not (the daemon
 * dropped them): make them again. hapticd_fd stays the same descriptor. Thread-safe. */
HAPTICD_API int hapticd_reconnect(hapticd_client *client);
/* 1 while connected, 0 once the connection is lost. No thread reads the socket between calls, so
 * this asks it without waiting: when the daemon has closed its end (it stopped, was killed, or
 * dropped this client), what it sent before is read (its events queued), CONNECTION_LOST is queued
 * and 0 returned — no other call is needed first. A daemon that hangs with its socket open still
 * counts as connected (requests then time out). Waits for a request in flight on another thread.
 * Leaves hapticd_last_error() alone. Thread-safe. */
HAPTICD_API int hapticd_is_connected(hapticd_client *client);
/* The socket path the client uses (owned by the client). Thread-safe. */
HAPTICD_API const char *hapticd_socket_path(hapticd_client *client);
/* How long a request waits for its reply, in milliseconds (default 5000; 1…600000). Thread-safe. */
HAPTICD_API int hapticd_set_timeout(hapticd_client *client, int timeout_ms);

/* Who the daemon thinks the client is (`hello`). */
typedef struct hapticd_identity {
    int32_t client;       /* the daemon's number for this connection; -1 if the daemon does not say */
    int32_t uid;          /* -1 if unknown */
    char app[128];        /* the app id in force ("" if none; one of 128 bytes is cut to 127) */
    char process[64];     /* the process name the daemon read from the peer's pid */
} hapticd_identity;

/* Names the app (`hello`), best before anything else; out may be NULL. An app id is the daemon's:
 * 1…128 bytes of UTF-8, every character above U+0020 and not U+007F (no spaces, no control
 * characters), e.g. "org.example.Game"; any other is HAPTICD_E_INVALID_ARGUMENT, found before
 * anything is sent. The daemon's per-app rules match this id (else the process
 * name). HAPTICD_E_PERMISSION if the id is reserved for other users; HAPTICD_E_UNKNOWN_COMMAND from
 * a daemon without app policy. Thread-safe. */
HAPTICD_API int hapticd_hello(hapticd_client *client, const char *app_id, hapticd_identity *out);

enum { HAPTICD_PROFILE_UNKNOWN = -1, HAPTICD_PROFILE_FULL = 0, HAPTICD_PROFILE_QUIET = 1, HAPTICD_PROFILE_SILENT = 2 };

/* The policy in force for this client (`policy`): the global mode and limits, and the rule for
 * this app (docs/clients.md, "Policy"). The protocol calls the mode `mode` (`profile` until hapticd
 * 0.5); libhapticd 1 keeps its `profile` names here and in HAPTICD_PROFILE_* so that programs
 * written against it still compile. */
typedef struct hapticd_policy {
    int32_t profile;               /* HAPTICD_PROFILE_* */
    int32_t app_enabled;           /* 0: this app is not heard */
    int32_t app_priority;          /* its players' priority, and the most they may ask for */
    int32_t app_important_allowed; /* its `important` feedback goes through the quiet profile */
    int32_t app_configured;        /* a [[policy.app]] rule names this app */
    int32_t reserved;
    double max_strength;           /* 0…1: the ceiling on either motor, after mixing */
    double duck;                   /* 0…1: what lower-priority players keep while a higher one sounds */
    double app_gain;               /* 0…1 */
    double app_heard_at;           /* what this app's (non-important) players are heard at now: 0…1 */
    char profile_name[16];         /* "full", "quiet", "silent" */
    char app[128];                 /* the app id in force: from hello, else the process name */
} hapticd_policy;

/* `policy`. Thread-safe. */
HAPTICD_API int hapticd_policy_get(hapticd_client *client, hapticd_policy *out);
/* `policy.set`, for root and the daemon's admins (HAPTICD_E_PERMISSION otherwise): mode ("full",
 * "quiet", "silent"; NULL: unchanged), max_strength and duck (0…1; negative: unchanged), until the
 * daemon reloads its configuration. out (may be NULL) gets the policy after. Thread-safe. */
HAPTICD_API int hapticd_policy_set(hapticd_client *client, const char *mode, double max_strength, double duck, hapticd_policy *out);

/* `ping`. Thread-safe. */
HAPTICD_API int hapticd_ping(hapticd_client *client);
/* The daemon's version string, as its `version` command gives it ("MAJOR.MINOR.PATCH", clipped to
 * size), and protocol number; either may be NULL. Thread-safe. */
HAPTICD_API int hapticd_daemon_version(hapticd_client *client, char *version, size_t size, int *protocol);

/* Any command: request is a JSON object with "cmd" and its members, without "id" (the library adds
 * it). On success *result (may be NULL) is the result object's JSON text exactly as the daemon wrote
 * it (integers stay integers, every number keeps its digits): hapticd_free it. Thread-safe. */
HAPTICD_API int hapticd_request(hapticd_client *client, const char *request, char **result);

/* ---------------------------------------------------------------------------------------------- */
/* Pads, patterns, capabilities                                                                    */

typedef struct hapticd_device_info {
    int32_t device;
    int32_t connected;
    int32_t simulated;
    int32_t effect_slots;
    int32_t bus;
    int32_t reserved;
    double gain;
    char name[128];
    char path[128];
    char usb_id[16];      /* "045e:0b13" */
    char profile[64];
} hapticd_device_info;

/* `devices`: fills up to capacity entries; *total (may be NULL) is how many pads the daemon knows.
 * Thread-safe. */
HAPTICD_API int hapticd_devices(hapticd_client *client, hapticd_device_info *out, int capacity, int *total);

typedef struct hapticd_pattern_info {
    double duration;
    char name[64];
    char description[192];
} hapticd_pattern_info;

/* The daemon's pattern library; as hapticd_devices. Thread-safe. */
HAPTICD_API int hapticd_patterns(hapticd_client *client, hapticd_pattern_info *out, int capacity, int *total);

/* Localities, as Apple names them (GCHapticsLocality). */
enum {
    HAPTICD_LOCALITY_DEFAULT = 0,
    HAPTICD_LOCALITY_ALL = 1,
    HAPTICD_LOCALITY_HANDLES = 2,
    HAPTICD_LOCALITY_LEFT_HANDLE = 3,   /* the strong (low-frequency) motor alone */
    HAPTICD_LOCALITY_RIGHT_HANDLE = 4,  /* the weak (high-frequency) motor alone */
    HAPTICD_LOCALITY_TRIGGERS = 5,      /* no evdev pad has these: unsupported */
    HAPTICD_LOCALITY_LEFT_TRIGGER = 6,
    HAPTICD_LOCALITY_RIGHT_TRIGGER = 7,
    HAPTICD_LOCALITY_COUNT = 8
};
/* "default", "all", "handles", "leftHandle", …; NULL for an unknown number. Thread-safe. */
HAPTICD_API const char *hapticd_locality_name(int locality);

typedef struct hapticd_capabilities {
    int32_t device;
    int32_t supports_haptics;
    int32_t supports_audio;
    int32_t connected;
    int32_t simulated;
    int32_t effect_slots;
    int32_t ff_gain;
    int32_t levels;                  /* distinct magnitudes the driver keeps (256 for 8-bit) */
    uint32_t localities;             /* bit (1u << HAPTICD_LOCALITY_x) for each supported locality */
    int32_t reserved;
    double minimum_update_interval;  /* seconds */
    double refresh_interval;         /* seconds; 0 when the pad needs none */
    char name[128];
    char profile[64];
    char quantization[16];
} hapticd_capabilities;

/* ---------------------------------------------------------------------------------------------- */
/* Engines: a pad and a locality                                                                   */

typedef struct hapticd_engine hapticd_engine;

/* An engine for pad `device` (-1: the lowest-numbered connected pad, at each command) and
 * `locality` (NULL: "default"). Checks with the daemon (`engine.status`) that the pad and the
 * locality exist: HAPTICD_E_NOT_FOUND, HAPTICD_E_UNSUPPORTED (trigger localities),
 * HAPTICD_E_BAD_REQUEST (an unknown locality). Thread-safe. */
HAPTICD_API int hapticd_engine_create(hapticd_client *client, int device, const char *locality, hapticd_engine **out);
/* Frees the handle (the daemon's engine is shared and stays). Not thread-safe. */
HAPTICD_API void hapticd_engine_destroy(hapticd_engine *engine);

/* Core Haptics' start(): readies the engine for this app (`prepare`). HAPTICD_E_ENGINE_STOPPED if an
 * admin stopped it and it does not start on demand. Thread-safe. */
HAPTICD_API int hapticd_engine_start(hapticd_engine *engine);
/* Core Haptics' stop(): stops every player of this connection on the engine, dropping starts
 * scheduled for later (player.cancel); other clients' players go on: the engine is shared.
 * Thread-safe. */
HAPTICD_API int hapticd_engine_stop(hapticd_engine *engine);
/* UIKit's prepare(): the least latency for the next few seconds; *prepared_until (may be NULL) is
 * when that lapses, on the engine's clock. Thread-safe. */
HAPTICD_API int hapticd_engine_prepare(hapticd_engine *engine, double *prepared_until);

enum { HAPTICD_ADMIN_START = 0, HAPTICD_ADMIN_STOP = 1, HAPTICD_ADMIN_RESET = 2 };
/* engine.start / engine.stop / engine.reset for every client of the pad: root or the daemon's
 * admins only (HAPTICD_E_PERMISSION otherwise). Thread-safe. */
HAPTICD_API int hapticd_engine_admin(hapticd_engine *engine, int action);

typedef struct hapticd_engine_status {
    int32_t device;
    int32_t running;
    int32_t playing;
    int32_t players;          /* every client's */
    int32_t my_players;       /* this connection's */
    int32_t auto_shutdown;
    int32_t muted;
    int32_t connected;
    double current_time;      /* the engine's clock, seconds */
    double gain;
    char locality[32];
} hapticd_engine_status;

/* `engine.status`. Thread-safe. */
HAPTICD_API int hapticd_engine_status_get(hapticd_engine *engine, hapticd_engine_status *out);
/* The engine's clock now (seconds), for timed commands: estimated from the offset to this process's
 * monotonic clock measured at the last reply (within about half a round trip; a request the first
 * time); never earlier than a time it gave before. Thread-safe. */
HAPTICD_API int hapticd_engine_current_time(hapticd_engine *engine, double *out);
/* `capabilities` of the engine's pad. Thread-safe. */
HAPTICD_API int hapticd_engine_capabilities(hapticd_engine *engine, hapticd_capabilities *out);
/* The priority (-100…100) asked for everything this engine handle plays, makes, feedbacks or
 * rumbles; HAPTICD_PRIORITY_DEFAULT (the default) asks none: the app's configured one applies. The
 * daemon never grants more than the app's configured priority (0 without a rule). While a player of
 * higher priority sounds on a pad, lower ones are ducked. Local; thread-safe. */
#define HAPTICD_PRIORITY_DEFAULT INT32_MIN
HAPTICD_API int hapticd_engine_set_priority(hapticd_engine *engine, int32_t priority);

/* ---------------------------------------------------------------------------------------------- */
/* Patterns                                                                                        */

typedef struct hapticd_pattern hapticd_pattern;

/* A pattern of the daemon's library, by name (checked when played). Thread-safe. */
HAPTICD_API int hapticd_pattern_from_name(const char *name, hapticd_pattern **out);
/* An AHAP file (at most HAPTICD_MAX_PATTERN_BYTES). Its JSON is checked here with the daemon's
 * leniency (comments, trailing commas, …): HAPTICD_E_BAD_JSON names the file, line and column. What
 * it means is checked by the daemon when a player is made: HAPTICD_E_INVALID_PATTERN. Thread-safe. */
#define HAPTICD_MAX_PATTERN_BYTES (16 * 1024 * 1024)
HAPTICD_API int hapticd_pattern_from_file(const char *path, hapticd_pattern **out);
/* AHAP text; length -1 for a NUL-terminated string. As hapticd_pattern_from_file. Thread-safe. */
HAPTICD_API int hapticd_pattern_from_ahap(const char *text, ptrdiff_t length, hapticd_pattern **out);
/* An empty pattern to add events to, as CHHapticEvent does. It holds as many events as are added:
 * the daemon bounds what it plays — its limits.max_pattern_events (100 000 by default; more is
 * HAPTICD_E_INVALID_PATTERN) and limits.max_upload_bytes for its text, which goes in pieces
 * (pattern.upload) past 256 KiB (4 MiB by default, about 21 000 events made here, at some 200 bytes
 * each; more is HAPTICD_E_LIMIT, naming the key). Thread-safe. */
HAPTICD_API int hapticd_pattern_new(hapticd_pattern **out);
/* Adds a HapticTransient at `time` (seconds) with intensity and sharpness (0…1). Not thread-safe. */
HAPTICD_API int hapticd_pattern_add_transient(hapticd_pattern *pattern, double time, double intensity, double sharpness);
/* Adds a HapticContinuous. Not thread-safe. */
HAPTICD_API int hapticd_pattern_add_continuous(hapticd_pattern *pattern, double time, double duration, double intensity, double sharpness);
/* The pattern's JSON as it is sent (NULL for a library name); owned by the pattern, valid until it
 * changes or is freed. Not thread-safe. */
HAPTICD_API const char *hapticd_pattern_json(hapticd_pattern *pattern);
/* Not thread-safe. NULL is fine. */
HAPTICD_API void hapticd_pattern_free(hapticd_pattern *pattern);

/* ---------------------------------------------------------------------------------------------- */
/* Players                                                                                         */

typedef struct hapticd_player hapticd_player;

enum {
    HAPTICD_STATE_IDLE = 0,
    HAPTICD_STATE_SCHEDULED = 1,
    HAPTICD_STATE_PLAYING = 2,
    HAPTICD_STATE_PAUSED = 3,
    HAPTICD_STATE_FINISHED = 4,
    HAPTICD_STATE_INVALID = 5     /* lost in a reset or with the connection */
};

typedef struct hapticd_player_status {
    int32_t player;       /* the daemon's number (as in HAPTICD_EVENT_PLAYER_FINISHED) */
    int32_t device;
    int32_t state;        /* HAPTICD_STATE_* */
    int32_t advanced;
    int32_t loop;
    int32_t muted;
    double offset;        /* pattern seconds */
    double duration;
    double loop_end;
    double rate;
    double engine_time;   /* the engine's clock when the daemon answered */
    int32_t priority;     /* as the policy grants it (the asked one, capped by the app's) */
    int32_t reserved;
    double heard_at;      /* the policy's gain on it: 0…1 (0: its app is not heard now) */
    char locality[32];
} hapticd_player_status;

/* Times: `at` is a time on the engine's clock (hapticd_engine_current_time() + seconds);
 * HAPTICD_TIME_NOW (0, or any time past) is at once — Core Haptics' CHHapticTimeImmediate. */
#define HAPTICD_TIME_NOW 0.0

enum { HAPTICD_PLAYER_ADVANCED = 0, HAPTICD_PLAYER_BASIC = 1 };

/* makeAdvancedPlayer(with:) (flags HAPTICD_PLAYER_ADVANCED) or makePlayer(with:)
 * (HAPTICD_PLAYER_BASIC: no pause, resume, seek, loop or rate). Thread-safe. */
HAPTICD_API int hapticd_player_create(hapticd_engine *engine, const hapticd_pattern *pattern, int flags, hapticd_player **out);
/* The daemon's number of the player. Thread-safe. */
HAPTICD_API int hapticd_player_id(hapticd_player *player);
/* Its status as of the last reply or event about it (no request). Thread-safe. */
HAPTICD_API int hapticd_player_status_get(hapticd_player *player, hapticd_player_status *out);
/* The player commands below are each one request; all are thread-safe. */
HAPTICD_API int hapticd_player_start(hapticd_player *player, double at);
HAPTICD_API int hapticd_player_stop(hapticd_player *player, double at);
HAPTICD_API int hapticd_player_pause(hapticd_player *player, double at);
HAPTICD_API int hapticd_player_resume(hapticd_player *player, double at);
/* Drops every pending command, parameter and curve, and stops at once. */
HAPTICD_API int hapticd_player_cancel(hapticd_player *player);
/* Moves to `offset` (pattern seconds ≥ 0) at once. */
HAPTICD_API int hapticd_player_seek(hapticd_player *player, double offset);
HAPTICD_API int hapticd_player_set_loop(hapticd_player *player, int enabled);
/* Where a loop ends (seconds; 0: the pattern's duration). */
HAPTICD_API int hapticd_player_set_loop_end(hapticd_player *player, double loop_end);
/* Playback rate (> 0; within the daemon's limits.min_rate…max_rate). */
HAPTICD_API int hapticd_player_set_rate(hapticd_player *player, double rate);
HAPTICD_API int hapticd_player_set_muted(hapticd_player *player, int muted);

/* Dynamic parameters (CHHapticDynamicParameter.ID). */
enum {
    HAPTICD_PARAM_INTENSITY = 0,       /* 0…1, multiplies */
    HAPTICD_PARAM_SHARPNESS = 1,       /* -1…1, adds */
    HAPTICD_PARAM_ATTACK = 2,          /* -1…1 */
    HAPTICD_PARAM_DECAY = 3,           /* -1…1 */
    HAPTICD_PARAM_RELEASE = 4,         /* -1…1 */
    HAPTICD_PARAM_COUNT = 5
};
/* "intensity", "sharpness", …; NULL for an unknown number. Thread-safe. */
HAPTICD_API const char *hapticd_parameter_name(int parameter);

typedef struct hapticd_parameter_value {
    int32_t parameter;    /* HAPTICD_PARAM_* */
    int32_t reserved;
    double value;
} hapticd_parameter_value;

typedef struct hapticd_curve_point {
    double time;          /* seconds from the curve's start, in order */
    double value;
} hapticd_curve_point;

/* sendParameters(_:atTime:): 1…16 values (the protocol's bound). */
HAPTICD_API int hapticd_player_send_parameters(hapticd_player *player, const hapticd_parameter_value *values, int count, double at);
/* One value: a shorthand for the above. */
HAPTICD_API int hapticd_player_send_parameter(hapticd_player *player, int parameter, double value, double at);
/* scheduleParameterCurve(_:atTime:): one point or more, starting at `at`. The daemon bounds how many
 * (its limits.max_curve_points, 1024 by default): more is HAPTICD_E_LIMIT, naming the key. */
HAPTICD_API int hapticd_player_schedule_curve(hapticd_player *player, int parameter, const hapticd_curve_point *points, int count, double at);
/* Destroys the player in the daemon (if still connected) and frees the handle. NULL is fine.
 * Not thread-safe. */
HAPTICD_API int hapticd_player_destroy(hapticd_player *player);

/* ---------------------------------------------------------------------------------------------- */
/* One-call helpers                                                                                */

/* Plays a pattern once on the engine (CHHapticEngine.playPattern): a one-shot player the daemon
 * destroys when it ends. flags: HAPTICD_PLAY_LOOP (lasts until stopped or the connection closes).
 * rate: 1 for normal speed. *player_id (may be NULL) is its number for events. Thread-safe. */
enum { HAPTICD_PLAY_LOOP = 1 };
HAPTICD_API int hapticd_engine_play(hapticd_engine *engine, const hapticd_pattern *pattern, int flags, double rate, int32_t *player_id);
/* A library pattern on the default pad and locality. Thread-safe. */
HAPTICD_API int hapticd_play_name(hapticd_client *client, const char *name, int32_t *player_id);
/* An AHAP file on the default pad and locality. Thread-safe. */
HAPTICD_API int hapticd_play_file(hapticd_client *client, const char *path, int32_t *player_id);

/* UIKit's feedback generators: type "impact" (style "light", "medium", "heavy", "soft", "rigid";
 * NULL: medium), "selection" (style NULL), "notification" (style "success", "warning", "error").
 * intensity 0…1, or a negative number for none. flags: HAPTICD_FEEDBACK_IMPORTANT (heard through
 * the quiet profile when the daemon's policy allows it for this app). Thread-safe. */
enum { HAPTICD_FEEDBACK_IMPORTANT = 1 };
HAPTICD_API int hapticd_engine_feedback(hapticd_engine *engine, const char *type, const char *style, double intensity, int flags, int32_t *player_id);
HAPTICD_API int hapticd_feedback(hapticd_client *client, const char *type, const char *style, double intensity, int flags);

/* A plain rumble, as SDL_RumbleGamepad: both motors (0…1) for `duration` seconds after `delay`.
 * A new rumble from the connection replaces its previous one; 0, 0 stops it. The engine's locality
 * does not apply (the motors are named directly). Thread-safe. */
HAPTICD_API int hapticd_engine_rumble(hapticd_engine *engine, double strong, double weak, double duration, double delay);
HAPTICD_API int hapticd_rumble(hapticd_client *client, double strong, double weak, double duration);

/* UIKit's prepare() on the default pad. Thread-safe. */
HAPTICD_API int hapticd_prepare(hapticd_client *client);
/* `capabilities` of a pad (-1: the default one). Thread-safe. */
HAPTICD_API int hapticd_capabilities_get(hapticd_client *client, int device, hapticd_capabilities *out);
/* The panic button (`stop_all`): every player of this user (root and admins: everyone's);
 * *stopped (may be NULL) is how many. Thread-safe. */
HAPTICD_API int hapticd_stop_all(hapticd_client *client, int *stopped);

/* ---------------------------------------------------------------------------------------------- */
/* Events                                                                                          */

enum {
    HAPTICD_EVENT_NONE = 0,
    HAPTICD_EVENT_PLAYER_FINISHED = 1,  /* player, device, locality, reason */
    HAPTICD_EVENT_ENGINE_STOPPED = 2,   /* device, locality, reason */
    HAPTICD_EVENT_ENGINE_RESET = 3,     /* device, locality: its players are invalidated */
    HAPTICD_EVENT_DEVICE_ADDED = 4,     /* device, name, connected */
    HAPTICD_EVENT_DEVICE_REMOVED = 5,   /* device, name, connected */
    HAPTICD_EVENT_DEVICE_OUTPUT = 6,    /* device, time, strong, weak (0…65535): every write to the pad */
    HAPTICD_EVENT_EVENTS_DROPPED = 7,   /* count: events lost because they were not read in time */
    HAPTICD_EVENT_CONNECTION_LOST = 8   /* the daemon went away: hapticd_reconnect when you like */
};
#define HAPTICD_EVENT_MASK(type) (1u << (type))
/* What hapticd_connect subscribes to: everything but DEVICE_OUTPUT. (EVENTS_DROPPED and
 * CONNECTION_LOST always come.) */
#define HAPTICD_EVENTS_DEFAULT                                                                           \
    (HAPTICD_EVENT_MASK(HAPTICD_EVENT_PLAYER_FINISHED) | HAPTICD_EVENT_MASK(HAPTICD_EVENT_ENGINE_STOPPED) | \
     HAPTICD_EVENT_MASK(HAPTICD_EVENT_ENGINE_RESET) | HAPTICD_EVENT_MASK(HAPTICD_EVENT_DEVICE_ADDED) |     \
     HAPTICD_EVENT_MASK(HAPTICD_EVENT_DEVICE_REMOVED))

enum {
    HAPTICD_REASON_NONE = 0,
    HAPTICD_REASON_FINISHED = 1,                  /* player: reached its end */
    HAPTICD_REASON_STOPPED = 2,                   /* player: stopped */
    HAPTICD_REASON_CANCELLED = 3,                 /* player: cancelled */
    HAPTICD_REASON_IDLE_TIMEOUT = 4,              /* engine: idleTimeout */
    HAPTICD_REASON_GAME_CONTROLLER_DISCONNECT = 5,/* engine: gameControllerDisconnect */
    HAPTICD_REASON_ENGINE_DESTROYED = 6,          /* engine: engineDestroyed */
    HAPTICD_REASON_SYSTEM_ERROR = 7,              /* engine: systemError */
    HAPTICD_REASON_NOTIFY_WHEN_FINISHED = 8,      /* engine: notifyWhenFinished */
    HAPTICD_REASON_OTHER = 9                      /* a reason this library does not know: see reason_name */
};

typedef struct hapticd_event {
    int32_t type;         /* HAPTICD_EVENT_* */
    int32_t device;       /* -1 when none */
    int32_t player;       /* -1 when none */
    int32_t reason;       /* HAPTICD_REASON_* */
    int32_t count;        /* EVENTS_DROPPED */
    int32_t strong;       /* DEVICE_OUTPUT */
    int32_t weak;
    int32_t connected;    /* DEVICE_ADDED / DEVICE_REMOVED */
    double time;          /* DEVICE_OUTPUT: the engine's clock */
    char locality[32];
    char reason_name[32]; /* as the daemon wrote it */
    char name[128];       /* DEVICE_ADDED / DEVICE_REMOVED: the pad's name */
} hapticd_event;

/* Which events the daemon sends (HAPTICD_EVENT_MASK bits; `subscribe`). Thread-safe. */
HAPTICD_API int hapticd_subscribe(hapticd_client *client, unsigned mask);

typedef void (*hapticd_event_fn)(const hapticd_event *event, void *user);
/* The function hapticd_dispatch calls for each event (NULL: none; events then wait for
 * hapticd_next_event). Thread-safe. */
HAPTICD_API int hapticd_set_event_callback(hapticd_client *client, hapticd_event_fn fn, void *user);

/* A descriptor that is readable while events wait or data from the daemon does: poll or epoll it
 * for POLLIN, then call hapticd_dispatch. The same descriptor for the client's whole life (across
 * hapticd_reconnect); owned by the client. Thread-safe. */
HAPTICD_API int hapticd_fd(hapticd_client *client);
/* Reads what the daemon sent, waiting up to timeout_ms (0: not at all; -1: until something comes)
 * when nothing waits, and hands every waiting event to the callback. Returns how many events it
 * handed over (>= 0), or an error (HAPTICD_E_DISCONNECTED once the connection is lost and its
 * CONNECTION_LOST was handed over). At most 256 wait: 255 events in the order they came, and when
 * more come before the application takes some, one EVENTS_DROPPED in the 256th place whose count
 * is how many did not fit (plus the count of any EVENTS_DROPPED the daemon sends meanwhile, for
 * events it could not send). CONNECTION_LOST is never dropped: it comes after them. Thread-safe. */
HAPTICD_API int hapticd_dispatch(hapticd_client *client, int timeout_ms);
/* The next waiting event, reading from the daemon and waiting up to timeout_ms for one: 1 and *out
 * filled, 0 when none came, or an error. Thread-safe. */
HAPTICD_API int hapticd_next_event(hapticd_client *client, hapticd_event *out, int timeout_ms);

#ifdef __cplusplus
}
#endif
#endif
