/*
 * The connection: connecting, requests and replies, events, errors.
 *
 * The socket is non-blocking. A request is written and its reply awaited under the client's lock,
 * with a deadline; lines that arrive meanwhile are events (queued) or stale replies to requests that
 * timed out (dropped). Everything read is bounded: a line longer than HD_MAX_LINE or nested deeper
 * than HD_MAX_REPLY_DEPTH drops the connection, at most HD_QUEUE events wait.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

static __thread char tl_message[1024];
static __thread char tl_code[40];
static __thread char tl_details[4096];

int hd_error(int status, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl_message, sizeof tl_message, fmt, ap);
    va_end(ap);
    hd_copy(tl_code, sizeof tl_code, code ? code : "");
    tl_details[0] = 0;
    return status;
}

void hd_error_details(const char *details) { hd_copy(tl_details, sizeof tl_details, details); }

void hd_clear_error(void) { tl_message[0] = tl_code[0] = tl_details[0] = 0; }

const char *hapticd_last_error(void) { return tl_message; }
const char *hapticd_last_error_code(void) { return tl_code; }
const char *hapticd_last_error_details(void) { return tl_details; }

int hapticd_version(void) { return HAPTICD_VERSION; }

void hapticd_free(void *p) { free(p); }

static const struct {
    int status;
    const char *name;
    const char *code; /* the daemon's */
} statuses[] = {
    {HAPTICD_OK, "HAPTICD_OK", NULL},
    {HAPTICD_E_INVALID_ARGUMENT, "HAPTICD_E_INVALID_ARGUMENT", NULL},
    {HAPTICD_E_NOT_RUNNING, "HAPTICD_E_NOT_RUNNING", NULL},
    {HAPTICD_E_PERMISSION, "HAPTICD_E_PERMISSION", "permission_denied"},
    {HAPTICD_E_DISCONNECTED, "HAPTICD_E_DISCONNECTED", NULL},
    {HAPTICD_E_TIMEOUT, "HAPTICD_E_TIMEOUT", NULL},
    {HAPTICD_E_IO, "HAPTICD_E_IO", NULL},
    {HAPTICD_E_PROTOCOL, "HAPTICD_E_PROTOCOL", NULL},
    {HAPTICD_E_NO_MEMORY, "HAPTICD_E_NO_MEMORY", NULL},
    {HAPTICD_E_FILE, "HAPTICD_E_FILE", NULL},
    {HAPTICD_E_BAD_JSON, "HAPTICD_E_BAD_JSON", "bad_json"},
    {HAPTICD_E_BAD_REQUEST, "HAPTICD_E_BAD_REQUEST", "bad_request"},
    {HAPTICD_E_UNKNOWN_COMMAND, "HAPTICD_E_UNKNOWN_COMMAND", "unknown_command"},
    {HAPTICD_E_INVALID_PATTERN, "HAPTICD_E_INVALID_PATTERN", "invalid_pattern"},
    {HAPTICD_E_NOT_FOUND, "HAPTICD_E_NOT_FOUND", "not_found"},
    {HAPTICD_E_LIMIT, "HAPTICD_E_LIMIT", "limit_exceeded"},
    {HAPTICD_E_DEVICE, "HAPTICD_E_DEVICE", "device_error"},
    {HAPTICD_E_ENGINE_STOPPED, "HAPTICD_E_ENGINE_STOPPED", "engine_stopped"},
    {HAPTICD_E_PLAYER_INVALIDATED, "HAPTICD_E_PLAYER_INVALIDATED", "player_invalidated"},
    {HAPTICD_E_UNSUPPORTED, "HAPTICD_E_UNSUPPORTED", "unsupported"},
    {HAPTICD_E_DAEMON, "HAPTICD_E_DAEMON", NULL},
};

const char *hapticd_status_name(int status) {
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        if (statuses[i].status == status) return statuses[i].name;
    return "HAPTICD_E_UNKNOWN_STATUS";
}

static int status_for_code(const char *code) {
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        if (statuses[i].code && strcmp(statuses[i].code, code) == 0) return statuses[i].status;
    return HAPTICD_E_DAEMON;
}

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */

double hd_mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Copies at most size-1 bytes, never cutting a UTF-8 sequence in two. */
void hd_copy(char *dst, size_t size, const char *src) {
    if (!size) return;
    if (!src) src = "";
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--;
    }
    memcpy(dst, src, n);
    dst[n] = 0;
}

