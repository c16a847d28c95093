// Stall monitor for the test VM: a real-time thread that should wake every few milliseconds, and logs
// every time it woke much later. The VM runs under software emulation on a shared host, so at times it
// is not scheduled at all for tens or hundreds of milliseconds; everything in it — hapticd, the
// drivers, the emulated pads — stops together. Timing checks use this log to tell such a stall from a
// slow driver or a backlog (docs/testing.md).
//
//   <t> STARTED period_ms=<n> threshold_ms=<n>
//   <t> STALL from=<sec> gap_ms=<ms>        (<t> is when it woke; from is when it should have)
//
// Usage: stallmon --log FILE [--period-ms 5] [--threshold-ms 20]; SIGTERM ends it.
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static double seconds(const struct timespec *ts) { return (double)ts->tv_sec + ts->tv_nsec / 1e9; }

int main(int argc, char **argv) {
    const char *path = NULL;
    long period_ms = 5, threshold_ms = 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc) path = argv[++i];
        else if (!strcmp(argv[i], "--period-ms") && i + 1 < argc) period_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "--threshold-ms") && i + 1 < argc) threshold_ms = atol(argv[++i]);
    }
    if (!path || period_ms <= 0 || threshold_ms <= period_ms) {
        fprintf(stderr, "usage: stallmon --log FILE [--period-ms N] [--threshold-ms M > N]\n");
        return 2;
    }
    FILE *log = fopen(path, "a");
    if (!log) {
        perror(path);
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    // Above everything else in the VM, so that a late wake-up means the VM itself stood still.
    struct sched_param sp = {.sched_priority = 20};
    int rt = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    fprintf(log, "%.6f STARTED period_ms=%ld threshold_ms=%ld realtime=%d\n", seconds(&next), period_ms, threshold_ms, rt);
    fflush(log);
    while (!stop) {
        next.tv_nsec += period_ms * 1000000L;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) continue;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double late = seconds(&now) - seconds(&next);
        if (late * 1000 > threshold_ms - period_ms) {
            fprintf(log, "%.6f STALL from=%.6f gap_ms=%.1f\n", seconds(&now), seconds(&next) - period_ms / 1000.0,
                    (late + period_ms / 1000.0) * 1000);
            fflush(log);
            next = now;  // start the grid again from here
        }
    }
    fclose(log);
    return 0;
}
