/* libhapticd against the real hapticd --simulate: every call's effect is checked where it shows —
 * in the daemon's --trace of what reached the pad, in events, in replies — and every error path
 * with its code and the words of its message. A stand-in server (a thread here) plays the daemon
 * where a real one cannot misbehave on demand: silence, hostile lines, floods of events. */
#include "daemon.h"

#include <hapticd.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/un.h>

/* The ABI: these sizes are what docs/clients.md's C# declarations (StructLayout.Sequential) lay
 * out; a change here is an ABI change (a new soname), not an accident. */
_Static_assert(sizeof(hapticd_event) == 232, "hapticd_event layout");
_Static_assert(sizeof(hapticd_player_status) == 112, "hapticd_player_status layout");
_Static_assert(sizeof(hapticd_engine_status) == 80, "hapticd_engine_status layout");
_Static_assert(sizeof(hapticd_capabilities) == 264, "hapticd_capabilities layout");
_Static_assert(sizeof(hapticd_policy) == 200, "hapticd_policy layout");
_Static_assert(sizeof(hapticd_identity) == 200, "hapticd_identity layout");
_Static_assert(sizeof(hapticd_device_info) == 368, "hapticd_device_info layout");
_Static_assert(sizeof(hapticd_pattern_info) == 264, "hapticd_pattern_info layout");
_Static_assert(sizeof(hapticd_parameter_value) == 16 && sizeof(hapticd_curve_point) == 16, "value layouts");

static int checks, failures;
static const char *current;

#define CHECK(cond)                                                                                                  \
    do {                                                                                                             \
        checks++;                                                                                                    \
        if (!(cond)) {                                                                                               \
            failures++;                                                                                              \
            fprintf(stderr, "FAILED %s:%d in %s: %s\n  last error: %s\n", __FILE__, __LINE__, current, #cond, hapticd_last_error()); \
        }                                                                                                            \
    } while (0)
#define OK(call) CHECK((call) == HAPTICD_OK)

static daemon_t D; /* the shared daemon: 2 pads */

static hapticd_client *connect_d(daemon_t *d) {
    hapticd_client *c = NULL;
    int r = hapticd_connect(d->sock, "org.hapticd.test", &c);
    if (r) fprintf(stderr, "connect: %s\n", hapticd_last_error());
    return c;
}

/* A daemon of one simulated pad and a connection to it; NULL (a failed check, the daemon gone) when
 * either fails. */
static hapticd_client *start_and_connect(daemon_t *d) {
    if (daemon_start(d, NULL, 1)) {
        CHECK(0);
        return NULL;
    }
    hapticd_client *c = connect_d(d);
    CHECK(c);
    if (!c) daemon_cleanup(d);
    return c;
}

/* Waits for an event of `type` (and player, if ≥ 0); others are skipped. */
static int wait_event(hapticd_client *c, int type, int player, hapticd_event *out, int timeout_ms) {
    double end = now_s() + timeout_ms / 1000.0;
    while (now_s() < end) {
        hapticd_event e;
        int r = hapticd_next_event(c, &e, (int)((end - now_s()) * 1000) + 1);
        if (r < 0) return r;
        if (r == 1 && e.type == type && (player < 0 || e.player == player)) {
            if (out) *out = e;
            return 1;
        }
    }
    return 0;
}

/* Trace predicates. */
typedef struct {
    int device;
    double after;
    int count;
    double at;
} tq;

static int pred_active(const trace_row *r, int n, void *ctx) {
    tq *q = ctx;
    for (int i = 0; i < n; i++)
        if (r[i].device == q->device && r[i].time >= q->after && (r[i].strong || r[i].weak)) {
            q->at = r[i].time;
            return 1;
        }
    return 0;
}

/* The pad's last write after q->after is silent, following an active one. */
static int pred_still(const trace_row *r, int n, void *ctx) {
    tq *q = ctx;
    int active = 0, last = -1;
    for (int i = 0; i < n; i++)
        if (r[i].device == q->device && r[i].time >= q->after) {
            if (r[i].strong || r[i].weak) active = 1;
            last = i;
        }
    return active && last >= 0 && !r[last].strong && !r[last].weak;
}

static int pred_last_silent(const trace_row *r, int n, void *ctx) {
    tq *q = ctx;
    for (int i = n - 1; i >= 0; i--)
        if (r[i].device == q->device && r[i].time >= q->after) return !r[i].strong && !r[i].weak;
    return 0;
}

static int pred_last_active(const trace_row *r, int n, void *ctx) {
    tq *q = ctx;
    for (int i = n - 1; i >= 0; i--)
        if (r[i].device == q->device && r[i].time >= q->after) return r[i].strong || r[i].weak;
    return 0;
}

static double last_trace_time(daemon_t *d) {
    int n;
    trace_row *rows = trace_rows(d, &n);
    double t = n ? rows[n - 1].time : 0;
    free(rows);
    return t;
}

/* ------------------------------------------------------------------------------------------ */

/* A Unix socket listening at path with a queue of backlog connections: its fd, or -1. */
static int listen_at(const char *path, int backlog) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, path);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, backlog) != 0) {
        if (s >= 0) close(s);
        return -1;
    }
    return s;
}

static void test_connect_errors(void) {
    current = "connect errors";
    hapticd_client *c = (hapticd_client *)1;
    char path[400];
    snprintf(path, sizeof path, "%s/none.sock", D.dir);
    CHECK(hapticd_connect(path, NULL, &c) == HAPTICD_E_NOT_RUNNING);
    CHECK(c == NULL);
    CHECK(strstr(hapticd_last_error(), path) && strstr(hapticd_last_error(), "hapticd is not running"));
    CHECK(strstr(hapticd_last_error(), "hapticd --simulate"));
    CHECK(!strcmp(hapticd_status_name(HAPTICD_E_NOT_RUNNING), "HAPTICD_E_NOT_RUNNING"));

    /* The default path follows $HAPTICD_SOCKET, as hapticctl's does. */
    char buf[256];
    setenv("HAPTICD_SOCKET", D.sock, 1);
    OK(hapticd_default_socket_path(buf, sizeof buf));
    CHECK(!strcmp(buf, D.sock));
    CHECK(hapticd_default_socket_path(buf, 4) == HAPTICD_E_INVALID_ARGUMENT);
    OK(hapticd_connect(NULL, NULL, &c));
    CHECK(c && !strcmp(hapticd_socket_path(c), D.sock));
    hapticd_close(c);
    unsetenv("HAPTICD_SOCKET");

    CHECK(hapticd_connect(D.sock, "", &c) == HAPTICD_E_INVALID_ARGUMENT);
    /* The daemon's rule for app ids, checked before connecting (the path here has no daemon: a
     * NOT_RUNNING would mean the id went unchecked). */
    char long_id[130];
    memset(long_id, 'a', 129);
    long_id[129] = 0;
    const char *bad_ids[] = {"has space", "tab\there", "del\x7f", "nl\n", "bad\xff\xfeutf8", "\xc3", long_id};
    for (size_t i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++) {
        CHECK(hapticd_connect(path, bad_ids[i], &c) == HAPTICD_E_INVALID_ARGUMENT && c == NULL);
        CHECK(strstr(hapticd_last_error(), "without spaces or control characters"));
    }
    long_id[128] = 0; /* 128 bytes: allowed, as is any printable UTF-8 */
    OK(hapticd_connect(D.sock, long_id, &c));
    hapticd_identity who;
    CHECK(hapticd_hello(c, "has space", &who) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(!strcmp(hapticd_last_error_code(), "")); /* the library's, not the daemon's bad_request */
    OK(hapticd_hello(c, "org.example.Spiel\xc3\xa9\xe2\x9c\x93", &who));
    CHECK(!strcmp(who.app, "org.example.Spiel\xc3\xa9\xe2\x9c\x93"));
    hapticd_close(c);

    /* Permission: a socket of group root, mode 0660, reached by a user outside the group. Root
     * passes every permission check, so as root a child becomes nobody to try. */
    char psock[400];
    snprintf(psock, sizeof psock, "%s/perm.sock", D.dir);
    int ls = listen_at(psock, 4);
    CHECK(ls >= 0);
    chmod(psock, getuid() == 0 ? 0660 : 0);
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        if (getuid() == 0) {
            struct passwd *nobody = getpwnam("nobody");
            if (!nobody || setgroups(0, NULL) || setgid(nobody->pw_gid) || setuid(nobody->pw_uid)) _exit(3);
        }
        hapticd_client *pc = NULL;
        int r = hapticd_connect(psock, NULL, &pc);
        char msg[1100];
        snprintf(msg, sizeof msg, "%d %s", r, hapticd_last_error());
        if (write(fds[1], msg, strlen(msg) + 1) < 0) _exit(4);
        _exit(0);
    }
    close(fds[1]);
    char msg[1100] = "";
    CHECK(read(fds[0], msg, sizeof msg - 1) > 0);
    waitpid(pid, NULL, 0);
    close(fds[0]);
    close(ls);
    unlink(psock);
    CHECK(atoi(msg) == HAPTICD_E_PERMISSION);
    CHECK(strstr(msg, "permission denied on") && strstr(msg, "usermod -aG"));
    if (getuid() == 0) CHECK(strstr(msg, "group 'root'") && strstr(msg, "0660"));

    /* A hung daemon's queue of connections not yet accepted is full: connecting gives up within the
     * timeout (a Unix socket's blocking connect would wait without a bound). */
    char fsock[400];
    snprintf(fsock, sizeof fsock, "%s/full.sock", D.dir);
    int fs = listen_at(fsock, 0);
    CHECK(fs >= 0);
    struct sockaddr_un fa = {.sun_family = AF_UNIX};
    strcpy(fa.sun_path, fsock);
    int held = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(connect(held, (struct sockaddr *)&fa, sizeof fa) == 0); /* the queue's one place */
    hapticd_client *fc = NULL;
    CHECK(hapticd_connect(fsock, NULL, &fc) == HAPTICD_E_TIMEOUT && fc == NULL);
    CHECK(strstr(hapticd_last_error(), "does not accept connections"));
    close(held);
    close(fs);
    unlink(fsock);
}