double hd_num(json_t *o, const char *key, double fallback) {
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

int hd_bool(json_t *o, const char *key) { return json_is_true(json_object_get(o, key)); }

const char *hd_str(json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

json_t *hd_cmd(const char *cmd) { return json_pack("{ss}", "cmd", cmd); }

void hd_lock(hapticd_client *c) { pthread_mutex_lock(&c->lock); }
void hd_unlock(hapticd_client *c) { pthread_mutex_unlock(&c->lock); }

void hd_list_add(hd_link *head, hd_link *l) {
    l->next = head->next;
    l->prev = head;
    head->next->prev = l;
    head->next = l;
}

void hd_list_remove(hd_link *l) {
    l->prev->next = l->next;
    l->next->prev = l->prev;
    l->next = l->prev = l;
}

/* ------------------------------------------------------------------------------------------ */
/* Events                                                                                      */

static void sync_signal(hapticd_client *c) {
    if (c->qcount > 0 && !c->signalled) {
        uint64_t one = 1;
        if (write(c->evfd, &one, sizeof one) == sizeof one) c->signalled = 1;
    } else if (c->qcount == 0 && c->signalled) {
        uint64_t v;
        if (read(c->evfd, &v, sizeof v) == sizeof v || errno == EAGAIN) c->signalled = 0;
    }
}

/* Queues an event. At most HD_QUEUE wait: HD_QUEUE - 1 events, then one EVENTS_DROPPED in the last
 * place that counts every event that came while they waited (the daemon's own events_dropped, for
 * what it could not send, adds to it then; below that, it waits in order like any event). A
 * CONNECTION_LOST always finds a place after them (the ring's one more): the application must learn
 * of the loss, and nothing comes after it until a reconnect. */
static void enqueue(hapticd_client *c, const hapticd_event *e) {
    hapticd_event *last = c->qcount ? &c->queue[(c->qhead + c->qcount - 1) % HD_RING] : NULL;
    hapticd_event *next = &c->queue[(c->qhead + c->qcount) % HD_RING];
    if (e->type == HAPTICD_EVENT_CONNECTION_LOST) {
        /* One waiting already says so (lost again after a reconnect, nothing read between). */
        if ((!last || last->type != HAPTICD_EVENT_CONNECTION_LOST) && c->qcount < HD_RING) {
            *next = *e;
            c->qcount++;
        }
    } else if (c->qcount < HD_QUEUE - 1) {
        *next = *e;
        c->qcount++;
    } else if (last->type == HAPTICD_EVENT_EVENTS_DROPPED) {
        last->count += e->type == HAPTICD_EVENT_EVENTS_DROPPED ? e->count : 1;
    } else if (c->qcount < HD_RING) {
        /* HD_QUEUE - 1 events wait (or a CONNECTION_LOST ends them): the next place is the count. */
        memset(next, 0, sizeof *next);
        next->type = HAPTICD_EVENT_EVENTS_DROPPED;
        next->device = next->player = -1;
        next->count = e->type == HAPTICD_EVENT_EVENTS_DROPPED ? e->count : 1;
        c->qcount++;
    }
    /* Else the ring is full and ends with a CONNECTION_LOST after a count: only when the connection
     * was lost, made again and lost again with nothing read — what came between is not counted. */
    sync_signal(c);
}

static int dequeue(hapticd_client *c, hapticd_event *out) {
    if (!c->qcount) return 0;
    *out = c->queue[c->qhead];
    c->qhead = (c->qhead + 1) % HD_RING;
    c->qcount--;
    sync_signal(c);
    return 1;
}

static const char *const reason_names[] = {
    [HAPTICD_REASON_FINISHED] = "finished",
    [HAPTICD_REASON_STOPPED] = "stopped",
    [HAPTICD_REASON_CANCELLED] = "cancelled",
    [HAPTICD_REASON_IDLE_TIMEOUT] = "idleTimeout",
    [HAPTICD_REASON_GAME_CONTROLLER_DISCONNECT] = "gameControllerDisconnect",
    [HAPTICD_REASON_ENGINE_DESTROYED] = "engineDestroyed",
    [HAPTICD_REASON_SYSTEM_ERROR] = "systemError",
    [HAPTICD_REASON_NOTIFY_WHEN_FINISHED] = "notifyWhenFinished",
};

static const char *const event_names[] = {
    [HAPTICD_EVENT_PLAYER_FINISHED] = "player.finished",
    [HAPTICD_EVENT_ENGINE_STOPPED] = "engine.stopped",
    [HAPTICD_EVENT_ENGINE_RESET] = "engine.reset",
    [HAPTICD_EVENT_DEVICE_ADDED] = "device.added",
    [HAPTICD_EVENT_DEVICE_REMOVED] = "device.removed",
    [HAPTICD_EVENT_DEVICE_OUTPUT] = "device.output",
    [HAPTICD_EVENT_EVENTS_DROPPED] = "events_dropped",
};

static void mark_player(hapticd_client *c, int32_t id, int state) {
    for (hd_link *l = c->players.next; l != &c->players; l = l->next) {
        hapticd_player *p = (hapticd_player *)l;
        if (p->id == id) p->status.state = state;
    }
}

static void handle_event(hapticd_client *c, json_t *o, const char *name) {
    hapticd_event e;
    memset(&e, 0, sizeof e);
    e.device = e.player = -1;
    for (int t = 1; t < (int)(sizeof event_names / sizeof *event_names); t++)
        if (event_names[t] && strcmp(event_names[t], name) == 0) e.type = t;
    if (!e.type) return; /* an event this library does not know */
    e.device = (int32_t)hd_num(o, "device", -1);
    e.player = (int32_t)hd_num(o, "player", -1);
    e.count = (int32_t)hd_num(o, "count", 0);
    e.strong = (int32_t)hd_num(o, "strong", 0);
    e.weak = (int32_t)hd_num(o, "weak", 0);
    e.time = hd_num(o, "time", 0);
    e.connected = hd_bool(o, "connected");
    hd_copy(e.locality, sizeof e.locality, hd_str(o, "locality"));
    hd_copy(e.name, sizeof e.name, hd_str(o, "name"));
    const char *reason = hd_str(o, "reason");
    hd_copy(e.reason_name, sizeof e.reason_name, reason);
    if (*reason) {
        e.reason = HAPTICD_REASON_OTHER;
        for (int r = 1; r < (int)(sizeof reason_names / sizeof *reason_names); r++)
            if (strcmp(reason_names[r], reason) == 0) e.reason = r;
    }
    if (e.type == HAPTICD_EVENT_PLAYER_FINISHED) mark_player(c, e.player, HAPTICD_STATE_FINISHED);
    if (e.type == HAPTICD_EVENT_ENGINE_RESET) {
        /* The engine's players are invalidated; mark ours on that pad and locality. */
        for (hd_link *l = c->players.next; l != &c->players; l = l->next) {
            hapticd_player *p = (hapticd_player *)l;
            if (p->status.device == e.device && strcmp(p->status.locality, e.locality) == 0) p->status.state = HAPTICD_STATE_INVALID;
        }
    }
    enqueue(c, &e);
}

/* ------------------------------------------------------------------------------------------ */
/* Reading                                                                                     */

/* The connection is gone: tell the application, invalidate its players. */
static void lose(hapticd_client *c) {
    if (!c->connected) return;
    c->connected = 0;
    c->generation++;
    epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->sock, NULL);
    close(c->sock);
    c->sock = -1;
    c->rlen = 0;
    for (hd_link *l = c->players.next; l != &c->players; l = l->next) ((hapticd_player *)l)->status.state = HAPTICD_STATE_INVALID;
    hapticd_event e;
    memset(&e, 0, sizeof e);
    e.type = HAPTICD_EVENT_CONNECTION_LOST;
    e.device = e.player = -1;
    enqueue(c, &e);
}

static int lost_error(hapticd_client *c) {
    return hd_error(HAPTICD_E_DISCONNECTED, NULL,
                    "the connection to hapticd at %s was lost (the daemon stopped or restarted): call hapticd_reconnect(), "
                    "then make your players again",
                    c->path);
}

static int nesting_ok(const char *s, size_t n) {
    int depth = 0, in_string = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (in_string) {
            if (ch == '\\') i++;
            else if (ch == '"') in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else if (ch == '{' || ch == '[') {
            if (++depth > HD_MAX_REPLY_DEPTH) return 0;
        } else if (ch == '}' || ch == ']') {
            depth--;
        }
    }
    return 1;
}

/* One line from the daemon. Returns 0, or an error that dropped the connection. */
static int handle_line(hapticd_client *c, const char *line, size_t n) {
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' ')) n--;
    if (!n) return 0;
    json_error_t jerr;
    json_t *o = nesting_ok(line, n) ? json_loadb(line, n, JSON_DECODE_INT_AS_REAL | JSON_DECODE_ANY, &jerr) : NULL;
    if (!json_is_object(o)) {
        json_decref(o);
        lose(c);
        return hd_error(HAPTICD_E_PROTOCOL, NULL, "hapticd at %s sent a line this library cannot read (%.60s…); the connection was dropped",
                        c->path, line);
    }
    const char *event = json_string_value(json_object_get(o, "event"));
    if (event) {
        handle_event(c, o, event);
        json_decref(o);
        return 0;
    }
    json_t *id = json_object_get(o, "id");
    /* Ours: the id we wait for, or null (the daemon could not read our line, or refused the
     * connection). Anything else answers a request that timed out: dropped. */
    if (c->awaiting && !c->reply && (json_is_null(id) || (json_is_number(id) && json_number_value(id) == c->await_id))) {
        c->reply = o;
        c->reply_mono = hd_mono();
        if (c->want_text && (c->reply_text = malloc(n ? n : 1))) {
            memcpy(c->reply_text, line, n);
            c->reply_text_len = n;
        }
        return 0;
    }
    json_decref(o);
    return 0;
}

