/* A real hapticd --simulate on a temporary socket, for the C tests (as scripts/cli-test.sh and
 * Tests/HapticDaemonTests/DaemonProcess.swift start it). $HAPTICD is the daemon binary,
 * $HAPTICD_REPO the repository root (its config/patterns is the pattern library). */
#ifndef TEST_DAEMON_H
#define TEST_DAEMON_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    pid_t pid;
    char dir[256];
    char sock[320];
    char trace[320];
    char log[320];
    char config[320];
} daemon_t;

typedef struct {
    double time;
    int device, strong, weak;
} trace_row;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pause_ms(int ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int file_contains(const char *path, const char *needle) {
    char *t = read_text(path);
    int found = t && strstr(t, needle);
    free(t);
    return found;
}

/* Starts (or, with the same d, restarts) hapticd with `pads` simulated pads and extra TOML. */
static int daemon_launch(daemon_t *d, int pads) {
    const char *bin = getenv("HAPTICD");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "set $HAPTICD to the hapticd binary (swift build --product hapticd): %s\n", bin ? bin : "(unset)");
        return -1;
    }
    unlink(d->log);
    char npads[16];
    snprintf(npads, sizeof npads, "%d", pads);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(bin, bin, "--config", d->config, "--socket", d->sock, "--trace", d->trace, "--simulate", npads, (char *)NULL);
        _exit(127);
    }
    d->pid = pid;
    /* Ready when it says it listens (a probe connection would count against its limits). */
    double end = now_s() + 15;
    while (now_s() < end) {
        if (file_contains(d->log, "listening on")) return 0;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            char *log = read_text(d->log);
            fprintf(stderr, "hapticd exited: %s\n", log ? log : "");
            free(log);
            d->pid = 0;
            return -1;
        }
        pause_ms(10);
    }
    fprintf(stderr, "hapticd did not listen within 15 s\n");
    return -1;
}

static int daemon_start(daemon_t *d, const char *extra_config, int pads) {
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/hapticd-ctest-XXXXXX");
    if (!mkdtemp(d->dir)) return -1;
    chmod(d->dir, 0755);
    snprintf(d->sock, sizeof d->sock, "%s/h.sock", d->dir);
    snprintf(d->trace, sizeof d->trace, "%s/trace.csv", d->dir);
    snprintf(d->log, sizeof d->log, "%s/hapticd.log", d->dir);
    snprintf(d->config, sizeof d->config, "%s/hapticd.toml", d->dir);
    const char *repo = getenv("HAPTICD_REPO");
    FILE *f = fopen(d->config, "w");
    if (!f) return -1;
    fprintf(f, "[patterns]\ndirectories = [\"%s/config/patterns\"]\n%s", repo ? repo : ".", extra_config ? extra_config : "");
    fclose(f);
    return daemon_launch(d, pads);
}

/* SIGTERM and wait: the exit status, or -1. */
static int daemon_stop(daemon_t *d) {
    if (d->pid <= 0) return -1;
    kill(d->pid, SIGTERM);
    int status = 0;
    waitpid(d->pid, &status, 0);
    d->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* SIGKILL and wait: when this returns, the kernel has closed the daemon's sockets. */
static void daemon_kill(daemon_t *d) {
    if (d->pid <= 0) return;
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    d->pid = 0;
}

static void daemon_cleanup(daemon_t *d) {
    if (d->pid > 0) {
        kill(d->pid, SIGKILL);
        waitpid(d->pid, NULL, 0);
    }
    unlink(d->sock);
    unlink(d->trace);
    unlink(d->log);
    unlink(d->config);
    rmdir(d->dir);
}

/* The trace's rows; *n their number. free() the result. */
static trace_row *trace_rows(daemon_t *d, int *n) {
    char *t = read_text(d->trace);
    *n = 0;
    if (!t) return NULL;
    int cap = 1024;
    trace_row *rows = malloc(sizeof *rows * cap);
    char *save = NULL;
    for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        trace_row r;
        if (sscanf(line, "%lf,%d,%d,%d", &r.time, &r.device, &r.strong, &r.weak) != 4) continue;
        if (*n == cap) rows = realloc(rows, sizeof *rows * (cap *= 2));
        rows[(*n)++] = r;
    }
    free(t);
    return rows;
}

typedef int (*trace_pred)(const trace_row *rows, int n, void *ctx);

/* Waits (bounded) until pred holds over the trace. */
static int wait_trace(daemon_t *d, double timeout, trace_pred pred, void *ctx) {
    double end = now_s() + timeout;
    for (;;) {
        int n;
        trace_row *rows = trace_rows(d, &n);
        int ok = pred(rows, n, ctx);
        free(rows);
        if (ok) return 1;
        if (now_s() >= end) return 0;
        pause_ms(5);
    }
}

#endif