static void test_basics(void) {
    current = "basics";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    CHECK(hapticd_is_connected(c));
    OK(hapticd_ping(c));
    char version[32];
    int protocol = 0;
    OK(hapticd_daemon_version(c, version, sizeof version, &protocol));
    CHECK(protocol == 1 && version[0]);
    int major, minor, patch;
    char tail;
    CHECK(sscanf(version, "%d.%d.%d%c", &major, &minor, &patch, &tail) == 3); /* MAJOR.MINOR.PATCH, as the header says */
    CHECK(hapticd_version() == HAPTICD_VERSION);

    hapticd_device_info devs[4];
    int total = 0;
    OK(hapticd_devices(c, devs, 1, &total));
    CHECK(total == 2);
    OK(hapticd_devices(c, devs, 4, &total));
    CHECK(devs[0].device == 0 && devs[1].device == 1 && devs[0].simulated && devs[0].connected);
    CHECK(!strcmp(devs[1].name, "Simulated rumble pad 1"));

    hapticd_pattern_info pats[64];
    OK(hapticd_patterns(c, pats, 64, &total));
    int heartbeat = 0;
    for (int i = 0; i < total && i < 64; i++)
        if (!strcmp(pats[i].name, "heartbeat") && pats[i].duration > 0) heartbeat = 1;
    CHECK(total > 5 && heartbeat);

    char *json = NULL;
    OK(hapticd_request(c, "{\"cmd\":\"engine.status\",\"device\":1}", &json));
    CHECK(json && strstr(json, "\"device\":1") && strstr(json, "\"running\":true"));
    hapticd_free(json);
    CHECK(hapticd_request(c, "{\"cmd\":\"nope\"}", NULL) == HAPTICD_E_UNKNOWN_COMMAND);
    CHECK(!strcmp(hapticd_last_error_code(), "unknown_command"));
    CHECK(hapticd_request(c, "[1]", NULL) == HAPTICD_E_BAD_JSON);

    hapticd_capabilities caps;
    OK(hapticd_capabilities_get(c, 1, &caps));
    CHECK(caps.device == 1 && caps.supports_haptics && !caps.supports_audio && caps.levels > 1);
    CHECK(caps.localities & (1u << HAPTICD_LOCALITY_LEFT_HANDLE));
    CHECK(caps.localities & (1u << HAPTICD_LOCALITY_RIGHT_HANDLE));
    CHECK(!(caps.localities & (1u << HAPTICD_LOCALITY_TRIGGERS)));
    CHECK(caps.minimum_update_interval > 0);
    CHECK(!strcmp(hapticd_locality_name(HAPTICD_LOCALITY_LEFT_HANDLE), "leftHandle") && !hapticd_locality_name(99));
    OK(hapticd_prepare(c));
    hapticd_close(c);
}

/* hello and policy on the shared daemon (no rules): the app is named, the policy is the default. */
static void test_hello_policy(void) {
    current = "hello and policy";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    hapticd_identity id;
    OK(hapticd_hello(c, "org.hapticd.test.policy", &id));
    CHECK(!strcmp(id.app, "org.hapticd.test.policy") && id.client >= 0 && id.uid == (int32_t)getuid() && id.process[0]);
    hapticd_policy pol;
    OK(hapticd_policy_get(c, &pol));
    CHECK(pol.profile == HAPTICD_PROFILE_FULL && !strcmp(pol.profile_name, "full"));
    CHECK(pol.max_strength == 1 && pol.app_enabled && pol.app_gain == 1 && pol.app_heard_at == 1 && !pol.app_configured);
    CHECK(!strcmp(pol.app, "org.hapticd.test.policy"));
    CHECK(hapticd_hello(c, "", NULL) == HAPTICD_E_INVALID_ARGUMENT);
    hapticd_close(c);
}

static void test_play_name(void) {
    current = "play by name";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    tq q = {0, last_trace_time(&D), 0, 0};
    int32_t id = -1;
    OK(hapticd_play_name(c, "heartbeat", &id));
    CHECK(id >= 1);
    hapticd_event e;
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, id, &e, 10000) == 1);
    CHECK(e.reason == HAPTICD_REASON_FINISHED && !strcmp(e.reason_name, "finished") && e.device == 0);
    CHECK(!strcmp(e.locality, "default"));
    CHECK(wait_trace(&D, 5, pred_still, &q));

    CHECK(hapticd_play_name(c, "nope", NULL) == HAPTICD_E_NOT_FOUND);
    CHECK(strstr(hapticd_last_error(), "no pattern named \"nope\""));
    CHECK(!strcmp(hapticd_last_error_code(), "not_found"));

    /* A file, through the one-call helper. */
    char path[1024];
    snprintf(path, sizeof path, "%s/config/patterns/click.ahap", getenv("HAPTICD_REPO"));
    OK(hapticd_play_file(c, path, &id));
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, id, NULL, 5000) == 1);
    CHECK(hapticd_play_file(c, "/nonexistent/x.ahap", NULL) == HAPTICD_E_FILE);
    CHECK(strstr(hapticd_last_error(), "/nonexistent/x.ahap") && strstr(hapticd_last_error(), "No such file"));
    hapticd_close(c);
}