/* Reads what is there (never blocks). Returns 0 (read something or nothing), or an error when the
 * connection was lost or broken. */
static int read_some(hapticd_client *c) {
    for (int round = 0; round < 64 && c->connected; round++) {
        if (c->rcap - c->rlen < 4096) {
            if (c->rcap >= HD_MAX_LINE + 65536) {
                lose(c);
                return hd_error(HAPTICD_E_PROTOCOL, NULL, "hapticd at %s sent a line longer than %d bytes; the connection was dropped", c->path,
                                HD_MAX_LINE);
            }
            size_t cap = c->rcap ? c->rcap * 2 : 65536;
            if (cap > HD_MAX_LINE + 65536) cap = HD_MAX_LINE + 65536;
            char *nb = realloc(c->rbuf, cap);
            if (!nb) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory reading from hapticd");
            c->rbuf = nb;
            c->rcap = cap;
        }
        ssize_t n = recv(c->sock, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            lose(c);
            return lost_error(c);
        }
        if (n == 0) {
            lose(c);
            return lost_error(c);
        }
        size_t scanned = c->rlen;
        c->rlen += (size_t)n;
        size_t start = 0;
        for (char *nl; (nl = memchr(c->rbuf + scanned, '\n', c->rlen - scanned));) {
            size_t end = (size_t)(nl - c->rbuf);
            int r = handle_line(c, c->rbuf + start, end - start);
            if (r) return r;
            start = scanned = end + 1;
        }
        memmove(c->rbuf, c->rbuf + start, c->rlen - start);
        c->rlen -= start;
        if (c->rlen > HD_MAX_LINE) {
            lose(c);
            return hd_error(HAPTICD_E_PROTOCOL, NULL, "hapticd at %s sent a line longer than %d bytes; the connection was dropped", c->path,
                            HD_MAX_LINE);
        }
    }
    return 0;
}

