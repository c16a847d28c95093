// A bare evdev rumble client: the floor hapticd is measured against on the kernel's real drivers
// (docs/benchmarks.md, "Real drivers"). Per command it does what SDL's Linux joystick backend does for
// SDL_RumbleGamepad: upload the FF_RUMBLE effect with EVIOCSFF (the same id after the first time) and
// play it with an EV_FF write, value 1 — even for 0/0. Nothing else: no pacing, no mixing, no socket.
//
// It logs each command just before its ioctl, with a CLOCK_MONOTONIC time stamp (the clock the
// emulated pads stamp their reports with), one line each, flushed at once:
//   <sec.usec> CMD strong=<n> weak=<n>
//   <sec.usec> DONE
//
// --method play (the default, SDL's way) or update: update plays only a value that starts from rest and
// otherwise updates the playing effect in place (EVIOCSFF alone), and stops it for 0/0 — what hapticd
// does on a pad whose profile says `inPlace`. --length MS sets replay.length (default 65535, SDL's and
// hapticd's; 0, "until stopped", makes ff-memless send every play twice). The method table of
// 40-drivers/40-xpad compares the ways.
//
// Usage: bareclient --dev /dev/input/eventN --log FILE [--method play|update] [--length MS] MODE ...
//   clicks COUNT STRONG WEAK    COUNT times: STRONG/WEAK, 60 ms later 0/0, then 140 ms of rest
//   ramp PERIOD_MS DURATION_MS  a command every PERIOD_MS (absolute deadlines) for DURATION_MS, the
//                               strong and weak magnitudes rising from 20 % to 90 % of full scale,
//                               then 0/0
//   relay SOCKET                the smallest daemon there is: listens on the Unix socket SOCKET, takes
//                               one connection, and for each line "SEQ STRONG WEAK" logs its arrival
//                               (RECV seq=SEQ), makes the command as above and answers "ok" (or "err"
//                               when the kernel refused it); ends when the connection closes. Another process sending it lines measures what a
//                               socket hop between two processes adds to the bare path — the floor
//                               under any daemon's command → report (docs/benchmarks.md).
// Exit status 0 when every command was accepted by the kernel.
#define _GNU_SOURCE  // accept4
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static FILE *logf_;
static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fprintf(logf_, "%ld.%06ld ", (long)ts.tv_sec, ts.tv_nsec / 1000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logf_, fmt, ap);
    va_end(ap);
    fputc('\n', logf_);
    fflush(logf_);
}

static int fd = -1;
static struct ff_effect effect = {.type = FF_RUMBLE, .id = -1};
static int update_in_place = 0;  // --method update
static int playing = 0;
static unsigned length_ms = 0xFFFF;

static int ff_write(int value) {
    struct input_event ev = {.type = EV_FF, .code = (unsigned short)effect.id, .value = value};
    return write(fd, &ev, sizeof ev) == (ssize_t)sizeof ev ? 0 : -1;
}

// SDL: effect.replay.length = SDL_MAX_RUMBLE_DURATION_MS (0xFFFF); EVIOCSFF; then play, value 1.
static int command(unsigned strong, unsigned weak) {
    effect.u.rumble.strong_magnitude = (unsigned short)strong;
    effect.u.rumble.weak_magnitude = (unsigned short)weak;
    effect.replay.length = (unsigned short)length_ms;
    effect.replay.delay = 0;
    logline("CMD strong=%u weak=%u", strong, weak);
    if (update_in_place && strong == 0 && weak == 0) {
        // update: zero is a stop (the effect keeps its last magnitudes, uploaded again on the next value)
        if (playing && ff_write(0) < 0) {
            logline("ERROR stop errno=%d", errno);
            return -1;
        }
        playing = 0;
        return 0;
    }
    if (ioctl(fd, EVIOCSFF, &effect) < 0) {
        logline("ERROR upload errno=%d", errno);
        return -1;
    }
    if (update_in_place && playing) return 0;
    if (ff_write(1) < 0) {
        logline("ERROR play errno=%d", errno);
        return -1;
    }
    playing = 1;
    return 0;
}

static void sleep_until(const struct timespec *t) {
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR) {}
}

static void add_ns(struct timespec *t, long long ns) {
    long long total = t->tv_nsec + ns;
    t->tv_sec += total / 1000000000LL;
    t->tv_nsec = total % 1000000000LL;
}