static void test_player(void) {
    current = "player";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    hapticd_engine *eng;
    OK(hapticd_engine_create(c, 1, NULL, &eng));
    hapticd_pattern *pat;
    OK(hapticd_pattern_new(&pat));
    OK(hapticd_pattern_add_continuous(pat, 0, 0.3, 1.0, 0.5));
    CHECK(hapticd_pattern_add_transient(pat, 0, 1.5, 0) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(hapticd_pattern_add_transient(pat, NAN, 1, 0) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(strstr(hapticd_pattern_json(pat), "\"HapticContinuous\""));

    hapticd_player *p;
    OK(hapticd_player_create(eng, pat, HAPTICD_PLAYER_ADVANCED, &p));
    hapticd_player_status st;
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_IDLE && st.device == 1 && st.advanced && fabs(st.duration - 0.3) < 1e-9);
    CHECK(st.player == hapticd_player_id(p) && !strcmp(st.locality, "default"));

    /* Started: the pad moves, then stops by itself, and the owner hears player.finished. */
    tq q = {1, last_trace_time(&D), 0, 0};
    OK(hapticd_player_start(p, HAPTICD_TIME_NOW));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_PLAYING);
    hapticd_event e;
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, st.player, &e, 5000) == 1);
    CHECK(e.reason == HAPTICD_REASON_FINISHED && e.device == 1);
    CHECK(wait_trace(&D, 5, pred_still, &q));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_FINISHED);

    /* Looping, with dynamic parameters: intensity 0 silences the pad, 1 brings it back. */
    OK(hapticd_player_set_loop(p, 1));
    OK(hapticd_player_start(p, HAPTICD_TIME_NOW));
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_active, &q));
    OK(hapticd_player_send_parameter(p, HAPTICD_PARAM_INTENSITY, 0, HAPTICD_TIME_NOW));
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_last_silent, &q));
    hapticd_parameter_value v[2] = {{HAPTICD_PARAM_INTENSITY, 0, 1}, {HAPTICD_PARAM_SHARPNESS, 0, -0.5}};
    OK(hapticd_player_send_parameters(p, v, 2, HAPTICD_TIME_NOW));
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_last_active, &q));
    v[0].parameter = 77;
    CHECK(hapticd_player_send_parameters(p, v, 1, 0) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(strstr(hapticd_last_error(), "unknown parameter 77"));
    hapticd_parameter_value not_a_number = {HAPTICD_PARAM_INTENSITY, 0, NAN};
    CHECK(hapticd_player_send_parameters(p, &not_a_number, 1, 0) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(strstr(hapticd_last_error(), "intensity") && strstr(hapticd_last_error(), "not a finite number")
          && !strstr(hapticd_last_error(), "unknown parameter"));
    hapticd_parameter_value bad = {HAPTICD_PARAM_INTENSITY, 0, 3};
    CHECK(hapticd_player_send_parameters(p, &bad, 1, 0) == HAPTICD_E_BAD_REQUEST);
    CHECK(strstr(hapticd_last_error(), "intensity") && strstr(hapticd_last_error(), "0.0…1.0"));

    /* Advanced controls: pause, seek, rate, mute, resume. */
    OK(hapticd_player_pause(p, HAPTICD_TIME_NOW));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_PAUSED);
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_last_silent, &q));
    OK(hapticd_player_seek(p, 0.1));
    OK(hapticd_player_status_get(p, &st));
    CHECK(fabs(st.offset - 0.1) < 1e-6);
    OK(hapticd_player_set_rate(p, 2));
    OK(hapticd_player_set_loop_end(p, 0.2));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.rate == 2 && fabs(st.loop_end - 0.2) < 1e-9 && st.loop);
    CHECK(hapticd_player_set_rate(p, 1e6) == HAPTICD_E_BAD_REQUEST);
    CHECK(strstr(hapticd_last_error(), "max_rate"));
    OK(hapticd_player_resume(p, HAPTICD_TIME_NOW));
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_last_active, &q));
    OK(hapticd_player_set_muted(p, 1));
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_last_silent, &q));
    OK(hapticd_player_set_muted(p, 0));

    /* Stop: silent, and player.finished says stopped. */
    OK(hapticd_player_stop(p, HAPTICD_TIME_NOW));
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, st.player, &e, 5000) == 1);
    CHECK(e.reason == HAPTICD_REASON_STOPPED);
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_last_silent, &q));

    /* A curve: intensity from 1 down to 0 over 0.2 s leaves the looping player playing, and silent. */
    q.after = last_trace_time(&D); /* before the start: the whole ramp may be over by the time it is read after */
    OK(hapticd_player_start(p, HAPTICD_TIME_NOW));
    hapticd_curve_point pts[2] = {{0, 1}, {0.2, 0}};
    OK(hapticd_player_schedule_curve(p, HAPTICD_PARAM_INTENSITY, pts, 2, HAPTICD_TIME_NOW));
    CHECK(wait_trace(&D, 5, pred_still, &q));
    OK(hapticd_player_seek(p, 0)); /* a reply refreshes the status */
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_PLAYING);
    CHECK(hapticd_player_schedule_curve(p, 42, pts, 2, 0) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(hapticd_player_schedule_curve(p, HAPTICD_PARAM_INTENSITY, pts, 0, 0) == HAPTICD_E_INVALID_ARGUMENT);
    /* How many points is the daemon's bound (limits.max_curve_points, 1024 by default), not the
     * library's: 1024 go (staying at 0, the player stays silent), 1025 are its limit_exceeded. */
    static hapticd_curve_point many[1025];
    for (int i = 0; i < 1025; i++) many[i] = (hapticd_curve_point){i * 0.001, 0};
    OK(hapticd_player_schedule_curve(p, HAPTICD_PARAM_INTENSITY, many, 17, HAPTICD_TIME_NOW));
    OK(hapticd_player_schedule_curve(p, HAPTICD_PARAM_INTENSITY, many, 1024, HAPTICD_TIME_NOW));
    CHECK(hapticd_player_schedule_curve(p, HAPTICD_PARAM_INTENSITY, many, 1025, HAPTICD_TIME_NOW) == HAPTICD_E_LIMIT);
    CHECK(strstr(hapticd_last_error(), "limits.max_curve_points") && !strcmp(hapticd_last_error_code(), "limit_exceeded"));

    /* Cancel drops what was scheduled: a start in a second never happens. */
    OK(hapticd_player_cancel(p));
    double t;
    OK(hapticd_engine_current_time(eng, &t));
    OK(hapticd_player_start(p, t + 1));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_IDLE || st.state == HAPTICD_STATE_SCHEDULED);
    OK(hapticd_player_cancel(p));
    OK(hapticd_player_destroy(p));

    /* A basic player has no pause. */
    OK(hapticd_player_create(eng, pat, HAPTICD_PLAYER_BASIC, &p));
    OK(hapticd_player_start(p, 0));
    CHECK(hapticd_player_pause(p, 0) == HAPTICD_E_BAD_REQUEST);
    OK(hapticd_player_destroy(p));
    hapticd_pattern_free(pat);
    hapticd_engine_destroy(eng);
    hapticd_close(c);
}

/* A start at a time on the engine's clock: the pad first moves then, not before. */
static void test_timing(void) {
    current = "timing";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    hapticd_engine *eng;
    OK(hapticd_engine_create(c, 0, "default", &eng));
    double est, after;
    hapticd_engine_status s;
    OK(hapticd_engine_current_time(eng, &est));
    OK(hapticd_engine_status_get(eng, &s));
    OK(hapticd_engine_current_time(eng, &after));
    CHECK(s.running && s.connected && s.device == 0 && !strcmp(s.locality, "default"));
    CHECK(s.current_time >= est - 0.005 && s.current_time <= after + 0.005);

    hapticd_pattern *pat;
    OK(hapticd_pattern_from_name("rumble-long", &pat));
    hapticd_player *p;
    OK(hapticd_player_create(eng, pat, 0, &p));
    double at;
    OK(hapticd_engine_current_time(eng, &at));
    at += 0.3;
    OK(hapticd_player_start(p, at));
    /* The pad may still be finishing what came before for a write or two (it is paced): from
     * 50 ms after the start command on, it is silent until `at`. */
    tq q = {0, at - 0.25, 0, 0};
    hapticd_player_status st;
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_SCHEDULED);
    CHECK(wait_trace(&D, 5, pred_active, &q));
    CHECK(q.at >= at - 0.002 && q.at <= at + 0.1);
    if (!(q.at >= at - 0.002 && q.at <= at + 0.1)) fprintf(stderr, "  asked %.4f, moved %.4f\n", at, q.at);

    /* Core Haptics' stop(): this connection's players on the engine stop, and a start scheduled
     * for later is dropped. */
    hapticd_player *later;
    OK(hapticd_player_create(eng, pat, 0, &later));
    OK(hapticd_player_start(later, at + 30));
    OK(hapticd_engine_stop(eng));
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, st.player, NULL, 5000) == 1);
    OK(hapticd_engine_status_get(eng, &s));
    CHECK(!s.playing);
    OK(hapticd_player_set_muted(later, 0)); /* a reply with its state */
    OK(hapticd_player_status_get(later, &st));
    CHECK(st.state == HAPTICD_STATE_IDLE);
    hapticd_pattern_free(pat);
    hapticd_close(c); /* frees the engine and player too */
}