static int remaining_ms(double deadline) {
    double left = deadline - hd_mono();
    if (left <= 0) return 0;
    return (int)(left * 1000) + 1;
}

/* Waits for the socket (POLLIN, or POLLOUT too) until the deadline; 0 on timeout, 1 when ready. */
static int wait_sock(hapticd_client *c, short events, double deadline) {
    for (;;) {
        struct pollfd p = {c->sock, events, 0};
        int r = poll(&p, 1, remaining_ms(deadline));
        if (r < 0 && errno == EINTR) continue;
        return r > 0;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Requests                                                                                    */

static int send_all(hapticd_client *c, const char *data, size_t len, double deadline, const char *cmd) {
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(c->sock, data + sent, len - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* The daemon reads no further requests while our unread output is over its bound:
             * read meanwhile, so that neither side waits for the other. */
            if (!wait_sock(c, POLLOUT | POLLIN, deadline))
                return hd_error(HAPTICD_E_TIMEOUT, NULL, "hapticd at %s did not take the `%s` request within %d ms (hapticd_set_timeout)",
                                c->path, cmd, c->timeout_ms);
            int r = read_some(c);
            if (r) return r;
            continue;
        }
        /* EPIPE or ECONNRESET: the daemon closed the connection, perhaps after saying why (a
         * refusal over its limits); that reason is the better error. */
        int r = read_some(c);
        if (c->reply) return 0;
        lose(c);
        return r ? r : lost_error(c);
    }
    return 0;
}

static int daemon_error(hapticd_client *c, json_t *reply, const char *cmd) {
    json_t *err = json_object_get(reply, "error");
    const char *code = hd_str(err, "code");
    const char *message = hd_str(err, "message");
    int status = status_for_code(code);
    const char *hint = "";
    if (status == HAPTICD_E_PERMISSION && strstr(message, "allow"))
        hint = " (ask for your user or group to be added to clients.allow_uids or clients.allow_gids in hapticd.toml)";
    else if (status == HAPTICD_E_UNKNOWN_COMMAND)
        hint = " (this hapticd is older than the library: update it)";
    hd_error(status, code, "%s%s [%s, from `%s` at %s]", message, hint, code, cmd, c->path);
    json_t *details = json_object_get(err, "details");
    if (json_is_array(details) && json_array_size(details)) {
        char buf[4096];
        size_t o = 0;
        size_t i;
        json_t *d;
        buf[0] = 0;
        json_array_foreach(details, i, d) {
            const char *s = json_string_value(d);
            if (!s) continue;
            int w = snprintf(buf + o, sizeof buf - o, "%s%s", o ? "\n" : "", s);
            if (w < 0 || (size_t)w >= sizeof buf - o) break;
            o += (size_t)w;
        }
        hd_error_details(buf);
    }
    return status;
}

/* JSON's whitespace from s[i]; where it ends. */
static size_t skip_space(const char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* Past the JSON value at s[i]: a string, an object or array with all it holds, a number or a
 * literal. The text is a line jansson has read, so it is well-formed; the scan stays within n. */
static size_t skip_value(const char *s, size_t n, size_t i) {
    int depth = 0;
    do {
        if (i >= n) return n;
        char ch = s[i];
        if (ch == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            i++;
        } else if (ch == '{' || ch == '[') {
            depth++;
            i++;
        } else if (ch == '}' || ch == ']') {
            depth--;
            i++;
        } else if (depth == 0) {
            while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') i++;
        } else {
            i++;
        }
    } while (depth > 0);
    return i < n ? i : n;
}

/* Where the value of the top-level member `key` of the JSON object s[0, n) is written: 1 and its
 * span, or 0. The last one wins, as in jansson. */
static int member_text(const char *s, size_t n, const char *key, size_t *at, size_t *len) {
    size_t klen = strlen(key);
    int found = 0;
    size_t i = skip_space(s, n, 0);
    if (i >= n || s[i] != '{') return 0;
    i = skip_space(s, n, i + 1);
    while (i < n && s[i] == '"') {
        size_t kstart = i + 1;
        i = skip_value(s, n, i);
        size_t kend = i - 1; /* its closing quote */
        i = skip_space(s, n, i);
        if (i >= n || s[i] != ':') return 0;
        i = skip_space(s, n, i + 1);
        size_t vstart = i;
        i = skip_value(s, n, i);
        if (kend >= kstart && kend - kstart == klen && memcmp(s + kstart, key, klen) == 0) {
            *at = vstart;
            *len = i - vstart;
            found = 1;
        }
        i = skip_space(s, n, i);
        if (i >= n || s[i] != ',') break;
        i = skip_space(s, n, i + 1);
    }
    return found;
}

static int request(hapticd_client *c, json_t *req, const char *pattern_text, json_t **result, char **text);

/* The end of the piece of `text` that starts at `at`: at most `size` bytes, not inside a UTF-8
 * character (a character longer than a piece is taken whole). */
static size_t piece_end(const char *text, size_t length, size_t at, size_t size) {
    size_t end = at + size;
    if (end >= length) return length;
    while (end > at && ((unsigned char)text[end] & 0xC0) == 0x80) end--;
    if (end == at) {
        end = at + 1;
        while (end < length && ((unsigned char)text[end] & 0xC0) == 0x80) end++;
    }
    return end;
}

/* A pattern's text too long to go inline (over HD_INLINE_PATTERN_BYTES) goes ahead of its request
 * in pieces (`pattern.upload`), and the request names the upload: a pattern is then bounded by the
 * daemon's limits.max_upload_bytes, not its line limit. The request is sent even after a piece
 * failed, so that the daemon drops the upload; the piece's error is the one returned. */
static int request_with_upload(hapticd_client *c, json_t *req, const char *pattern_text, json_t **result) {
    size_t length = strlen(pattern_text);
    json_int_t upload = (json_int_t)(c->next_id + 1); /* the first piece's id: unique on the connection */
    int failed = HAPTICD_OK;
    char message[1024], code[64], details[4096];
    for (size_t at = 0; at < length && c->connected;) {
        size_t end = piece_end(pattern_text, length, at, HD_UPLOAD_PIECE_BYTES);
        json_t *piece = json_object();
        if (piece) {
            json_object_set_new(piece, "cmd", json_string("pattern.upload"));
            json_object_set_new(piece, "upload", json_integer(upload));
            json_object_set_new(piece, "text", json_stringn(pattern_text + at, end - at));
        }
        failed = request(c, piece, NULL, NULL, NULL);
        if (failed) {
            hd_copy(message, sizeof message, hapticd_last_error());
            hd_copy(code, sizeof code, hapticd_last_error_code());
            hd_copy(details, sizeof details, hapticd_last_error_details());
            break;
        }
        at = end;
    }
    if (failed && !c->connected) {
        json_decref(req);
        return failed;
    }
    json_object_set_new(req, "upload", json_integer(upload));
    int r = request(c, req, NULL, failed ? NULL : result, NULL);
    if (!failed) return r;
    hd_error(failed, code[0] ? code : NULL, "%s", message);
    hd_error_details(details);
    return failed;
}

static int request(hapticd_client *c, json_t *req, const char *pattern_text, json_t **result, char **text) {
    if (!req) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory building a request");
    char cmd[48];
    hd_copy(cmd, sizeof cmd, hd_str(req, "cmd"));
    if (!c->connected) {
        json_decref(req);
        return lost_error(c);
    }
    if (pattern_text && strlen(pattern_text) > HD_INLINE_PATTERN_BYTES) return request_with_upload(c, req, pattern_text, result);
    double id = ++c->next_id;
    json_object_set_new(req, "id", json_integer((json_int_t)id));
    char *body = json_dumps(req, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(req);
    if (!body) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory building a request");
    size_t blen = strlen(body);
    size_t plen = pattern_text ? strlen(pattern_text) : 0;
    char *line = malloc(blen + plen + 16);
    if (!line) {
        free(body);
        return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory building a request");
    }
    size_t len;
    if (pattern_text) {
        /* body ends with '}': put the pattern's text, already checked and minified, before it. */
        memcpy(line, body, blen - 1);
        len = blen - 1;
        memcpy(line + len, ",\"pattern\":", 11);
        len += 11;
        memcpy(line + len, pattern_text, plen);
        len += plen;
        line[len++] = '}';
    } else {
        memcpy(line, body, blen);
        len = blen;
    }
    line[len++] = '\n';
    free(body);

    c->awaiting = 1;
    c->await_id = id;
    c->reply = NULL;
    c->want_text = text != NULL;
    free(c->reply_text);
    c->reply_text = NULL;
    double deadline = hd_mono() + c->timeout_ms / 1000.0;
    int r = send_all(c, line, len, deadline, cmd);
    free(line);
    while (!r && !c->reply) {
        if (!wait_sock(c, POLLIN, deadline)) {
            r = hd_error(HAPTICD_E_TIMEOUT, NULL, "hapticd at %s did not answer `%s` within %d ms (hapticd_set_timeout)", c->path, cmd,
                         c->timeout_ms);
            break;
        }
        r = read_some(c);
    }
    c->awaiting = 0;
    c->want_text = 0;
    json_t *reply = c->reply;
    c->reply = NULL;
    char *raw = c->reply_text;
    size_t raw_len = c->reply_text_len;
    c->reply_text = NULL;
    if (!reply) {
        free(raw);
        return r ? r : lost_error(c);
    }
    if (!json_is_true(json_object_get(reply, "ok"))) {
        r = daemon_error(c, reply, cmd);
        json_decref(reply);
        free(raw);
        return r;
    }
    json_t *res = json_object_get(reply, "result");
    if (!json_is_object(res)) {
        json_decref(reply);
        free(raw);
        return hd_error(HAPTICD_E_PROTOCOL, NULL, "hapticd at %s answered `%s` without a result object", c->path, cmd);
    }
    if (result) *result = json_incref(res);
    if (text) {
        /* The daemon's own text of the result: the parsed copy has every number as a double (the
         * library reads them so, JSON_DECODE_INT_AS_REAL, so that no integer is too large to read),
         * and writing that back would turn 0 into 0.0 and round integers beyond 2^53. */
        size_t at, span;
        if (raw && member_text(raw, raw_len, "result", &at, &span)) {
            if ((*text = malloc(span + 1))) {
                memcpy(*text, raw + at, span);
                (*text)[span] = 0;
            }
        } else {
            /* Not found as written (a key spelt with escapes): the parsed copy, written back. */
            *text = json_dumps(res, JSON_COMPACT | JSON_REAL_PRECISION(17));
        }
        if (!*text) {
            json_decref(reply);
            free(raw);
            return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
        }
    }
    json_decref(reply);
    free(raw);
    hd_clear_error();
    return HAPTICD_OK;
}

int hd_request(hapticd_client *c, json_t *req, const char *pattern_text, json_t **result) {
    return request(c, req, pattern_text, result, NULL);
}

int hd_request_text(hapticd_client *c, json_t *req, char **text) { return request(c, req, NULL, NULL, text); }

/* ------------------------------------------------------------------------------------------ */
/* Connecting                                                                                  */

int hapticd_default_socket_path(char *buf, size_t size) {
    if (!buf || !size) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_default_socket_path: no buffer");
    const char *system = "/run/hapticd/hapticd.sock";
    const char *env = getenv("HAPTICD_SOCKET");
    char user[4096];
    const char *path = system;
    if (env && *env) {
        path = env;
    } else if (getuid() != 0) {
        const char *dir = getenv("XDG_RUNTIME_DIR");
        if (dir && *dir) {
            snprintf(user, sizeof user, "%s/hapticd.sock", dir);
            if (access(user, F_OK) == 0 || access(system, F_OK) != 0) path = user;
        }
    }
    if (strlen(path) >= size) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "the socket path %s does not fit in %zu bytes", path, size);
    memcpy(buf, path, strlen(path) + 1);
    return HAPTICD_OK;
}

static int connect_error(const char *path, int e) {
    if (e == ENOENT || e == ECONNREFUSED)
        return hd_error(HAPTICD_E_NOT_RUNNING, NULL,
                        "hapticd is not running at %s (%s). Start it (systemctl start hapticd.socket, or hapticd --simulate for a "
                        "simulated pad), or give its socket to hapticd_connect or in $HAPTICD_SOCKET",
                        path, e == ENOENT ? "no such socket" : "connection refused");
    if (e == EACCES || e == EPERM) {
        struct stat st;
        char group[64] = "";
        if (stat(path, &st) == 0) {
            struct group g, *found = NULL;
            char gbuf[4096];
            if (getgrgid_r(st.st_gid, &g, gbuf, sizeof gbuf, &found) == 0 && found) hd_copy(group, sizeof group, found->gr_name);
            else snprintf(group, sizeof group, "%u", (unsigned)st.st_gid);
            return hd_error(HAPTICD_E_PERMISSION, NULL,
                            "permission denied on %s: the socket is for group '%s' (mode %04o). Join it (sudo usermod -aG %s $USER, "
                            "then log in again), or run as that group",
                            path, group, (unsigned)(st.st_mode & 07777), group);
        }
        return hd_error(HAPTICD_E_PERMISSION, NULL, "permission denied on %s: a directory on the way is closed to you (%s)", path, strerror(e));
    }
    return hd_error(HAPTICD_E_IO, NULL, "cannot connect to hapticd at %s: %s", path, strerror(e));
}

/* Opens the socket into c (locked). */
static int open_socket(hapticd_client *c) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return hd_error(HAPTICD_E_IO, NULL, "socket: %s", strerror(errno));
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, c->path, strlen(c->path));
    /* Non-blocking before connecting: a Unix socket's connect blocks without a bound while the
     * daemon's queue of connections not yet accepted is full (a daemon that hangs); without blocking
     * it fails with EAGAIN at once, and is tried again until the client's timeout. */
    int flags = fcntl(s, F_GETFL);
    if (flags < 0 || fcntl(s, F_SETFL, flags | O_NONBLOCK) < 0) {
        close(s);
        return hd_error(HAPTICD_E_IO, NULL, "fcntl: %s", strerror(errno));
    }
    double deadline = hd_mono() + c->timeout_ms / 1000.0;
    int r;
    for (;;) {
        r = connect(s, (struct sockaddr *)&addr, sizeof addr);
        if (r == 0 || errno == EINTR) {
            if (r == 0) break;
            continue;
        }
        if (errno != EAGAIN) break;
        if (hd_mono() >= deadline) {
            close(s);
            return hd_error(HAPTICD_E_TIMEOUT, NULL, "hapticd at %s does not accept connections (its queue is full) within %d ms (hapticd_set_timeout)",
                            c->path, c->timeout_ms);
        }
        struct timespec pause = {0, 5000000}; /* a full queue gives no event to wait on */
        nanosleep(&pause, NULL);
    }
    if (r < 0) {
        int e = errno;
        close(s);
        return connect_error(c->path, e);
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = s};
    if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, s, &ev) < 0) {
        close(s);
        return hd_error(HAPTICD_E_IO, NULL, "epoll_ctl: %s", strerror(errno));
    }
    c->sock = s;
    c->connected = 1;
    c->rlen = 0;
    return HAPTICD_OK;
}

