/*
 * The Core Haptics shape on top of the connection: engines, patterns, players, one-call helpers,
 * and the read-only queries (devices, patterns, capabilities, policy).
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (!(cond)) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, __VA_ARGS__); \
    } while (0)

static const char *const locality_names[HAPTICD_LOCALITY_COUNT] = {
    "default", "all", "handles", "leftHandle", "rightHandle", "triggers", "leftTrigger", "rightTrigger",
};

const char *hapticd_locality_name(int locality) {
    return locality >= 0 && locality < HAPTICD_LOCALITY_COUNT ? locality_names[locality] : NULL;
}

static const char *const parameter_names[HAPTICD_PARAM_COUNT] = {"intensity", "sharpness", "attack", "decay", "release"};

const char *hapticd_parameter_name(int parameter) {
    return parameter >= 0 && parameter < HAPTICD_PARAM_COUNT ? parameter_names[parameter] : NULL;
}

static int ok_num(double x) { return isfinite(x); }

/* ------------------------------------------------------------------------------------------ */
/* Plain queries                                                                               */

int hapticd_ping(hapticd_client *c) {
    CHECK(c, "hapticd_ping: client is NULL");
    hd_lock(c);
    int r = hd_request(c, hd_cmd("ping"), NULL, NULL);
    hd_unlock(c);
    return r;
}

int hapticd_daemon_version(hapticd_client *c, char *version, size_t size, int *protocol) {
    CHECK(c, "hapticd_daemon_version: client is NULL");
    json_t *res = NULL;
    hd_lock(c);
    int r = hd_request(c, hd_cmd("version"), NULL, &res);
    hd_unlock(c);
    if (r) return r;
    if (version && size) hd_copy(version, size, hd_str(res, "version"));
    if (protocol) *protocol = (int)hd_num(res, "protocol", 0);
    json_decref(res);
    return HAPTICD_OK;
}

int hapticd_request(hapticd_client *c, const char *request, char **result) {
    CHECK(c && request, "hapticd_request: client or request is NULL");
    if (result) *result = NULL;
    json_error_t jerr;
    json_t *req = json_loads(request, 0, &jerr);
    if (!json_is_object(req) || !json_is_string(json_object_get(req, "cmd"))) {
        json_decref(req);
        return hd_error(HAPTICD_E_BAD_JSON, NULL, "hapticd_request: the request must be a JSON object with \"cmd\"%s%s",
                        jerr.text[0] ? ": " : "", jerr.text);
    }
    json_object_del(req, "id");
    char *text = NULL;
    hd_lock(c);
    int r = hd_request_text(c, req, &text);
    hd_unlock(c);
    if (r) return r;
    if (result) *result = text;
    else free(text);
    return HAPTICD_OK;
}

int hapticd_devices(hapticd_client *c, hapticd_device_info *out, int capacity, int *total) {
    CHECK(c && (out || capacity == 0) && capacity >= 0, "hapticd_devices: give a client, and an array for capacity entries");
    json_t *res = NULL;
    hd_lock(c);
    int r = hd_request(c, hd_cmd("devices"), NULL, &res);
    hd_unlock(c);
    if (r) return r;
    json_t *list = json_object_get(res, "devices");
    size_t i;
    json_t *d;
    int n = 0;
    json_array_foreach(list, i, d) {
        if (n < capacity) {
            hapticd_device_info *o = &out[n];
            memset(o, 0, sizeof *o);
            o->device = (int32_t)hd_num(d, "device", -1);
            o->connected = hd_bool(d, "connected");
            o->simulated = hd_bool(d, "simulated");
            o->effect_slots = (int32_t)hd_num(d, "effect_slots", 0);
            o->bus = (int32_t)hd_num(d, "bus", 0);
            o->gain = hd_num(d, "gain", 1);
            hd_copy(o->name, sizeof o->name, hd_str(d, "name"));
            hd_copy(o->path, sizeof o->path, hd_str(d, "path"));
            hd_copy(o->usb_id, sizeof o->usb_id, hd_str(d, "usb_id"));
            hd_copy(o->profile, sizeof o->profile, hd_str(d, "profile"));
        }
        n++;
    }
    if (total) *total = n;
    json_decref(res);
    return HAPTICD_OK;
}

int hapticd_patterns(hapticd_client *c, hapticd_pattern_info *out, int capacity, int *total) {
    CHECK(c && (out || capacity == 0) && capacity >= 0, "hapticd_patterns: give a client, and an array for capacity entries");
    json_t *res = NULL;
    hd_lock(c);
    int r = hd_request(c, hd_cmd("patterns"), NULL, &res);
    hd_unlock(c);
    if (r) return r;
    size_t i;
    json_t *p;
    int n = 0;
    json_array_foreach(json_object_get(res, "patterns"), i, p) {
        if (n < capacity) {
            out[n].duration = hd_num(p, "duration", 0);
            hd_copy(out[n].name, sizeof out[n].name, hd_str(p, "name"));
            hd_copy(out[n].description, sizeof out[n].description, hd_str(p, "description"));
        }
        n++;
    }
    if (total) *total = n;
    json_decref(res);
    return HAPTICD_OK;
}