static void test_patterns_and_errors(void) {
    current = "patterns and errors";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    hapticd_engine *eng;
    OK(hapticd_engine_create(c, -1, NULL, &eng));
    hapticd_pattern *pat = NULL;
    hapticd_player *p = NULL;

    /* The daemon judges meaning, with JSON paths. */
    OK(hapticd_pattern_from_ahap("{\"Pattern\":[{\"Event\":{\"EventType\":\"Buzz\",\"Time\":0}}]}", -1, &pat));
    CHECK(hapticd_player_create(eng, pat, 0, &p) == HAPTICD_E_INVALID_PATTERN && !p);
    CHECK(!strcmp(hapticd_last_error_code(), "invalid_pattern"));
    CHECK(strstr(hapticd_last_error_details(), "Pattern[0].Event.EventType: unknown event type \"Buzz\""));
    CHECK(strstr(hapticd_last_error(), "[invalid_pattern, from `player.create`"));
    hapticd_pattern_free(pat);

    /* The library judges syntax, with the text's own line and column. */
    const char *broken = "{\n  \"Pattern\": [\n    {\"Event\": }\n  ]\n}";
    CHECK(hapticd_pattern_from_ahap(broken, -1, &pat) == HAPTICD_E_BAD_JSON && !pat);
    CHECK(strstr(hapticd_last_error(), "line 3, column 15: expected a value, found '}'"));
    CHECK(hapticd_pattern_from_ahap("[1]", -1, &pat) == HAPTICD_E_BAD_JSON);
    CHECK(strstr(hapticd_last_error(), "an AHAP pattern is a JSON object"));
    CHECK(hapticd_pattern_from_ahap("{} {}", -1, &pat) == HAPTICD_E_BAD_JSON);
    CHECK(hapticd_pattern_from_ahap("{\"a\": \"x\ny\"}", -1, &pat) == HAPTICD_E_BAD_JSON);

    /* Leniency as the daemon's: comments, trailing commas, single quotes, bare keys — it plays. */
    const char *lenient =
        "// a comment\n{ Version: 1.0, /* block */ 'Pattern': [\n"
        "  {\"Event\": {\"EventType\": \"HapticTransient\", \"Time\": 0, \"EventParameters\": [\n"
        "    {\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": +0.8,},],},},\n]}\n";
    OK(hapticd_pattern_from_ahap(lenient, -1, &pat));
    CHECK(!strchr(hapticd_pattern_json(pat), '\n') && !strstr(hapticd_pattern_json(pat), "comment"));
    int32_t id;
    OK(hapticd_engine_play(eng, pat, 0, 1, &id));
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, id, NULL, 5000) == 1);
    hapticd_pattern_free(pat);

    /* Every shipped pattern, and every real AHAP file beside the repository, loads and is
     * accepted by the daemon. */
    char cmd[2048];
    const char *repo = getenv("HAPTICD_REPO");
    snprintf(cmd, sizeof cmd, "ls %s/config/patterns/*.ahap %s/../shared/ahap/*/*.ahap 2>/dev/null", repo, repo);
    FILE *ls = popen(cmd, "r");
    char path[1024];
    int files = 0, accepted = 0;
    while (fgets(path, sizeof path, ls)) {
        path[strcspn(path, "\n")] = 0;
        files++;
        if (hapticd_pattern_from_file(path, &pat)) {
            fprintf(stderr, "  %s: %s\n", path, hapticd_last_error());
            continue;
        }
        int r = hapticd_player_create(eng, pat, 0, &p);
        if (r) fprintf(stderr, "  %s: %s\n%s\n", path, hapticd_last_error(), hapticd_last_error_details());
        else accepted++, hapticd_player_destroy(p);
        hapticd_pattern_free(pat);
    }
    pclose(ls);
    CHECK(files >= 10 && accepted == files);
    fprintf(stderr, "  %d AHAP files loaded and accepted\n", accepted);

    /* Pads and localities. */
    hapticd_engine *e2 = NULL;
    CHECK(hapticd_engine_create(c, 7, NULL, &e2) == HAPTICD_E_NOT_FOUND && !e2);
    CHECK(strstr(hapticd_last_error(), "no device 7"));
    CHECK(hapticd_engine_create(c, 0, "leftTrigger", &e2) == HAPTICD_E_UNSUPPORTED);
    CHECK(strstr(hapticd_last_error(), "trigger"));
    CHECK(hapticd_engine_create(c, 0, "elbow", &e2) == HAPTICD_E_BAD_REQUEST);
    CHECK(strstr(hapticd_last_error(), "unknown locality \"elbow\""));

    /* Bad arguments never reach the daemon. */
    CHECK(hapticd_player_start(NULL, 0) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(hapticd_engine_set_priority(eng, 101) == HAPTICD_E_INVALID_ARGUMENT);
    OK(hapticd_engine_set_priority(eng, 10));
    OK(hapticd_engine_set_priority(eng, HAPTICD_PRIORITY_DEFAULT));
    CHECK(hapticd_set_timeout(c, 0) == HAPTICD_E_INVALID_ARGUMENT);
    CHECK(hapticd_rumble(c, 2, 0, 1) == HAPTICD_E_INVALID_ARGUMENT);

    /* Another connection's player is not yours. */
    hapticd_client *other = connect_d(&D);
    OK(hapticd_pattern_from_name("rumble-long", &pat));
    OK(hapticd_player_create(eng, pat, 0, &p));
    char req[128];
    snprintf(req, sizeof req, "{\"cmd\":\"player.start\",\"player\":%d}", hapticd_player_id(p));
    CHECK(hapticd_request(other, req, NULL) == HAPTICD_E_PERMISSION);
    CHECK(strstr(hapticd_last_error(), "belongs to another client"));
    hapticd_close(other);

    /* Limits: the 129th player of a connection, with the key to raise. */
    hapticd_player *many[200];
    int made = 0, r = 0;
    while (made < 200 && !(r = hapticd_player_create(eng, pat, 0, &many[made]))) made++;
    CHECK(r == HAPTICD_E_LIMIT && made == 127);
    CHECK(strstr(hapticd_last_error(), "limits.max_players_per_client"));
    for (int i = 0; i < made; i++) hapticd_player_destroy(many[i]);
    hapticd_pattern_free(pat);
    hapticd_close(c);
}

static void test_feedback_rumble_localities(void) {
    current = "feedback, rumble, localities";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    hapticd_engine *eng;
    OK(hapticd_engine_create(c, 1, "default", &eng));
    tq q = {1, last_trace_time(&D), 0, 0};
    int32_t id;
    OK(hapticd_engine_feedback(eng, "impact", "heavy", 0.7, 0, &id));
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, id, NULL, 5000) == 1);
    CHECK(wait_trace(&D, 5, pred_still, &q));
    OK(hapticd_engine_feedback(eng, "selection", NULL, -1, HAPTICD_FEEDBACK_IMPORTANT, &id));
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, id, NULL, 5000) == 1);
    OK(hapticd_feedback(c, "notification", "error", -1, 0));
    CHECK(hapticd_feedback(c, "impact", "squishy", -1, 0) == HAPTICD_E_BAD_REQUEST);
    CHECK(strstr(hapticd_last_error(), "unknown impact style \"squishy\""));
    double until = 0;
    OK(hapticd_engine_prepare(eng, &until));
    CHECK(until > 0);
    OK(hapticd_engine_start(eng));

    /* A rumble: both motors as asked; 0, 0 stops it. */
    q.after = 0; /* the pad is still (its last write silent) */
    CHECK(wait_trace(&D, 5, pred_last_silent, &q));
    q.after = last_trace_time(&D);
    OK(hapticd_engine_rumble(eng, 0.8, 0.2, 5, 0));
    CHECK(wait_trace(&D, 5, pred_active, &q));
    int n;
    trace_row *rows = trace_rows(&D, &n);
    int seen = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].device == 1 && rows[i].time >= q.at && rows[i].strong) {
            CHECK(abs(rows[i].strong - (int)(0.8 * 65535)) < 700 && abs(rows[i].weak - (int)(0.2 * 65535)) < 700);
            seen = 1;
            break;
        }
    free(rows);
    CHECK(seen);
    OK(hapticd_engine_rumble(eng, 0, 0, 0, 0));
    q.after = last_trace_time(&D);
    CHECK(wait_trace(&D, 5, pred_last_silent, &q));

    /* leftHandle drives the strong motor alone. */
    hapticd_engine *left;
    OK(hapticd_engine_create(c, 1, "leftHandle", &left));
    hapticd_pattern *pat;
    OK(hapticd_pattern_new(&pat));
    OK(hapticd_pattern_add_continuous(pat, 0, 0.2, 1, 1));
    q.after = last_trace_time(&D);
    OK(hapticd_engine_play(left, pat, 0, 1, &id));
    hapticd_event e;
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, id, &e, 5000) == 1);
    CHECK(!strcmp(e.locality, "leftHandle"));
    CHECK(wait_trace(&D, 5, pred_still, &q));
    rows = trace_rows(&D, &n);
    int strong = 0, weak = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].device == 1 && rows[i].time >= q.after) strong |= rows[i].strong > 0, weak |= rows[i].weak > 0;
    free(rows);
    CHECK(strong && !weak);
    hapticd_pattern_free(pat);

    /* Root is an admin here: engine.stop stops the pad for everyone; it refuses players until
     * started again. */
    OK(hapticd_engine_admin(eng, HAPTICD_ADMIN_STOP));
    hapticd_engine_status es;
    OK(hapticd_engine_status_get(eng, &es));
    CHECK(!es.running);
    CHECK(hapticd_engine_feedback(eng, "selection", NULL, -1, 0, NULL) == HAPTICD_E_ENGINE_STOPPED);
    CHECK(hapticd_engine_start(eng) == HAPTICD_E_ENGINE_STOPPED);
    CHECK(strstr(hapticd_last_error(), "an admin must start it"));
    OK(hapticd_engine_admin(eng, HAPTICD_ADMIN_START));
    OK(hapticd_engine_start(eng));
    OK(hapticd_engine_admin(eng, HAPTICD_ADMIN_RESET));
    CHECK(wait_event(c, HAPTICD_EVENT_ENGINE_RESET, -1, &e, 5000) == 1);
    CHECK(e.device == 1 && !strcmp(e.locality, "default"));
    CHECK(hapticd_engine_admin(eng, 9) == HAPTICD_E_INVALID_ARGUMENT);
    int stopped = -1;
    OK(hapticd_stop_all(c, &stopped));
    CHECK(stopped >= 0);
    hapticd_close(c);
}