static int do_hello(hapticd_client *c, const char *app_id, hapticd_identity *out) {
    json_t *res = NULL;
    int r = hd_request(c, json_pack("{ssss}", "cmd", "hello", "app", app_id), NULL, &res);
    if (r) return r;
    if (out) {
        out->client = (int32_t)hd_num(res, "client", -1);
        out->uid = (int32_t)hd_num(res, "uid", -1);
        hd_copy(out->app, sizeof out->app, hd_str(res, "app"));
        hd_copy(out->process, sizeof out->process, hd_str(res, "process"));
    }
    json_decref(res);
    return HAPTICD_OK;
}

static int subscribe_locked(hapticd_client *c, unsigned mask) {
    json_t *names = json_array();
    for (int t = 1; t < (int)(sizeof event_names / sizeof *event_names); t++)
        if (event_names[t] && t != HAPTICD_EVENT_EVENTS_DROPPED && (mask & HAPTICD_EVENT_MASK(t))) json_array_append_new(names, json_string(event_names[t]));
    json_t *req = hd_cmd("subscribe");
    json_object_set_new(req, "events", names);
    int r = hd_request(c, req, NULL, NULL);
    if (!r) c->mask = mask;
    return r;
}

/* hello (tolerating a daemon that does not know it) and subscribe, on a fresh connection. */
static int greet(hapticd_client *c) {
    if (c->app) {
        int r = do_hello(c, c->app, NULL);
        if (r && r != HAPTICD_E_UNKNOWN_COMMAND) return r;
    }
    return subscribe_locked(c, c->mask);
}

