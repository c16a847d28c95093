/* libhapticd internals: shared by the source files, never installed. */
#ifndef HAPTICD_INTERNAL_H
#define HAPTICD_INTERNAL_H

#include "hapticd.h"

#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

/* The longest line accepted from the daemon (its own limits.max_line_bytes default): a longer one
 * is a protocol error and the connection is dropped, so a hostile peer cannot grow the buffer. */
#define HD_MAX_LINE (1024 * 1024)
/* Deeper nesting in a reply is refused before it reaches the JSON parser (replies nest 4 deep). */
#define HD_MAX_REPLY_DEPTH 32
/* Events waiting for the application: HD_QUEUE - 1 events and, past them, one EVENTS_DROPPED; the
 * ring has one place more, so that a CONNECTION_LOST is never dropped. */
#define HD_QUEUE 256
#define HD_RING (HD_QUEUE + 1)
#define HD_DEFAULT_TIMEOUT_MS 5000

typedef struct hd_link {
    struct hd_link *prev, *next;
} hd_link;

struct hapticd_engine {
    hd_link link;
    hapticd_client *client;
    int device;
    char locality[32];
    int32_t priority;
    int have_offset;
    double clock_offset; /* engine clock − this process's CLOCK_MONOTONIC */
    int have_reading;
    double last_reading; /* the latest hapticd_engine_current_time() answer: never run back from */
};

struct hapticd_player {
    hd_link link;
    hapticd_client *client;
    int32_t id;
    uint32_t generation;
    hapticd_player_status status;
};

enum { HD_PATTERN_NAME, HD_PATTERN_TEXT, HD_PATTERN_BUILT };

struct hapticd_pattern {
    int kind;
    char *name;     /* HD_PATTERN_NAME */
    char *text;     /* HD_PATTERN_TEXT: minified JSON; HD_PATTERN_BUILT: the last dump */
    json_t *built;  /* HD_PATTERN_BUILT */
};

struct hapticd_client {
    pthread_mutex_t lock;
    int sock;       /* -1 while disconnected */
    int epfd;       /* hapticd_fd: the socket and evfd */
    int evfd;       /* readable while events wait */
    int signalled;
    int connected;
    char path[108];
    char *app;
    unsigned mask;
    int timeout_ms;
    double next_id;
    uint32_t generation; /* bumped when the connection is lost: players of older ones are gone */

    char *rbuf;
    size_t rlen, rcap;

    /* The request in flight. */
    double await_id;
    int awaiting;
    json_t *reply;
    double reply_mono;
    int want_text;      /* keep the reply's line as the daemon wrote it (hapticd_request) … */
    char *reply_text;   /* … here (reply_text_len bytes, not NUL-terminated) */
    size_t reply_text_len;

    hapticd_event queue[HD_RING];
    int qhead, qcount;

    hapticd_event_fn fn;
    void *user;

    hd_link engines, players;
};

/* Errors: set the calling thread's message and return status. */
int hd_error(int status, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A pattern's text over this many bytes goes ahead of its request in pieces of HD_UPLOAD_PIECE_BYTES
 * (`pattern.upload`), as the Swift client sends it. */
#define HD_INLINE_PATTERN_BYTES (256 * 1024)
#define HD_UPLOAD_PIECE_BYTES (64 * 1024)
void hd_error_details(const char *details);
void hd_clear_error(void);

/* A request on a locked, connected client: req is consumed; pattern_text (may be NULL) is
 * spliced in as the "pattern" member. On success *result holds a reference to the result object
 * (json_decref it), or is left alone when result is NULL. */
int hd_request(hapticd_client *c, json_t *req, const char *pattern_text, json_t **result);
/* The same, but *text (hapticd_free it) is the result object's JSON text exactly as the daemon wrote
 * it: its integers stay integers, its numbers keep every digit. */
int hd_request_text(hapticd_client *c, json_t *req, char **text);
json_t *hd_cmd(const char *cmd);
double hd_mono(void);

double hd_num(json_t *o, const char *key, double fallback);
int hd_bool(json_t *o, const char *key);
const char *hd_str(json_t *o, const char *key);
void hd_copy(char *dst, size_t size, const char *src);

void hd_lock(hapticd_client *c);
void hd_unlock(hapticd_client *c);
void hd_list_add(hd_link *head, hd_link *l);
void hd_list_remove(hd_link *l);

int hd_ahap_minify(const char *text, size_t length, char **out, size_t *out_length, char *err, size_t err_size);

#endif