/* The descriptor is readable while an event waits in the library's queue, even when the socket
 * has nothing more: a game loop polling it never misses one. */
static int callback_count;
static hapticd_event callback_last;
static void on_event(const hapticd_event *e, void *user) {
    (void)user;
    callback_count++;
    callback_last = *e;
}

static void test_events_fd(void) {
    current = "events through the descriptor";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    int fd = hapticd_fd(c);
    struct pollfd p = {fd, POLLIN, 0};
    CHECK(poll(&p, 1, 0) == 0);
    OK(hapticd_set_event_callback(c, on_event, NULL));
    int32_t id;
    OK(hapticd_play_name(c, "click", &id));
    CHECK(poll(&p, 1, 5000) == 1); /* the event arrived on the socket */
    OK(hapticd_ping(c));           /* read while waiting for the reply: now queued */
    p.revents = 0;
    CHECK(poll(&p, 1, 0) == 1 && (p.revents & POLLIN));
    CHECK(hapticd_dispatch(c, 0) == 1);
    CHECK(callback_count == 1 && callback_last.type == HAPTICD_EVENT_PLAYER_FINISHED && callback_last.player == id);
    CHECK(poll(&p, 1, 0) == 0);
    CHECK(hapticd_dispatch(c, 0) == 0);

    /* dispatch waits up to its timeout for something to come. */
    OK(hapticd_play_name(c, "click", &id));
    double t0 = now_s();
    int got = 0;
    while (!got && now_s() - t0 < 5) got = hapticd_dispatch(c, 1000);
    CHECK(got == 1 && callback_last.player == id);

    /* Subscribing to device.output: every write, with its magnitudes. */
    OK(hapticd_set_event_callback(c, NULL, NULL));
    OK(hapticd_subscribe(c, HAPTICD_EVENTS_DEFAULT | HAPTICD_EVENT_MASK(HAPTICD_EVENT_DEVICE_OUTPUT)));
    OK(hapticd_rumble(c, 1, 0, 0.1));
    hapticd_event e;
    CHECK(wait_event(c, HAPTICD_EVENT_DEVICE_OUTPUT, -1, &e, 5000) == 1);
    CHECK(e.device == 0 && e.strong == 65535 && e.weak == 0 && e.time > 0);
    OK(hapticd_subscribe(c, 0));
    hapticd_close(c);
}

/* Many threads on one client: each gets its own replies. */
typedef struct {
    hapticd_client *c;
    int device;
    int errors;
} worker_arg;

static void *worker(void *argp) {
    worker_arg *a = argp;
    hapticd_engine *e;
    if (hapticd_engine_create(a->c, a->device, NULL, &e)) {
        a->errors++;
        return NULL;
    }
    for (int i = 0; i < 50; i++) {
        hapticd_engine_status s;
        if (hapticd_engine_status_get(e, &s) || s.device != a->device) a->errors++;
        if (hapticd_ping(a->c)) a->errors++;
    }
    hapticd_engine_destroy(e);
    return NULL;
}

static void test_threads(void) {
    current = "threads";
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    pthread_t t[4];
    worker_arg a[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (worker_arg){c, i % 2, 0};
        pthread_create(&t[i], NULL, worker, &a[i]);
    }
    int errors = 0;
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL), errors += a[i].errors;
    CHECK(errors == 0);
    hapticd_close(c);
}

/* The daemon goes away and comes back: an event says so, calls say what to do, reconnecting is
 * the caller's choice and keeps the descriptor; players are gone, engines stay. */
static void test_restart(void) {
    current = "daemon restart";
    daemon_t d;
    hapticd_client *c = start_and_connect(&d);
    if (!c) return;
    int fd = hapticd_fd(c);
    hapticd_engine *eng;
    OK(hapticd_engine_create(c, 0, NULL, &eng));
    hapticd_pattern *pat;
    OK(hapticd_pattern_from_name("rumble-long", &pat));
    hapticd_player *p;
    OK(hapticd_player_create(eng, pat, 0, &p));

    CHECK(daemon_stop(&d) == 0);
    struct pollfd pf = {fd, POLLIN, 0};
    CHECK(poll(&pf, 1, 5000) == 1);
    hapticd_event e;
    CHECK(hapticd_next_event(c, &e, 5000) == 1 && e.type == HAPTICD_EVENT_CONNECTION_LOST);
    CHECK(!hapticd_is_connected(c));
    pf.revents = 0;
    CHECK(poll(&pf, 1, 0) == 0); /* no busy loop once it was said */
    CHECK(hapticd_ping(c) == HAPTICD_E_DISCONNECTED);
    CHECK(strstr(hapticd_last_error(), "hapticd_reconnect()") && strstr(hapticd_last_error(), d.sock));
    CHECK(hapticd_player_start(p, 0) == HAPTICD_E_PLAYER_INVALIDATED);
    CHECK(hapticd_dispatch(c, -1) == HAPTICD_E_DISCONNECTED);
    CHECK(hapticd_reconnect(c) == HAPTICD_E_NOT_RUNNING);

    CHECK(daemon_launch(&d, 1) == 0);
    OK(hapticd_reconnect(c));
    CHECK(hapticd_is_connected(c) && hapticd_fd(c) == fd);
    hapticd_player_status st;
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.state == HAPTICD_STATE_INVALID);
    CHECK(hapticd_player_start(p, 0) == HAPTICD_E_PLAYER_INVALIDATED);
    OK(hapticd_player_destroy(p));
    /* The engine handle works on the new daemon; events come again. */
    OK(hapticd_player_create(eng, pat, 0, &p));
    OK(hapticd_player_start(p, 0));
    OK(hapticd_player_stop(p, 0));
    CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, hapticd_player_id(p), NULL, 5000) == 1);
    hapticd_pattern_free(pat);
    hapticd_close(c);
    daemon_stop(&d);
    daemon_cleanup(&d);
}

/* The daemon is killed while the app makes no call: hapticd_is_connected says so at once (it asks
 * the socket), with CONNECTION_LOST queued and the descriptor readable, as any call would find it. */
static void test_killed(void) {
    current = "hapticd_is_connected after the daemon was killed";
    daemon_t d;
    hapticd_client *c = start_and_connect(&d);
    if (!c) return;
    CHECK(hapticd_is_connected(c));
    CHECK(hapticd_ping(c) == HAPTICD_OK);
    CHECK(hapticd_request(c, "{\"cmd\":\"nope\"}", NULL) == HAPTICD_E_UNKNOWN_COMMAND);
    daemon_kill(&d);
    CHECK(!hapticd_is_connected(c));
    CHECK(!strcmp(hapticd_last_error_code(), "unknown_command")); /* a query leaves the last error alone */
    struct pollfd pf = {hapticd_fd(c), POLLIN, 0};
    CHECK(poll(&pf, 1, 0) == 1);
    hapticd_event e;
    CHECK(hapticd_next_event(c, &e, 0) == 1 && e.type == HAPTICD_EVENT_CONNECTION_LOST);
    CHECK(!hapticd_is_connected(c));
    CHECK(hapticd_ping(c) == HAPTICD_E_DISCONNECTED);
    CHECK(daemon_launch(&d, 1) == 0);
    OK(hapticd_reconnect(c));
    CHECK(hapticd_is_connected(c));
    OK(hapticd_ping(c));
    hapticd_close(c);
    daemon_stop(&d);
    daemon_cleanup(&d);
}

/* A pattern made with hapticd_pattern_add_* has no bound of the library's: the daemon's limits judge
 * it — max_line_bytes for the request that carries it, max_pattern_events for the pattern. */