/* The daemon's rule for an app id (hello's "app": HelloRequest in Sources/HapticProtocol/Requests.swift):
 * 1…128 bytes of UTF-8, every character above U+0020 and not U+007F — no spaces, no control
 * characters. Checked here so that a refused id is HAPTICD_E_INVALID_ARGUMENT before anything is
 * sent, as an empty one always was. In valid UTF-8 every byte of a character past U+007F is ≥ 0x80,
 * so looking at the bytes is looking at the characters; jansson, which would refuse to send invalid
 * UTF-8, says whether it is valid. */
static int app_id_ok(const char *app) {
    size_t n = strlen(app);
    if (n < 1 || n > 128) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)app[i] <= 0x20 || (unsigned char)app[i] == 0x7F) return 0;
    json_t *s = json_string(app);
    json_decref(s);
    return s != NULL;
}

#define APP_ID_RULE "1…128 bytes of UTF-8 without spaces or control characters, such as \"org.example.Game\""

int hapticd_connect(const char *socket_path, const char *app_id, hapticd_client **out) {
    if (!out) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_connect: out is NULL");
    *out = NULL;
    char path[4096];
    if (socket_path && *socket_path) {
        hd_copy(path, sizeof path, socket_path);
    } else {
        int r = hapticd_default_socket_path(path, sizeof path);
        if (r) return r;
    }
    if (strlen(path) >= sizeof ((struct sockaddr_un *)0)->sun_path)
        return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "the socket path %s is longer than a Unix socket allows (107 bytes)", path);
    if (app_id && !app_id_ok(app_id)) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_connect: an app id is " APP_ID_RULE);
    hapticd_client *c = calloc(1, sizeof *c);
    if (!c) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    pthread_mutex_init(&c->lock, NULL);
    c->sock = -1;
    c->epfd = epoll_create1(EPOLL_CLOEXEC);
    c->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    c->timeout_ms = HD_DEFAULT_TIMEOUT_MS;
    c->mask = HAPTICD_EVENTS_DEFAULT;
    c->engines.next = c->engines.prev = &c->engines;
    c->players.next = c->players.prev = &c->players;
    hd_copy(c->path, sizeof c->path, path);
    c->app = app_id ? strdup(app_id) : NULL;
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = c->evfd};
    int r;
    if (c->epfd < 0 || c->evfd < 0 || epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->evfd, &ev) < 0) r = hd_error(HAPTICD_E_IO, NULL, "epoll/eventfd: %s", strerror(errno));
    else if (app_id && !c->app) r = hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    else r = open_socket(c);
    if (!r) r = greet(c);
    if (r) {
        char saved[3][4096];
        hd_copy(saved[0], sizeof saved[0], tl_message);
        hd_copy(saved[1], sizeof saved[1], tl_code);
        hd_copy(saved[2], sizeof saved[2], tl_details);
        c->qcount = 0;
        hapticd_close(c);
        hd_copy(tl_message, sizeof tl_message, saved[0]);
        hd_copy(tl_code, sizeof tl_code, saved[1]);
        hd_copy(tl_details, sizeof tl_details, saved[2]);
        return r;
    }
    *out = c;
    return HAPTICD_OK;
}