static void sleep_ms(long ms) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    add_ns(&t, ms * 1000000LL);
    sleep_until(&t);
}

int main(int argc, char **argv) {
    const char *dev = NULL, *path = NULL;
    int i = 1;
    for (; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--dev")) dev = argv[i + 1];
        else if (!strcmp(argv[i], "--log")) path = argv[i + 1];
        else if (!strcmp(argv[i], "--method")) update_in_place = !strcmp(argv[i + 1], "update");
        else if (!strcmp(argv[i], "--length")) length_ms = (unsigned)atol(argv[i + 1]);
        else break;
    }
    if (!dev || !path || i >= argc) {
        fprintf(stderr, "usage: bareclient --dev /dev/input/eventN --log FILE (clicks COUNT STRONG WEAK | ramp PERIOD_MS DURATION_MS | relay SOCKET)\n");
        return 2;
    }
    logf_ = fopen(path, "a");
    if (!logf_) {
        perror(path);
        return 1;
    }
    fd = open(dev, O_RDWR);
    if (fd < 0) {
        logline("ERROR open %s errno=%d", dev, errno);
        return 1;
    }
    int failed = 0;
    if (!strcmp(argv[i], "clicks") && i + 3 < argc) {
        long count = atol(argv[i + 1]);
        unsigned strong = (unsigned)atol(argv[i + 2]), weak = (unsigned)atol(argv[i + 3]);
        for (long k = 0; k < count && !failed; k++) {
            failed |= command(strong, weak) < 0;
            sleep_ms(60);
            failed |= command(0, 0) < 0;
            sleep_ms(140);
        }
    } else if (!strcmp(argv[i], "ramp") && i + 2 < argc) {
        long period_ms = atol(argv[i + 1]), duration_ms = atol(argv[i + 2]);
        if (period_ms <= 0 || duration_ms < period_ms) {
            fprintf(stderr, "ramp: PERIOD_MS > 0 and DURATION_MS ≥ PERIOD_MS\n");
            return 2;
        }
        long steps = duration_ms / period_ms;
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        for (long k = 0; k < steps && !failed; k++) {
            unsigned m = (unsigned)(65535.0 * (0.2 + 0.7 * (double)k / (double)(steps > 1 ? steps - 1 : 1)));
            failed |= command(m, m) < 0;
            add_ns(&next, period_ms * 1000000LL);
            sleep_until(&next);
        }
        failed |= command(0, 0) < 0;
    } else if (!strcmp(argv[i], "relay") && i + 1 < argc) {
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        if (strlen(argv[i + 1]) >= sizeof addr.sun_path) {
            fprintf(stderr, "relay: socket path too long\n");
            return 2;
        }
        strcpy(addr.sun_path, argv[i + 1]);
        unlink(addr.sun_path);
        int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (server < 0 || bind(server, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(server, 1) < 0) {
            logline("ERROR listen %s errno=%d", addr.sun_path, errno);
            return 1;
        }
        logline("LISTENING %s", addr.sun_path);
        int conn = accept4(server, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0) {
            logline("ERROR accept errno=%d", errno);
            return 1;
        }
        char buf[256];
        size_t have = 0;
        for (;;) {
            ssize_t n = read(conn, buf + have, sizeof buf - 1 - have);
            if (n <= 0) break;
            have += (size_t)n;
            char *line = buf, *nl;
            while ((nl = memchr(line, '\n', have - (size_t)(line - buf))) != NULL) {
                *nl = 0;
                unsigned seq, strong, weak;
                if (sscanf(line, "%u %u %u", &seq, &strong, &weak) == 3) {
                    logline("RECV seq=%u", seq);
                    int ok = command(strong, weak) == 0;
                    failed |= !ok;
                    if (write(conn, ok ? "ok\n" : "err\n", ok ? 3 : 4) != (ok ? 3 : 4)) failed = 1;
                }
                line = nl + 1;
            }
            have -= (size_t)(line - buf);
            memmove(buf, line, have);
            if (have == sizeof buf - 1) have = 0;  // a line too long for this relay: dropped
        }
        close(conn);
        close(server);
        unlink(addr.sun_path);
    } else {
        fprintf(stderr, "bareclient: unknown mode %s\n", argv[i]);
        return 2;
    }
    sleep_ms(100);
    logline("DONE");
    close(fd);  // the kernel erases the effect and stops it
    return failed ? 1 : 0;
}