static hapticd_pattern *pattern_of(int events) {
    hapticd_pattern *pat = NULL;
    if (hapticd_pattern_new(&pat)) return NULL;
    for (int i = 0; i < events; i++)
        if (hapticd_pattern_add_transient(pat, i * 0.001, 0.5, 0.5)) {
            hapticd_pattern_free(pat);
            return NULL;
        }
    return pat;
}

static void test_big_patterns(void) {
    current = "patterns of many events";
    hapticd_pattern *big = pattern_of(16385), *over = pattern_of(20001);
    CHECK(big && over);
    if (!big || !over) return;
    /* Over the 1 MiB line a pattern goes in pieces (pattern.upload): 8 000 events play, and the
     * default upload limit (4 MiB) is the first bound 60 000 events meet, after which the
     * connection goes on (the next one plays). */
    hapticd_pattern *song = pattern_of(8000), *huge = pattern_of(60000);
    CHECK(song && huge);
    if (!song || !huge) return;
    CHECK(strlen(hapticd_pattern_json(song)) > 1024 * 1024); /* longer than the daemon's line */
    hapticd_client *c = connect_d(&D);
    CHECK(c);
    hapticd_engine *eng = NULL;
    hapticd_player *p = NULL;
    OK(hapticd_engine_create(c, 0, NULL, &eng));
    OK(hapticd_player_create(eng, song, HAPTICD_PLAYER_ADVANCED, &p));
    hapticd_player_status st;
    CHECK(p && !hapticd_player_status_get(p, &st) && fabs(st.duration - 7.999) < 1e-9);
    CHECK(hapticd_player_create(eng, huge, HAPTICD_PLAYER_ADVANCED, &p) == HAPTICD_E_LIMIT);
    CHECK(strstr(hapticd_last_error(), "limits.max_upload_bytes"));
    CHECK(!strcmp(hapticd_last_error_code(), "limit_exceeded"));
    OK(hapticd_ping(c)); /* the connection goes on */
    OK(hapticd_player_create(eng, song, HAPTICD_PLAYER_ADVANCED, &p));
    hapticd_close(c);
    hapticd_pattern_free(song);
    hapticd_pattern_free(huge);
    /* With larger uploads allowed, the daemon plays what the library used to refuse (16 385 events),
     * and refuses, by its own limit, a pattern over its max_pattern_events. */
    daemon_t d;
    if (daemon_start(&d, "[limits]\nmax_upload_bytes = 16777216\nmax_pattern_events = 20000\n", 1)) {
        CHECK(0);
    } else if ((c = connect_d(&d))) {
        OK(hapticd_engine_create(c, 0, NULL, &eng));
        OK(hapticd_player_create(eng, big, HAPTICD_PLAYER_ADVANCED, &p));
        CHECK(hapticd_player_create(eng, over, HAPTICD_PLAYER_ADVANCED, &p) == HAPTICD_E_INVALID_PATTERN);
        CHECK(strstr(hapticd_last_error_details(), "over the limit of 20000"));
        hapticd_close(c);
    } else {
        CHECK(0);
    }
    daemon_stop(&d);
    daemon_cleanup(&d);
    hapticd_pattern_free(big);
    hapticd_pattern_free(over);
}

/* The policy through the library: hello names the app the rules match, the priority asked reaches
 * the daemon (capped by the app's), a higher-priority app ducks a lower one on the same pad, and
 * `important` feedback passes the quiet profile for the app allowed to send it. */
static int last_weak(daemon_t *d, int device) {
    int n, w = -1;
    trace_row *rows = trace_rows(d, &n);
    for (int i = 0; i < n; i++)
        if (rows[i].device == device) w = rows[i].weak;
    free(rows);
    return w;
}

typedef struct {
    double after;
    int weak_lo, weak_hi;
    int need_strong;
} duck_q;

static int pred_duck(const trace_row *r, int n, void *ctx) {
    duck_q *q = ctx;
    for (int i = n - 1; i >= 0; i--)
        if (r[i].time >= q->after) {
            if ((q->need_strong ? r[i].strong > 0 : r[i].strong == 0) && r[i].weak >= q->weak_lo && r[i].weak <= q->weak_hi) return 1;
            return 0;
        }
    return 0;
}

static void test_policy(void) {
    current = "policy";
    daemon_t d;
    const char *cfg =
        "[policy]\nduck = 0.25\n"
        "[[policy.app]]\nid = \"org.hapticd.test.high\"\npriority = 50\n"
        "[[policy.app]]\nid = \"org.hapticd.test.reader\"\nimportant_allowed = true\n";
    if (daemon_start(&d, cfg, 1)) {
        CHECK(0);
        return;
    }
    hapticd_client *low = NULL, *high = NULL, *reader = NULL;
    OK(hapticd_connect(d.sock, "org.hapticd.test.low", &low));
    OK(hapticd_connect(d.sock, NULL, &high));
    OK(hapticd_connect(d.sock, "org.hapticd.test.reader", &reader));
    if (!low || !high || !reader) goto done;

    hapticd_policy pol;
    OK(hapticd_policy_get(high, &pol));
    CHECK(!pol.app_configured && strlen(pol.app) > 0); /* named by its process until hello */
    hapticd_identity id;
    OK(hapticd_hello(high, "org.hapticd.test.high", &id));
    CHECK(!strcmp(id.app, "org.hapticd.test.high") && id.client >= 0 && id.uid == (int32_t)getuid() && id.process[0]);
    OK(hapticd_policy_get(high, &pol));
    CHECK(pol.profile == HAPTICD_PROFILE_FULL && pol.app_configured && pol.app_priority == 50 && fabs(pol.duck - 0.25) < 1e-9);
    CHECK(!strcmp(pol.app, "org.hapticd.test.high") && pol.max_strength == 1 && pol.app_heard_at == 1);
    OK(hapticd_policy_get(low, &pol));
    CHECK(!pol.app_configured && pol.app_priority == 0 && !strcmp(pol.app, "org.hapticd.test.low"));
    /* The library refuses an app id by the daemon's rule, and the daemon by its own: the same ids. */
    CHECK(hapticd_hello(low, "has space", NULL) == HAPTICD_E_INVALID_ARGUMENT);
    const char *refused[] = {"has space", "tab\\there", "del\\u007f", "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char req[300];
        snprintf(req, sizeof req, "{\"cmd\":\"hello\",\"app\":\"%s\"}", refused[i]);
        CHECK(hapticd_request(low, req, NULL) == HAPTICD_E_BAD_REQUEST && strstr(hapticd_last_error(), "without spaces"));
    }

    /* The priority asked reaches the daemon, capped by the app's. */
    hapticd_engine *he, *le;
    OK(hapticd_engine_create(high, 0, "leftHandle", &he));
    OK(hapticd_engine_create(low, 0, "rightHandle", &le));
    hapticd_pattern *pat;
    OK(hapticd_pattern_new(&pat));
    OK(hapticd_pattern_add_continuous(pat, 0, 0.5, 1, 0.5));
    hapticd_player *p;
    hapticd_player_status st;
    OK(hapticd_player_create(he, pat, 0, &p));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.priority == 50 && st.heard_at == 1);
    hapticd_player_destroy(p);
    OK(hapticd_engine_set_priority(he, 20));
    OK(hapticd_player_create(he, pat, 0, &p));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.priority == 20);
    hapticd_player_destroy(p);
    OK(hapticd_engine_set_priority(le, 30));
    OK(hapticd_player_create(le, pat, 0, &p));
    OK(hapticd_player_status_get(p, &st));
    CHECK(st.priority == 0);
    CHECK(hapticd_engine_set_priority(le, -101) == HAPTICD_E_INVALID_ARGUMENT);

    /* Ducking: low loops on the weak motor; while high plays on the strong one, low keeps a quarter. */
    OK(hapticd_player_set_loop(p, 1));
    OK(hapticd_player_start(p, 0));
    tq q = {0, last_trace_time(&d), 0, 0};
    CHECK(wait_trace(&d, 5, pred_active, &q));
    duck_q dq = {q.at, 1, 65535, 0};
    CHECK(wait_trace(&d, 5, pred_duck, &dq));
    int full = last_weak(&d, 0);
    CHECK(full > 20000);
    OK(hapticd_engine_set_priority(he, HAPTICD_PRIORITY_DEFAULT));
    int32_t hid;
    dq = (duck_q){last_trace_time(&d), (int)(full * 0.25) - 400, (int)(full * 0.25) + 400, 1};
    OK(hapticd_engine_play(he, pat, 0, 1, &hid));
    CHECK(wait_trace(&d, 5, pred_duck, &dq));
    CHECK(wait_event(high, HAPTICD_EVENT_PLAYER_FINISHED, hid, NULL, 5000) == 1);
    dq = (duck_q){last_trace_time(&d), full - 400, full + 400, 0};
    CHECK(wait_trace(&d, 5, pred_duck, &dq));
    OK(hapticd_player_destroy(p));

    /* Quiet: only important feedback of the app allowed it is heard. */
    OK(hapticd_policy_set(high, "quiet", -1, -1, &pol));
    CHECK(pol.profile == HAPTICD_PROFILE_QUIET);
    CHECK(hapticd_policy_set(high, "loud", -1, -1, NULL) == HAPTICD_E_BAD_REQUEST);
    CHECK(hapticd_policy_set(high, NULL, 2, -1, NULL) == HAPTICD_E_INVALID_ARGUMENT);
    q.after = 0;
    CHECK(wait_trace(&d, 5, pred_last_silent, &q));
    double before = last_trace_time(&d);
    hapticd_engine *re, *lde;
    OK(hapticd_engine_create(reader, 0, NULL, &re));
    OK(hapticd_engine_create(low, 0, NULL, &lde));
    int32_t fid;
    OK(hapticd_engine_feedback(lde, "impact", "heavy", -1, HAPTICD_FEEDBACK_IMPORTANT, &fid)); /* not allowed: silent */
    CHECK(wait_event(low, HAPTICD_EVENT_PLAYER_FINISHED, fid, NULL, 5000) == 1);
    OK(hapticd_engine_feedback(re, "impact", "heavy", -1, 0, &fid)); /* allowed, but not important: silent */
    CHECK(wait_event(reader, HAPTICD_EVENT_PLAYER_FINISHED, fid, NULL, 5000) == 1);
    double mid = last_trace_time(&d);
    int n, loud = 0;
    trace_row *rows = trace_rows(&d, &n);
    for (int i = 0; i < n; i++)
        if (rows[i].time > before && (rows[i].strong || rows[i].weak)) loud = 1;
    free(rows);
    CHECK(!loud);
    q.after = mid;
    OK(hapticd_engine_feedback(re, "impact", "heavy", -1, HAPTICD_FEEDBACK_IMPORTANT, &fid)); /* heard */
    CHECK(wait_trace(&d, 5, pred_active, &q));
    CHECK(wait_event(reader, HAPTICD_EVENT_PLAYER_FINISHED, fid, NULL, 5000) == 1);
    OK(hapticd_policy_set(high, "full", 0.5, 0.3, &pol));
    CHECK(pol.profile == HAPTICD_PROFILE_FULL && pol.max_strength == 0.5 && fabs(pol.duck - 0.3) < 1e-9);
    hapticd_pattern_free(pat);