void hapticd_close(hapticd_client *c) {
    if (!c) return;
    while (c->players.next != &c->players) {
        hd_link *l = c->players.next;
        hd_list_remove(l);
        free(l);
    }
    while (c->engines.next != &c->engines) {
        hd_link *l = c->engines.next;
        hd_list_remove(l);
        free(l);
    }
    if (c->sock >= 0) close(c->sock);
    if (c->epfd >= 0) close(c->epfd);
    if (c->evfd >= 0) close(c->evfd);
    json_decref(c->reply);
    free(c->reply_text);
    free(c->rbuf);
    free(c->app);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

int hapticd_reconnect(hapticd_client *c) {
    if (!c) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_reconnect: client is NULL");
    hd_lock(c);
    int r = HAPTICD_OK;
    if (!c->connected) {
        r = open_socket(c);
        if (!r) {
            r = greet(c);
            if (r && c->connected) {
                /* Connected but refused (over a limit, not allowed): as good as not connected. The
                 * application learns it from r; it needs no CONNECTION_LOST for it. */
                epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->sock, NULL);
                close(c->sock);
                c->sock = -1;
                c->connected = 0;
            }
        }
    }
    hd_unlock(c);
    if (!r) hd_clear_error();
    return r;
}

int hapticd_is_connected(hapticd_client *c) {
    if (!c) return 0;
    hd_lock(c);
    if (c->connected) {
        /* No thread reads the socket between calls: ask the kernel, without waiting, whether the
         * daemon closed its end (it exited, was killed, or dropped us). If so, read what it sent
         * before — its events are queued — up to the end, which is the loss: CONNECTION_LOST is
         * queued and the descriptor becomes readable, as when any other call finds it. Under the
         * lock, as every read is. A daemon that hangs with its socket open is still connected. */
        struct pollfd p = {c->sock, POLLIN | POLLRDHUP, 0};
        int r;
        while ((r = poll(&p, 1, 0)) < 0 && errno == EINTR) {}
        if (r > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
            /* A query does not set the thread's error message: keep it. */
            char saved[3][4096];
            hd_copy(saved[0], sizeof saved[0], tl_message);
            hd_copy(saved[1], sizeof saved[1], tl_code);
            hd_copy(saved[2], sizeof saved[2], tl_details);
            /* Bounded: what a closed socket holds is finite, and each round reads some of it or ends. */
            for (int round = 0; round < 4096 && c->connected; round++)
                if (read_some(c)) break;
            hd_copy(tl_message, sizeof tl_message, saved[0]);
            hd_copy(tl_code, sizeof tl_code, saved[1]);
            hd_copy(tl_details, sizeof tl_details, saved[2]);
        }
    }
    int connected = c->connected;
    hd_unlock(c);
    return connected;
}