static void fill_policy(json_t *res, hapticd_policy *out) {
    memset(out, 0, sizeof *out);
    const char *profile = hd_str(res, json_object_get(res, "mode") ? "mode" : "profile");
    hd_copy(out->profile_name, sizeof out->profile_name, profile);
    out->profile = !strcmp(profile, "full") ? HAPTICD_PROFILE_FULL
                   : !strcmp(profile, "quiet") ? HAPTICD_PROFILE_QUIET
                   : !strcmp(profile, "silent") ? HAPTICD_PROFILE_SILENT
                                                : HAPTICD_PROFILE_UNKNOWN;
    out->max_strength = hd_num(res, "max_strength", 1);
    out->duck = hd_num(res, "duck", 0);
    json_t *app = json_object_get(res, "app");
    out->app_enabled = json_is_object(app) ? hd_bool(app, "enabled") : 1;
    out->app_configured = hd_bool(app, "configured");
    out->app_gain = hd_num(app, "gain", 1);
    out->app_heard_at = hd_num(app, "heard_at", out->app_enabled ? out->app_gain : 0);
    out->app_priority = (int32_t)hd_num(app, "priority", 0);
    out->app_important_allowed = hd_bool(app, "important_allowed");
    hd_copy(out->app, sizeof out->app, hd_str(app, "id"));
}

int hapticd_policy_get(hapticd_client *c, hapticd_policy *out) {
    CHECK(c && out, "hapticd_policy_get: client or out is NULL");
    json_t *res = NULL;
    hd_lock(c);
    int r = hd_request(c, hd_cmd("policy"), NULL, &res);
    hd_unlock(c);
    if (r) return r;
    fill_policy(res, out);
    json_decref(res);
    return HAPTICD_OK;
}

int hapticd_policy_set(hapticd_client *c, const char *profile, double max_strength, double duck, hapticd_policy *out) {
    CHECK(c, "hapticd_policy_set: client is NULL");
    CHECK(ok_num(max_strength) && ok_num(duck) && max_strength <= 1 && duck <= 1,
          "hapticd_policy_set: max_strength and duck are 0…1, or negative to leave them");
    CHECK(profile || max_strength >= 0 || duck >= 0, "hapticd_policy_set: give at least one of mode, max_strength, duck");
    CHECK(!profile || strlen(profile) < 16, "hapticd_policy_set: the mode is full, quiet or silent");
    json_t *req = hd_cmd("policy.set"), *res = NULL;
    if (profile) json_object_set_new(req, "mode", json_string(profile));
    if (max_strength >= 0) json_object_set_new(req, "max_strength", json_real(max_strength));
    if (duck >= 0) json_object_set_new(req, "duck", json_real(duck));
    hd_lock(c);
    int r = hd_request(c, req, NULL, &res);
    hd_unlock(c);
    if (r) return r;
    if (out) fill_policy(res, out);
    json_decref(res);
    return HAPTICD_OK;
}

static void fill_capabilities(json_t *res, hapticd_capabilities *out) {
    memset(out, 0, sizeof *out);
    out->device = (int32_t)hd_num(res, "device", -1);
    out->supports_haptics = hd_bool(res, "supports_haptics");
    out->supports_audio = hd_bool(res, "supports_audio");
    out->connected = hd_bool(res, "connected");
    out->simulated = hd_bool(res, "simulated");
    out->effect_slots = (int32_t)hd_num(res, "effect_slots", 0);
    out->ff_gain = hd_bool(res, "ff_gain");
    out->levels = (int32_t)hd_num(res, "levels", 0);
    out->minimum_update_interval = hd_num(res, "minimum_update_interval", 0);
    out->refresh_interval = hd_num(res, "refresh_interval", 0);
    hd_copy(out->name, sizeof out->name, hd_str(res, "name"));
    hd_copy(out->profile, sizeof out->profile, hd_str(res, "profile"));
    hd_copy(out->quantization, sizeof out->quantization, hd_str(res, "quantization"));
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(res, "localities"), i, l) {
        const char *s = json_string_value(l);
        for (int k = 0; s && k < HAPTICD_LOCALITY_COUNT; k++)
            if (!strcmp(s, locality_names[k])) out->localities |= 1u << k;
    }
}

int hapticd_capabilities_get(hapticd_client *c, int device, hapticd_capabilities *out) {
    CHECK(c && out, "hapticd_capabilities_get: client or out is NULL");
    json_t *req = hd_cmd("capabilities"), *res = NULL;
    if (device >= 0) json_object_set_new(req, "device", json_integer(device));
    hd_lock(c);
    int r = hd_request(c, req, NULL, &res);
    hd_unlock(c);
    if (r) return r;
    fill_capabilities(res, out);
    json_decref(res);
    return HAPTICD_OK;
}