done:
    hapticd_close(low);
    hapticd_close(high);
    hapticd_close(reader);
    daemon_stop(&d);
    daemon_cleanup(&d);
}

/* An engine that shuts down when idle says so, and starts again on demand. */
static void test_idle(void) {
    current = "idle shutdown";
    daemon_t d;
    if (daemon_start(&d, "[engine]\nidle_shutdown = 0.2\n", 1)) {
        CHECK(0);
        return;
    }
    hapticd_client *c = connect_d(&d);
    CHECK(c);
    if (c) {
        int32_t id;
        OK(hapticd_play_name(c, "click", &id));
        hapticd_event e;
        /* Its end first: an idle stop from before the click (the engine idles out from the start)
         * may be waiting among the events, and is skipped with them. */
        CHECK(wait_event(c, HAPTICD_EVENT_PLAYER_FINISHED, id, NULL, 5000) == 1);
        CHECK(wait_event(c, HAPTICD_EVENT_ENGINE_STOPPED, -1, &e, 5000) == 1);
        CHECK(e.reason == HAPTICD_REASON_IDLE_TIMEOUT && !strcmp(e.reason_name, "idleTimeout") && e.device == 0);
        hapticd_engine *eng;
        OK(hapticd_engine_create(c, 0, NULL, &eng));
        hapticd_engine_status s;
        OK(hapticd_engine_status_get(eng, &s));
        CHECK(!s.running && s.auto_shutdown);
        OK(hapticd_engine_start(eng));
        OK(hapticd_engine_status_get(eng, &s));
        CHECK(s.running);
        hapticd_close(c);
    }
    daemon_stop(&d);
    daemon_cleanup(&d);
}

/* Over the daemon's connection limit: its one error line is the error, with the key. */
static void test_refused(void) {
    current = "refused connection";
    daemon_t d;
    if (daemon_start(&d, "[limits]\nmax_clients_per_uid = 1\n", 1)) {
        CHECK(0);
        return;
    }
    hapticd_client *a = connect_d(&d), *b = (hapticd_client *)1;
    CHECK(a);
    CHECK(hapticd_connect(d.sock, NULL, &b) == HAPTICD_E_LIMIT && !b);
    CHECK(strstr(hapticd_last_error(), "limits.max_clients_per_uid"));
    hapticd_close(a);
    daemon_stop(&d);
    daemon_cleanup(&d);
}

/* ------------------------------------------------------------------------------------------ */
/* A stand-in daemon for what a real one does not do on demand. */

typedef struct {
    char path[400];
    int listen_fd;
    int mode;
    pthread_t thread;
} fake_t;

enum { FAKE_SILENT_AFTER_FIRST, FAKE_HUGE_LINE, FAKE_DEEP, FAKE_GARBAGE, FAKE_STALE_THEN_RIGHT, FAKE_FLOOD, FAKE_CLOCK_BACK, FAKE_NUMBERS, FAKE_FLOOD_CLOSE };

/* FAKE_NUMBERS' result: integers, one beyond any double's exactness and int64, fractions, exponents,
 * and a string that looks like the end of the object. */
#define FAKE_NUMBERS_RESULT                                                                                         \
    "{\"int\":7,\"neg\":-3,\"zero\":0,\"big\":123456789012345678901234567890,\"exact\":9007199254740993,"         \
    "\"frac\":0.1,\"real\":16.0,\"exp\":1e300,\"nested\":{\"a\":[1,2.5,{\"b\":-0}]},\"s\":\"}\\\"{,\\\\\",\"t\":true}"

static void fake_send(int fd, const char *s) {
    size_t n = strlen(s);
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void *fake_main(void *argp) {
    fake_t *f = argp;
    int fd = accept(f->listen_fd, NULL, NULL);
    if (fd < 0) return NULL;
    char buf[65536];
    size_t len = 0;
    int requests = 0;
    for (;;) {
        ssize_t n = recv(fd, buf + len, sizeof buf - len - 1, 0);
        if (n <= 0) break;
        len += (size_t)n;
        buf[len] = 0;
        char *nl;
        while ((nl = strchr(buf, '\n'))) {
            *nl = 0;
            int id = 0;
            char *p = strstr(buf, "\"id\":");
            if (p) id = atoi(p + 5);
            requests++;
            char reply[512];
            snprintf(reply, sizeof reply, "{\"id\":%d,\"ok\":true,\"result\":{}}\n", id);
            if (requests == 1) {
                fake_send(fd, reply); /* the subscribe of hapticd_connect */
            } else if (f->mode == FAKE_HUGE_LINE) {
                char *huge = malloc(2 * 1024 * 1024 + 2);
                memset(huge, 'x', 2 * 1024 * 1024);
                huge[0] = '"';
                huge[2 * 1024 * 1024] = 0;
                fake_send(fd, huge);
                free(huge);
            } else if (f->mode == FAKE_DEEP) {
                char deep[4096] = "";
                for (int i = 0; i < 1000; i++) strcat(deep, "[");
                strcat(deep, "\n");
                fake_send(fd, deep);
            } else if (f->mode == FAKE_GARBAGE) {
                fake_send(fd, "HTTP/1.1 400 Bad Request\n");
            } else if (f->mode == FAKE_STALE_THEN_RIGHT) {
                char stale[128];
                snprintf(stale, sizeof stale, "{\"id\":%d,\"ok\":false,\"error\":{\"code\":\"bad_request\",\"message\":\"stale\"}}\n", id - 1);
                fake_send(fd, stale);
                fake_send(fd, reply);
            } else if (f->mode == FAKE_CLOCK_BACK) {
                /* Each answer puts the engine's clock a second earlier than the one before: as a
                 * reply that waited in the socket a while makes the estimate fall back, only more. */
                char timed[160];
                snprintf(timed, sizeof timed, "{\"id\":%d,\"ok\":true,\"result\":{\"current_time\":%d}}\n", id, 1000 - requests);
                fake_send(fd, timed);
            } else if (f->mode == FAKE_NUMBERS) {
                char line[512];
                snprintf(line, sizeof line, "{\"ok\":true, \"result\": %s ,\"id\":%d}\n", FAKE_NUMBERS_RESULT, id);
                fake_send(fd, line);
            } else if (f->mode == FAKE_FLOOD || f->mode == FAKE_FLOOD_CLOSE) {
                for (int i = 0; i < 300; i++) {
                    char ev[128];
                    snprintf(ev, sizeof ev, "{\"event\":\"player.finished\",\"player\":%d,\"device\":0,\"reason\":\"finished\"}\n", i);
                    fake_send(fd, ev);
                }
                fake_send(fd, reply);
                if (f->mode == FAKE_FLOOD_CLOSE) {
                    close(fd); /* gone, with all that unread */
                    return NULL;
                }
                fake_send(fd, "{\"event\":\"events_dropped\",\"count\":212}\n");
            }
            /* FAKE_SILENT_AFTER_FIRST: no answer. */
            memmove(buf, nl + 1, len - (size_t)(nl + 1 - buf) + 1);
            len -= (size_t)(nl + 1 - buf);
        }
    }
    close(fd);
    return NULL;
}

static hapticd_client *fake_start(fake_t *f, int mode) {
    snprintf(f->path, sizeof f->path, "%s/fake.sock", D.dir);
    unlink(f->path);
    f->mode = mode;
    f->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, f->path);
    if (bind(f->listen_fd, (struct sockaddr *)&a, sizeof a) || listen(f->listen_fd, 1)) return NULL;
    pthread_create(&f->thread, NULL, fake_main, f);
    hapticd_client *c = NULL;
    if (hapticd_connect(f->path, NULL, &c)) fprintf(stderr, "fake connect: %s\n", hapticd_last_error());
    return c;
}