const char *hapticd_socket_path(hapticd_client *c) { return c ? c->path : NULL; }

int hapticd_set_timeout(hapticd_client *c, int timeout_ms) {
    if (!c || timeout_ms < 1 || timeout_ms > 600000)
        return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_set_timeout: the timeout must be 1…600000 ms, not %d", timeout_ms);
    hd_lock(c);
    c->timeout_ms = timeout_ms;
    hd_unlock(c);
    return HAPTICD_OK;
}

int hapticd_hello(hapticd_client *c, const char *app_id, hapticd_identity *out) {
    if (!c || !app_id || !app_id_ok(app_id))
        return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_hello: give a client and an app id: " APP_ID_RULE);
    char *copy = strdup(app_id);
    if (!copy) return hd_error(HAPTICD_E_NO_MEMORY, NULL, "out of memory");
    hd_lock(c);
    int r = do_hello(c, app_id, out);
    if (!r) {
        free(c->app);
        c->app = copy;
        copy = NULL;
    }
    hd_unlock(c);
    free(copy);
    return r;
}

int hapticd_subscribe(hapticd_client *c, unsigned mask) {
    if (!c) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_subscribe: client is NULL");
    hd_lock(c);
    int r = subscribe_locked(c, mask);
    hd_unlock(c);
    return r;
}

int hapticd_set_event_callback(hapticd_client *c, hapticd_event_fn fn, void *user) {
    if (!c) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_set_event_callback: client is NULL");
    hd_lock(c);
    c->fn = fn;
    c->user = user;
    hd_unlock(c);
    return HAPTICD_OK;
}

int hapticd_fd(hapticd_client *c) { return c ? c->epfd : -1; }

/* Waits, without the lock, until the client's descriptor is readable or the deadline passes. */
static void wait_fd(hapticd_client *c, int timeout_ms) {
    struct pollfd p = {c->epfd, POLLIN, 0};
    while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR) {}
}

/* Reads, waiting up to timeout_ms for an event to be queued. Called unlocked; returns locked. */
static int fill(hapticd_client *c, int timeout_ms) {
    double deadline = timeout_ms < 0 ? 0 : hd_mono() + timeout_ms / 1000.0;
    hd_lock(c);
    for (;;) {
        int r = c->connected ? read_some(c) : 0;
        if (c->qcount) return 0;
        if (r) return r;
        if (!c->connected) return lost_error(c);
        if (timeout_ms == 0) return 0;
        int wait = timeout_ms < 0 ? -1 : remaining_ms(deadline);
        if (timeout_ms > 0 && wait == 0) return 0;
        hd_unlock(c);
        wait_fd(c, wait);
        hd_lock(c);
    }
}

int hapticd_dispatch(hapticd_client *c, int timeout_ms) {
    if (!c) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_dispatch: client is NULL");
    int r = fill(c, timeout_ms);
    int waiting = c->qcount;
    if (r && !waiting) {
        hd_unlock(c);
        return r;
    }
    int handed = 0;
    /* Only the events waiting now: a callback that causes more does not keep this call going. */
    while (handed < waiting && c->fn) {
        hapticd_event e;
        if (!dequeue(c, &e)) break;
        hapticd_event_fn fn = c->fn;
        void *user = c->user;
        hd_unlock(c);
        fn(&e, user);
        handed++;
        hd_lock(c);
    }
    hd_unlock(c);
    hd_clear_error();
    return handed;
}

int hapticd_next_event(hapticd_client *c, hapticd_event *out, int timeout_ms) {
    if (!c || !out) return hd_error(HAPTICD_E_INVALID_ARGUMENT, NULL, "hapticd_next_event: client or out is NULL");
    int r = fill(c, timeout_ms);
    int got = dequeue(c, out);
    hd_unlock(c);
    if (got) {
        hd_clear_error();
        return 1;
    }
    return r;
}