int hapticd_stop_all(hapticd_client *c, int *stopped) {
    CHECK(c, "hapticd_stop_all: client is NULL");
    json_t *res = NULL;
    hd_lock(c);
    int r = hd_request(c, hd_cmd("stop_all"), NULL, &res);
    hd_unlock(c);
    if (r) return r;
    if (stopped) *stopped = (int)hd_num(res, "stopped", 0);
    json_decref(res);
    return HAPTICD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Engines                                                                                     */

/* A request addressed to the engine's pad and locality. */
static json_t *engine_cmd(hapticd_engine *e, const char *cmd, int with_locality) {
    json_t *req = hd_cmd(cmd);
    if (e->device >= 0) json_object_set_new(req, "device", json_integer(e->device));
    if (with_locality) json_object_set_new(req, "locality", json_string(e->locality));
    return req;
}

static void add_priority(hapticd_engine *e, json_t *req) {
    if (e->priority != HAPTICD_PRIORITY_DEFAULT) json_object_set_new(req, "priority", json_integer(e->priority));
}

/* Notes the engine clock from a result carrying `key`, at the time the reply came. */
static void note_clock(hapticd_engine *e, json_t *res, const char *key) {
    json_t *t = json_object_get(res, key);
    if (json_is_number(t)) {
        e->clock_offset = json_number_value(t) - e->client->reply_mono;
        e->have_offset = 1;
    }
}

static void fill_engine_status(json_t *res, hapticd_engine_status *out) {
    memset(out, 0, sizeof *out);
    out->device = (int32_t)hd_num(res, "device", -1);
    out->running = hd_bool(res, "running");
    out->playing = hd_bool(res, "playing");
    out->players = (int32_t)hd_num(res, "players", 0);
    out->my_players = (int32_t)json_array_size(json_object_get(res, "my_players"));
    out->auto_shutdown = hd_bool(res, "auto_shutdown");
    out->muted = hd_bool(res, "muted");
    out->connected = hd_bool(res, "connected");
    out->current_time = hd_num(res, "current_time", 0);
    out->gain = hd_num(res, "gain", 1);
    hd_copy(out->locality, sizeof out->locality, hd_str(res, "locality"));
}

/* engine.status, locked. */
static int engine_status_locked(hapticd_engine *e, json_t **res) {
    int r = hd_request(e->client, engine_cmd(e, "engine.status", 1), NULL, res);
    if (!r) note_clock(e, *res, "current_time");
    return r;
}

int hapticd_engine_create(hapticd_client *c, int device, const char *locality, hapticd_engine **out) {
    CHECK(c && out, "hapticd_engine_create: client or out is NULL");
    *out = NULL;
    if (!locality) locality = "default";
    CHECK(*locality && strlen(locality) < 32, "hapticd_engine_create: unknown locality \"%s\" (default, all, handles, leftHandle, rightHandle)",
          locality);
    hapticd_engine *e = calloc(1, sizeof *e);
    if (!e) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    e->client = c;
    e->device = device < 0 ? -1 : device;
    e->priority = HAPTICD_PRIORITY_DEFAULT;
    hd_copy(e->locality, sizeof e->locality, locality);
    json_t *res = NULL;
    hd_lock(c);
    int r = engine_status_locked(e, &res);
    if (!r) hd_list_add(&c->engines, &e->link);
    hd_unlock(c);
    json_decref(res);
    if (r) {
        free(e);
        return r;
    }
    *out = e;
    return HAPTICD_OK;
}

void hapticd_engine_destroy(hapticd_engine *e) {
    if (!e) return;
    hd_lock(e->client);
    hd_list_remove(&e->link);
    hd_unlock(e->client);
    free(e);
}

int hapticd_engine_set_priority(hapticd_engine *e, int32_t priority) {
    CHECK(e, "hapticd_engine_set_priority: engine is NULL");
    CHECK(priority == HAPTICD_PRIORITY_DEFAULT || (priority >= -100 && priority <= 100),
          "hapticd_engine_set_priority: a priority is -100…100 (or HAPTICD_PRIORITY_DEFAULT), not %d", priority);
    hd_lock(e->client);
    e->priority = priority;
    hd_unlock(e->client);
    return HAPTICD_OK;
}

int hapticd_engine_prepare(hapticd_engine *e, double *prepared_until) {
    CHECK(e, "hapticd_engine_prepare: engine is NULL");
    json_t *res = NULL;
    hd_lock(e->client);
    int r = hd_request(e->client, engine_cmd(e, "prepare", 1), NULL, &res);
    if (!r) note_clock(e, res, "engine_time");
    hd_unlock(e->client);
    if (r) return r;
    if (prepared_until) *prepared_until = hd_num(res, "prepared_until", 0);
    if (!strcmp(hd_str(res, "engine"), "stopped")) {
        r = hd_error(HAPTICD_E_ENGINE_STOPPED, "engine_stopped",
                     "the engine of device %d (%s) is stopped and does not start on demand: an admin must start it "
                     "(hapticctl engine start), or set engine.idle_shutdown in hapticd.toml",
                     (int)hd_num(res, "device", -1), e->locality);
    }
    json_decref(res);
    return r;
}

int hapticd_engine_start(hapticd_engine *e) { return hapticd_engine_prepare(e, NULL); }

int hapticd_engine_stop(hapticd_engine *e) {
    CHECK(e, "hapticd_engine_stop: engine is NULL");
    hapticd_client *c = e->client;
    json_t *res = NULL;
    hd_lock(c);
    int r = engine_status_locked(e, &res);
    size_t i;
    json_t *id;
    json_array_foreach(json_object_get(res, "my_players"), i, id) {
        if (r) break;
        /* Cancelled, not stopped: a start scheduled for later must not play on a stopped engine. */
        json_t *req = hd_cmd("player.cancel");
        json_object_set_new(req, "player", json_integer((json_int_t)json_number_value(id)));
        r = hd_request(c, req, NULL, NULL);
        /* A one-shot that ended meanwhile is gone: not an error. */
        if (r == HAPTICD_E_NOT_FOUND) r = HAPTICD_OK;
    }
    hd_unlock(c);
    json_decref(res);
    return r;
}

int hapticd_engine_admin(hapticd_engine *e, int action) {
    CHECK(e, "hapticd_engine_admin: engine is NULL");
    static const char *const cmds[] = {"engine.start", "engine.stop", "engine.reset"};
    CHECK(action >= 0 && action <= 2, "hapticd_engine_admin: action is HAPTICD_ADMIN_START, _STOP or _RESET, not %d", action);
    json_t *res = NULL;
    hd_lock(e->client);
    int r = hd_request(e->client, engine_cmd(e, cmds[action], 1), NULL, &res);
    if (!r) note_clock(e, res, "current_time");
    hd_unlock(e->client);
    json_decref(res);
    return r;
}

int hapticd_engine_status_get(hapticd_engine *e, hapticd_engine_status *out) {
    CHECK(e && out, "hapticd_engine_status_get: engine or out is NULL");
    json_t *res = NULL;
    hd_lock(e->client);
    int r = engine_status_locked(e, &res);
    hd_unlock(e->client);
    if (r) return r;
    fill_engine_status(res, out);
    json_decref(res);
    return HAPTICD_OK;
}

int hapticd_engine_current_time(hapticd_engine *e, double *out) {
    CHECK(e && out, "hapticd_engine_current_time: engine or out is NULL");
    hd_lock(e->client);
    int r = HAPTICD_OK;
    if (!e->have_offset) {
        json_t *res = NULL;
        r = engine_status_locked(e, &res);
        json_decref(res);
    }
    if (!r) {
        /* Each reply moves the estimate by its own trip's delay; a reading never goes back past one
         * already given (a reply stamped before an earlier reading and read after it). */
        double t = hd_mono() + e->clock_offset;
        if (e->have_reading && t < e->last_reading) t = e->last_reading;
        e->last_reading = t;
        e->have_reading = 1;
        *out = t;
    }
    hd_unlock(e->client);
    return r;
}

int hapticd_engine_capabilities(hapticd_engine *e, hapticd_capabilities *out) {
    CHECK(e && out, "hapticd_engine_capabilities: engine or out is NULL");
    json_t *res = NULL;
    hd_lock(e->client);
    int r = hd_request(e->client, engine_cmd(e, "capabilities", 0), NULL, &res);
    hd_unlock(e->client);
    if (r) return r;
    fill_capabilities(res, out);
    json_decref(res);
    return HAPTICD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Patterns                                                                                    */

static int new_pattern(int kind, hapticd_pattern **out) {
    *out = calloc(1, sizeof **out);
    if (!*out) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    (*out)->kind = kind;
    return HAPTICD_OK;
}

int hapticd_pattern_from_name(const char *name, hapticd_pattern **out) {
    CHECK(out, "hapticd_pattern_from_name: out is NULL");
    *out = NULL;
    CHECK(name && *name && strlen(name) <= 255, "hapticd_pattern_from_name: a library pattern's name is 1…255 bytes");
    hapticd_pattern *p;
    int r = new_pattern(HD_PATTERN_NAME, &p);
    if (r) return r;
    p->name = strdup(name);
    if (!p->name) {
        free(p);
        return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    }
    *out = p;
    return HAPTICD_OK;
}

static int pattern_from_text(const char *what, const char *text, size_t length, hapticd_pattern **out) {
    if (length > HAPTICD_MAX_PATTERN_BYTES)
        return hd_error(HAPTICD_E_FILE, NULL, "%s is %zu bytes; a pattern is at most %d (HAPTICD_MAX_PATTERN_BYTES)", what, length,
                        HAPTICD_MAX_PATTERN_BYTES);
    char err[256];
    char *min = NULL;
    size_t mlen = 0;
    int r = hd_ahap_minify(text, length, &min, &mlen, err, sizeof err);
    if (r) return hd_error(r, NULL, "%s is not valid JSON: %s", what, err);
    hapticd_pattern *p;
    r = new_pattern(HD_PATTERN_TEXT, &p);
    if (r) {
        free(min);
        return r;
    }
    p->text = min;
    *out = p;
    return HAPTICD_OK;
}

int hapticd_pattern_from_ahap(const char *text, ptrdiff_t length, hapticd_pattern **out) {
    CHECK(out, "hapticd_pattern_from_ahap: out is NULL");
    *out = NULL;
    CHECK(text && length >= -1, "hapticd_pattern_from_ahap: give the AHAP text, and its length or -1");
    return pattern_from_text("the AHAP text", text, length < 0 ? strlen(text) : (size_t)length, out);
}

int hapticd_pattern_from_file(const char *path, hapticd_pattern **out) {
    CHECK(out, "hapticd_pattern_from_file: out is NULL");
    *out = NULL;
    CHECK(path && *path, "hapticd_pattern_from_file: path is NULL or empty");
    FILE *f = fopen(path, "rb");
    if (!f) return hd_error(HAPTICD_E_FILE, NULL, "cannot open the pattern file %s: %s", path, strerror(errno));
    /* Read at most one byte more than allowed, whatever the file claims (it may be a pipe). */
    char *buf = malloc(HAPTICD_MAX_PATTERN_BYTES + 1);
    if (!buf) {
        fclose(f);
        return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    }
    size_t n = fread(buf, 1, HAPTICD_MAX_PATTERN_BYTES + 1, f);
    int failed = ferror(f);
    fclose(f);
    int r;
    if (failed) {
        r = hd_error(HAPTICD_E_FILE, NULL, "cannot read the pattern file %s: %s", path, strerror(errno));
    } else if (n > HAPTICD_MAX_PATTERN_BYTES) {
        r = hd_error(HAPTICD_E_FILE, NULL, "the pattern file %s is larger than %d bytes (HAPTICD_MAX_PATTERN_BYTES)", path,
                     HAPTICD_MAX_PATTERN_BYTES);
    } else {
        char what[4200];
        snprintf(what, sizeof what, "the pattern file %s", path);
        r = pattern_from_text(what, buf, n, out);
    }
    free(buf);
    return r;
}

int hapticd_pattern_new(hapticd_pattern **out) {
    CHECK(out, "hapticd_pattern_new: out is NULL");
    int r = new_pattern(HD_PATTERN_BUILT, out);
    if (r) return r;
    (*out)->built = json_pack("{s:f,s:[]}", "Version", 1.0, "Pattern");
    if (!(*out)->built) {
        free(*out);
        *out = NULL;
        return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    }
    return HAPTICD_OK;
}

static int add_event(hapticd_pattern *p, const char *type, double time, double duration, double intensity, double sharpness) {
    CHECK(p && p->kind == HD_PATTERN_BUILT, "events can be added only to a pattern made with hapticd_pattern_new");
    CHECK(ok_num(time) && time >= 0 && ok_num(duration) && duration >= 0, "an event's time and duration are finite seconds ≥ 0");
    CHECK(ok_num(intensity) && intensity >= 0 && intensity <= 1 && ok_num(sharpness) && sharpness >= 0 && sharpness <= 1,
          "an event's intensity and sharpness are within 0…1");
    /* No bound on the number of events here: the daemon's limits judge the pattern when it is played
     * (limits.max_pattern_events, and limits.max_line_bytes for the request that carries it). */
    json_t *ev = json_pack("{s:{s:s,s:f,s:[{s:s,s:f},{s:s,s:f}]}}", "Event", "EventType", type, "Time", time, "EventParameters",
                           "ParameterID", "HapticIntensity", "ParameterValue", intensity, "ParameterID", "HapticSharpness",
                           "ParameterValue", sharpness);
    if (ev && duration > 0) json_object_set_new(json_object_get(ev, "Event"), "EventDuration", json_real(duration));
    if (!ev || json_array_append_new(json_object_get(p->built, "Pattern"), ev))
        return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    return HAPTICD_OK;
}

int hapticd_pattern_add_transient(hapticd_pattern *p, double time, double intensity, double sharpness) {
    return add_event(p, "HapticTransient", time, 0, intensity, sharpness);
}

int hapticd_pattern_add_continuous(hapticd_pattern *p, double time, double duration, double intensity, double sharpness) {
    CHECK(ok_num(duration) && duration > 0, "a continuous event lasts > 0 seconds");
    return add_event(p, "HapticContinuous", time, duration, intensity, sharpness);
}

const char *hapticd_pattern_json(hapticd_pattern *p) {
    if (!p || p->kind == HD_PATTERN_NAME) return NULL;
    if (p->kind == HD_PATTERN_BUILT) {
        free(p->text);
        p->text = json_dumps(p->built, JSON_COMPACT | JSON_REAL_PRECISION(17));
    }
    return p->text;
}

void hapticd_pattern_free(hapticd_pattern *p) {
    if (!p) return;
    free(p->name);
    free(p->text);
    json_decref(p->built);
    free(p);
}

/* Adds the pattern to req: "name", or the text to splice (returned; freed by the caller when the
 * pattern was built). */
static int pattern_member(const hapticd_pattern *p, json_t *req, char **splice, int *owned) {
    *splice = NULL;
    *owned = 0;
    switch (p->kind) {
    case HD_PATTERN_NAME:
        json_object_set_new(req, "name", json_string(p->name));
        return HAPTICD_OK;
    case HD_PATTERN_TEXT:
        *splice = p->text;
        return HAPTICD_OK;
    default:
        *splice = json_dumps(p->built, JSON_COMPACT | JSON_REAL_PRECISION(17));
        *owned = 1;
        return *splice ? HAPTICD_OK : hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Players                                                                                     */

static int state_of(const char *s) {
    static const char *const names[] = {"idle", "scheduled", "playing", "paused", "finished"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) return i;
    return HAPTICD_STATE_IDLE;
}

static void fill_player_status(json_t *res, hapticd_player_status *s) {
    s->player = (int32_t)hd_num(res, "player", s->player);
    s->device = (int32_t)hd_num(res, "device", s->device);
    if (json_is_string(json_object_get(res, "state"))) s->state = state_of(hd_str(res, "state"));
    if (json_object_get(res, "advanced")) s->advanced = hd_bool(res, "advanced");
    if (json_object_get(res, "loop")) s->loop = hd_bool(res, "loop");
    if (json_object_get(res, "muted")) s->muted = hd_bool(res, "muted");
    s->offset = hd_num(res, "offset", s->offset);
    s->duration = hd_num(res, "duration", s->duration);
    s->loop_end = hd_num(res, "loop_end", s->loop_end);
    s->rate = hd_num(res, "rate", s->rate);
    s->engine_time = hd_num(res, "engine_time", s->engine_time);
    s->priority = (int32_t)hd_num(res, "priority", s->priority);
    s->heard_at = hd_num(res, "heard_at", s->heard_at);
    if (json_is_string(json_object_get(res, "locality"))) hd_copy(s->locality, sizeof s->locality, hd_str(res, "locality"));
}

/* A player/one-shot request from the engine: play or player.create with the pattern. */
static int make(hapticd_engine *e, const hapticd_pattern *pattern, const char *cmd, json_t *req, json_t **res) {
    if (e->device >= 0) json_object_set_new(req, "device", json_integer(e->device));
    json_object_set_new(req, "locality", json_string(e->locality));
    add_priority(e, req);
    char *splice;
    int owned;
    int r = pattern_member(pattern, req, &splice, &owned);
    if (r) {
        json_decref(req);
        return r;
    }
    (void)cmd;
    hd_lock(e->client);
    r = hd_request(e->client, req, splice, res);
    if (!r) note_clock(e, *res, "engine_time");
    hd_unlock(e->client);
    if (owned) free(splice);
    return r;
}

int hapticd_player_create(hapticd_engine *e, const hapticd_pattern *pattern, int flags, hapticd_player **out) {
    CHECK(out, "hapticd_player_create: out is NULL");
    *out = NULL;
    CHECK(e && pattern, "hapticd_player_create: engine or pattern is NULL");
    CHECK(flags == HAPTICD_PLAYER_ADVANCED || flags == HAPTICD_PLAYER_BASIC, "hapticd_player_create: flags are HAPTICD_PLAYER_ADVANCED or _BASIC");
    hapticd_player *p = calloc(1, sizeof *p);
    if (!p) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    json_t *req = hd_cmd("player.create"), *res = NULL;
    json_object_set_new(req, "advanced", json_boolean(flags == HAPTICD_PLAYER_ADVANCED));
    int r = make(e, pattern, "player.create", req, &res);
    if (r) {
        free(p);
        return r;
    }
    p->client = e->client;
    p->status.player = -1;
    p->status.rate = 1;
    p->status.heard_at = 1;
    fill_player_status(res, &p->status);
    p->id = p->status.player;
    json_decref(res);
    hd_lock(e->client);
    p->generation = e->client->generation;
    hd_list_add(&e->client->players, &p->link);
    hd_unlock(e->client);
    *out = p;
    return HAPTICD_OK;
}

int hapticd_player_id(hapticd_player *p) { return p ? p->id : -1; }

int hapticd_player_status_get(hapticd_player *p, hapticd_player_status *out) {
    CHECK(p && out, "hapticd_player_status_get: player or out is NULL");
    hd_lock(p->client);
    *out = p->status;
    hd_unlock(p->client);
    return HAPTICD_OK;
}

/* A command on the player: req gets "player"; the reply updates the status. */
static int player_cmd(hapticd_player *p, json_t *req) {
    hapticd_client *c = p->client;
    hd_lock(c);
    if (p->generation != c->generation) {
        hd_unlock(c);
        json_decref(req);
        return hd_error(HAPTICD_E_PLAYER_INVALIDATED, NULL,
                        "player %d was lost with the connection to hapticd (the daemon restarted): make it again after hapticd_reconnect", p->id);
    }
    json_object_set_new(req, "player", json_integer(p->id));
    json_t *res = NULL;
    int r = hd_request(c, req, NULL, &res);
    if (!r) fill_player_status(res, &p->status);
    else if (r == HAPTICD_E_PLAYER_INVALIDATED) p->status.state = HAPTICD_STATE_INVALID;
    hd_unlock(c);
    json_decref(res);
    return r;
}

static int timed(hapticd_player *p, const char *cmd, double at) {
    CHECK(p, "%s: player is NULL", cmd);
    CHECK(ok_num(at), "%s: the time must be finite", cmd);
    json_t *req = hd_cmd(cmd);
    if (at > 0) json_object_set_new(req, "at", json_real(at));
    return player_cmd(p, req);
}

int hapticd_player_start(hapticd_player *p, double at) { return timed(p, "player.start", at); }
int hapticd_player_stop(hapticd_player *p, double at) { return timed(p, "player.stop", at); }
int hapticd_player_pause(hapticd_player *p, double at) { return timed(p, "player.pause", at); }
int hapticd_player_resume(hapticd_player *p, double at) { return timed(p, "player.resume", at); }

int hapticd_player_cancel(hapticd_player *p) {
    CHECK(p, "hapticd_player_cancel: player is NULL");
    return player_cmd(p, hd_cmd("player.cancel"));
}

int hapticd_player_seek(hapticd_player *p, double offset) {
    CHECK(p && ok_num(offset) && offset >= 0, "hapticd_player_seek: give a player and an offset ≥ 0 (seconds)");
    return player_cmd(p, json_pack("{ss,sf}", "cmd", "player.seek", "offset", offset));
}

int hapticd_player_set_loop(hapticd_player *p, int enabled) {
    CHECK(p, "hapticd_player_set_loop: player is NULL");
    return player_cmd(p, json_pack("{ss,sb}", "cmd", "player.set", "loop", enabled != 0));
}

int hapticd_player_set_loop_end(hapticd_player *p, double loop_end) {
    CHECK(p && ok_num(loop_end) && loop_end >= 0, "hapticd_player_set_loop_end: give a player and a time ≥ 0 (0: the pattern's end)");
    return player_cmd(p, json_pack("{ss,sf}", "cmd", "player.set", "loop_end", loop_end));
}

int hapticd_player_set_rate(hapticd_player *p, double rate) {
    CHECK(p && ok_num(rate) && rate > 0, "hapticd_player_set_rate: give a player and a rate > 0");
    return player_cmd(p, json_pack("{ss,sf}", "cmd", "player.set", "rate", rate));
}

int hapticd_player_set_muted(hapticd_player *p, int muted) {
    CHECK(p, "hapticd_player_set_muted: player is NULL");
    return player_cmd(p, json_pack("{ss,sb}", "cmd", "player.set", "muted", muted != 0));
}

int hapticd_player_send_parameters(hapticd_player *p, const hapticd_parameter_value *values, int count, double at) {
    CHECK(p && values && count >= 1 && count <= 16, "hapticd_player_send_parameters: give a player and 1…16 values");
    CHECK(ok_num(at), "hapticd_player_send_parameters: the time must be finite");
    json_t *params = json_object();
    for (int i = 0; i < count; i++) {
        const char *name = hapticd_parameter_name(values[i].parameter);
        if (!name) {
            json_decref(params);
            return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_player_send_parameters: value %d: unknown parameter %d (HAPTICD_PARAM_*)", i,
                            values[i].parameter);
        }
        if (!ok_num(values[i].value)) {
            json_decref(params);
            return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_player_send_parameters: value %d (%s): %g is not a finite number", i, name,
                            values[i].value);
        }
        json_object_set_new(params, name, json_real(values[i].value));
    }
    json_t *req = hd_cmd("player.send_parameters");
    json_object_set_new(req, "parameters", params);
    if (at > 0) json_object_set_new(req, "at", json_real(at));
    return player_cmd(p, req);
}

int hapticd_player_send_parameter(hapticd_player *p, int parameter, double value, double at) {
    hapticd_parameter_value v = {parameter, 0, value};
    return hapticd_player_send_parameters(p, &v, 1, at);
}

int hapticd_player_schedule_curve(hapticd_player *p, int parameter, const hapticd_curve_point *points, int count, double at) {
    /* At least one point, as the protocol says; how many at most is the daemon's limits.max_curve_points
     * (1024 by default, configurable): HAPTICD_E_LIMIT from the daemon, which names the key. */
    CHECK(p && points && count >= 1, "hapticd_player_schedule_curve: give a player and at least one point");
    const char *name = hapticd_parameter_name(parameter);
    CHECK(name, "hapticd_player_schedule_curve: unknown parameter %d (HAPTICD_PARAM_*)", parameter);
    CHECK(ok_num(at), "hapticd_player_schedule_curve: the time must be finite");
    json_t *list = json_array();
    for (int i = 0; i < count; i++) {
        if (!ok_num(points[i].time) || !ok_num(points[i].value)) {
            json_decref(list);
            return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_player_schedule_curve: point %d is not finite", i);
        }
        json_array_append_new(list, json_pack("[f,f]", points[i].time, points[i].value));
    }
    json_t *req = json_pack("{ss,ss}", "cmd", "player.schedule_curve", "parameter", name);
    json_object_set_new(req, "points", list);
    if (at > 0) json_object_set_new(req, "at", json_real(at));
    return player_cmd(p, req);
}

int hapticd_player_destroy(hapticd_player *p) {
    if (!p) return HAPTICD_OK;
    hapticd_client *c = p->client;
    int r = HAPTICD_OK;
    hd_lock(c);
    int live = p->generation == c->generation && c->connected;
    hd_unlock(c);
    if (live) {
        r = player_cmd(p, hd_cmd("player.destroy"));
        /* Gone already (an engine reset): the handle still goes. */
        if (r == HAPTICD_E_PLAYER_INVALIDATED || r == HAPTICD_E_NOT_FOUND) r = HAPTICD_OK;
    }
    hd_lock(c);
    hd_list_remove(&p->link);
    hd_unlock(c);
    free(p);
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* One-call helpers                                                                            */

int hapticd_engine_play(hapticd_engine *e, const hapticd_pattern *pattern, int flags, double rate, int32_t *player_id) {
    CHECK(e && pattern, "hapticd_engine_play: engine or pattern is NULL");
    CHECK((flags & ~HAPTICD_PLAY_LOOP) == 0, "hapticd_engine_play: flags are 0 or HAPTICD_PLAY_LOOP");
    CHECK(ok_num(rate) && rate > 0, "hapticd_engine_play: the rate must be > 0 (1: normal speed)");
    json_t *req = hd_cmd("play"), *res = NULL;
    if (flags & HAPTICD_PLAY_LOOP) json_object_set_new(req, "loop", json_true());
    if (rate != 1) json_object_set_new(req, "rate", json_real(rate));
    int r = make(e, pattern, "play", req, &res);
    if (r) return r;
    if (player_id) *player_id = (int32_t)hd_num(res, "player", -1);
    json_decref(res);
    return HAPTICD_OK;
}

/* An engine on the default pad and locality, on the stack (not listed with the client). */
static hapticd_engine default_engine(hapticd_client *c) {
    hapticd_engine e;
    memset(&e, 0, sizeof e);
    e.client = c;
    e.device = -1;
    e.priority = HAPTICD_PRIORITY_DEFAULT;
    hd_copy(e.locality, sizeof e.locality, "default");
    return e;
}

int hapticd_play_name(hapticd_client *c, const char *name, int32_t *player_id) {
    CHECK(c, "hapticd_play_name: client is NULL");
    hapticd_pattern *p;
    int r = hapticd_pattern_from_name(name, &p);
    if (r) return r;
    hapticd_engine e = default_engine(c);
    r = hapticd_engine_play(&e, p, 0, 1, player_id);
    hapticd_pattern_free(p);
    return r;
}

int hapticd_play_file(hapticd_client *c, const char *path, int32_t *player_id) {
    CHECK(c, "hapticd_play_file: client is NULL");
    hapticd_pattern *p;
    int r = hapticd_pattern_from_file(path, &p);
    if (r) return r;
    hapticd_engine e = default_engine(c);
    r = hapticd_engine_play(&e, p, 0, 1, player_id);
    hapticd_pattern_free(p);
    return r;
}

int hapticd_engine_feedback(hapticd_engine *e, const char *type, const char *style, double intensity, int flags, int32_t *player_id) {
    CHECK(e && type && *type, "hapticd_engine_feedback: give an engine and a type (impact, selection, notification)");
    CHECK(ok_num(intensity) && intensity <= 1, "hapticd_engine_feedback: intensity is 0…1, or negative for none");
    CHECK((flags & ~HAPTICD_FEEDBACK_IMPORTANT) == 0, "hapticd_engine_feedback: flags are 0 or HAPTICD_FEEDBACK_IMPORTANT");
    CHECK(strlen(type) < 64 && (!style || strlen(style) < 64), "hapticd_engine_feedback: type or style too long");
    json_t *req = engine_cmd(e, "feedback", 1), *res = NULL;
    json_object_set_new(req, "type", json_string(type));
    if (style) json_object_set_new(req, "style", json_string(style));
    if (intensity >= 0) json_object_set_new(req, "intensity", json_real(intensity));
    if (flags & HAPTICD_FEEDBACK_IMPORTANT) json_object_set_new(req, "important", json_true());
    add_priority(e, req);
    hd_lock(e->client);
    int r = hd_request(e->client, req, NULL, &res);
    if (!r) note_clock(e, res, "engine_time");
    hd_unlock(e->client);
    if (r) return r;
    if (player_id) *player_id = (int32_t)hd_num(res, "player", -1);
    json_decref(res);
    return HAPTICD_OK;
}

int hapticd_feedback(hapticd_client *c, const char *type, const char *style, double intensity, int flags) {
    CHECK(c, "hapticd_feedback: client is NULL");
    hapticd_engine e = default_engine(c);
    return hapticd_engine_feedback(&e, type, style, intensity, flags, NULL);
}

int hapticd_engine_rumble(hapticd_engine *e, double strong, double weak, double duration, double delay) {
    CHECK(e, "hapticd_engine_rumble: engine is NULL");
    CHECK(ok_num(strong) && ok_num(weak) && strong >= 0 && strong <= 1 && weak >= 0 && weak <= 1,
          "hapticd_engine_rumble: strong and weak are 0…1, not %g and %g", strong, weak);
    CHECK(ok_num(duration) && ok_num(delay) && delay >= 0 && (duration > 0 || (strong == 0 && weak == 0)),
          "hapticd_engine_rumble: the duration is > 0 seconds and the delay ≥ 0 (0, 0 stops a rumble)");
    json_t *req = engine_cmd(e, "rumble", 0), *res = NULL;
    json_object_set_new(req, "strong", json_real(strong));
    json_object_set_new(req, "weak", json_real(weak));
    if (duration > 0) json_object_set_new(req, "duration", json_real(duration));
    if (delay > 0) json_object_set_new(req, "delay", json_real(delay));
    add_priority(e, req);
    hd_lock(e->client);
    int r = hd_request(e->client, req, NULL, &res);
    hd_unlock(e->client);
    json_decref(res);
    return r;
}

int hapticd_rumble(hapticd_client *c, double strong, double weak, double duration) {
    CHECK(c, "hapticd_rumble: client is NULL");
    hapticd_engine e = default_engine(c);
    return hapticd_engine_rumble(&e, strong, weak, duration, 0);
}

int hapticd_prepare(hapticd_client *c) {
    CHECK(c, "hapticd_prepare: client is NULL");
    hapticd_engine e = default_engine(c);
    return hapticd_engine_prepare(&e, NULL);
}