static void fake_stop(fake_t *f, hapticd_client *c) {
    hapticd_close(c);
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
    unlink(f->path);
}

static void test_clock_never_runs_back(void) {
    current = "the engine clock's estimate never runs back";
    fake_t f;
    hapticd_client *c = fake_start(&f, FAKE_CLOCK_BACK);
    CHECK(c);
    hapticd_engine *e = NULL;
    OK(hapticd_engine_create(c, 0, NULL, &e));
    double t1 = 0, t2 = 0, t3 = 0;
    OK(hapticd_engine_current_time(e, &t1)); /* asks engine.status: the estimate */
    hapticd_engine_status st;
    OK(hapticd_engine_status_get(e, &st)); /* a second earlier: the estimate falls back */
    CHECK(st.current_time < t1);
    OK(hapticd_engine_current_time(e, &t2));
    CHECK(t2 >= t1);
    OK(hapticd_engine_current_time(e, &t3));
    CHECK(t3 >= t2);
    hapticd_engine_destroy(e);
    fake_stop(&f, c);
}

/* hapticd_request gives the result as the daemon wrote it: integers stay integers (a jansson
 * program's json_integer_value reads them), no number loses a digit. */
static void test_request_text(void) {
    current = "hapticd_request's result text";
    fake_t f;
    hapticd_client *c = fake_start(&f, FAKE_NUMBERS);
    CHECK(c);
    char *json = NULL;
    OK(hapticd_request(c, "{\"cmd\":\"numbers\"}", &json));
    CHECK(json && !strcmp(json, FAKE_NUMBERS_RESULT));
    if (json && strcmp(json, FAKE_NUMBERS_RESULT)) fprintf(stderr, "  got %s\n", json);
    hapticd_free(json);
    OK(hapticd_request(c, "{\"cmd\":\"numbers\"}", NULL));
    fake_stop(&f, c);

    /* The real daemon's integers. */
    c = connect_d(&D);
    CHECK(c);
    if (!c) return;
    OK(hapticd_request(c, "{\"cmd\":\"devices\"}", &json));
    CHECK(json && strstr(json, "\"device\":0,") && strstr(json, "\"device\":1,") && !strstr(json, "\"device\":0.0"));
    hapticd_free(json);
    hapticd_close(c);
}

static void test_hostile(void) {
    current = "a silent or hostile daemon";
    fake_t f;
    hapticd_client *c = fake_start(&f, FAKE_SILENT_AFTER_FIRST);
    CHECK(c);
    OK(hapticd_set_timeout(c, 200));
    double t0 = now_s();
    CHECK(hapticd_ping(c) == HAPTICD_E_TIMEOUT);
    double took = now_s() - t0;
    CHECK(took >= 0.19 && took < 2);
    CHECK(strstr(hapticd_last_error(), "did not answer `ping` within 200 ms"));
    CHECK(hapticd_is_connected(c));
    fake_stop(&f, c);

    int modes[] = {FAKE_HUGE_LINE, FAKE_DEEP, FAKE_GARBAGE};
    const char *words[] = {"longer than", "cannot read", "cannot read"};
    for (int i = 0; i < 3; i++) {
        c = fake_start(&f, modes[i]);
        CHECK(c);
        CHECK(hapticd_ping(c) == HAPTICD_E_PROTOCOL);
        CHECK(strstr(hapticd_last_error(), words[i]));
        CHECK(!hapticd_is_connected(c));
        hapticd_event e;
        CHECK(hapticd_next_event(c, &e, 0) == 1 && e.type == HAPTICD_EVENT_CONNECTION_LOST);
        fake_stop(&f, c);
    }

    c = fake_start(&f, FAKE_STALE_THEN_RIGHT);
    OK(hapticd_ping(c));
    fake_stop(&f, c);

    /* 300 events while the app waits for a reply: the queue of 256 holds the first 255 in order,
     * then one EVENTS_DROPPED counting the other 45; the daemon's own events_dropped (212) adds to
     * that count if it comes while the queue is full, else waits after it: 257 in all either way. */
    c = fake_start(&f, FAKE_FLOOD);
    OK(hapticd_ping(c));
    hapticd_event e;
    int n = 0, in_order = 1;
    while (hapticd_next_event(c, &e, 0) == 1 && e.type == HAPTICD_EVENT_PLAYER_FINISHED) {
        if (e.player != n) in_order = 0;
        n++;
    }
    CHECK(n == 255 && in_order);
    CHECK(e.type == HAPTICD_EVENT_EVENTS_DROPPED && (e.count == 45 || e.count == 257));
    int dropped = e.type == HAPTICD_EVENT_EVENTS_DROPPED ? e.count : 0;
    while (dropped < 257 && hapticd_next_event(c, &e, 2000) == 1 && e.type == HAPTICD_EVENT_EVENTS_DROPPED) dropped += e.count;
    CHECK(dropped == 257);
    fake_stop(&f, c);

    /* The same flood, and then the daemon goes, all before the app reads any of it: the loss still
     * comes, after the 255 events and the count (it is never dropped). */
    c = fake_start(&f, FAKE_FLOOD_CLOSE);
    OK(hapticd_ping(c));
    pthread_join(f.thread, NULL); /* the stand-in has closed the connection */
    n = 0;
    while (hapticd_next_event(c, &e, 2000) == 1 && e.type == HAPTICD_EVENT_PLAYER_FINISHED) n++;
    CHECK(n == 255);
    CHECK(e.type == HAPTICD_EVENT_EVENTS_DROPPED && e.count == 45);
    CHECK(hapticd_next_event(c, &e, 2000) == 1 && e.type == HAPTICD_EVENT_CONNECTION_LOST);
    CHECK(hapticd_next_event(c, &e, 0) == HAPTICD_E_DISCONNECTED);
    hapticd_close(c);
    close(f.listen_fd);
    unlink(f.path);
}

int main(void) {
    if (daemon_start(&D, NULL, 2)) return 1;
    double t0 = now_s();
    test_connect_errors();
    test_basics();
    test_hello_policy();
    test_play_name();
    test_player();
    test_timing();
    test_patterns_and_errors();
    test_feedback_rumble_localities();
    test_events_fd();
    test_threads();
    test_restart();
    test_killed();
    test_big_patterns();
    test_policy();
    test_idle();
    test_refused();
    test_hostile();
    test_clock_never_runs_back();
    test_request_text();
    int status = daemon_stop(&D);
    current = "shutdown";
    CHECK(status == 0);
    daemon_cleanup(&D);
    printf("libhapticd: %d checks, %d failed (%.1f s)\n", checks, failures, now_s() - t0);
    return failures ? 1 : 0;
}
