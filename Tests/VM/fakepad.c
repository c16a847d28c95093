// A virtual FF_RUMBLE gamepad on uinput: the test fixture for the real-kernel tests.
//
// It answers every effect upload and erase the kernel forwards, and logs each upload, erase, play,
// stop and gain with a CLOCK_MONOTONIC time stamp, one line each, flushed at once:
//   <sec.usec> CREATED name=<name> rumble=<0|1>
//   <sec.usec> UPLOAD id=<id> type=<type> strong=<n> weak=<n> old=<id|none>
//   <sec.usec> PLAY id=<id> value=<count>      (value 0 is a stop)
//   <sec.usec> GAIN value=<n>
//   <sec.usec> ERASE id=<id>
//   <sec.usec> DESTROYED
// SIGUSR1 destroys the device (an unplug), SIGUSR2 creates it again, SIGTERM ends the program.
// Usage: fakepad --name NAME --log FILE [--no-rumble]
//   --no-rumble: effect slots and FF_CONSTANT, but no FF_RUMBLE bit (discovery must skip it).
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t want_destroy, want_create, want_exit;
static void on_signal(int sig) {
    if (sig == SIGUSR1) want_destroy = 1;
    if (sig == SIGUSR2) want_create = 1;
    if (sig == SIGTERM || sig == SIGINT) want_exit = 1;
}

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

static int create_pad(const char *name, int rumble) {
    int fd = open("/dev/uinput", O_RDWR | O_NONBLOCK);
    if (fd < 0) { perror("open /dev/uinput"); return -1; }
    ioctl(fd, UI_SET_EVBIT, EV_KEY);
    ioctl(fd, UI_SET_KEYBIT, BTN_SOUTH);
    ioctl(fd, UI_SET_EVBIT, EV_FF);
    if (rumble) {
        ioctl(fd, UI_SET_FFBIT, FF_RUMBLE);
        ioctl(fd, UI_SET_FFBIT, FF_GAIN);
    } else {
        ioctl(fd, UI_SET_FFBIT, FF_CONSTANT);
    }
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_USB;
    setup.id.vendor = 0x045e;   // an Xbox One pad's ids, so profile matching is exercised
    setup.id.product = rumble ? 0x02ea : 0x0001;
    setup.id.version = 0x0301;
    snprintf(setup.name, UINPUT_MAX_NAME_SIZE, "%s", name);
    setup.ff_effects_max = 16;
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
        perror("uinput setup");
        close(fd);
        return -1;
    }
    logline("CREATED name=%s rumble=%d", name, rumble);
    return fd;
}

static void destroy_pad(int fd) {
    ioctl(fd, UI_DEV_DESTROY);
    close(fd);
    logline("DESTROYED");
}

static void handle(int fd, const struct input_event *ev) {
    if (ev->type == EV_UINPUT && ev->code == UI_FF_UPLOAD) {
        struct uinput_ff_upload up;
        memset(&up, 0, sizeof up);
        up.request_id = ev->value;
        if (ioctl(fd, UI_BEGIN_FF_UPLOAD, &up) < 0) { perror("UI_BEGIN_FF_UPLOAD"); return; }
        char old[16] = "none";
        if (up.old.type) snprintf(old, sizeof old, "%d", up.old.id);
        if (up.effect.type == FF_RUMBLE)
            logline("UPLOAD id=%d type=rumble strong=%u weak=%u old=%s length=%u", up.effect.id,
                    up.effect.u.rumble.strong_magnitude, up.effect.u.rumble.weak_magnitude, old,
                    up.effect.replay.length);
        else
            logline("UPLOAD id=%d type=%u old=%s", up.effect.id, up.effect.type, old);
        up.retval = 0;
        ioctl(fd, UI_END_FF_UPLOAD, &up);
    } else if (ev->type == EV_UINPUT && ev->code == UI_FF_ERASE) {
        struct uinput_ff_erase er;
        memset(&er, 0, sizeof er);
        er.request_id = ev->value;
        if (ioctl(fd, UI_BEGIN_FF_ERASE, &er) < 0) { perror("UI_BEGIN_FF_ERASE"); return; }
        logline("ERASE id=%u", er.effect_id);
        er.retval = 0;
        ioctl(fd, UI_END_FF_ERASE, &er);
    } else if (ev->type == EV_FF) {
        if (ev->code == FF_GAIN) logline("GAIN value=%d", ev->value);
        else logline("PLAY id=%u value=%d", ev->code, ev->value);
    }
}

int main(int argc, char **argv) {
    const char *name = "fakepad", *logpath = NULL;
    int rumble = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc) name = argv[++i];
        else if (!strcmp(argv[i], "--log") && i + 1 < argc) logpath = argv[++i];
        else if (!strcmp(argv[i], "--no-rumble")) rumble = 0;
        else { fprintf(stderr, "usage: fakepad --name NAME --log FILE [--no-rumble]\n"); return 2; }
    }
    logf_ = logpath ? fopen(logpath, "a") : stdout;
    if (!logf_) { perror(logpath); return 1; }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    int fd = create_pad(name, rumble);
    if (fd < 0) return 1;
    while (!want_exit) {
        if (want_destroy) { want_destroy = 0; if (fd >= 0) { destroy_pad(fd); fd = -1; } }
        if (want_create) { want_create = 0; if (fd < 0) fd = create_pad(name, rumble); }
        if (fd < 0) { usleep(1000); continue; }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, 20);
        if (r <= 0) continue;
        struct input_event ev;
        while (read(fd, &ev, sizeof ev) == sizeof ev) handle(fd, &ev);
    }
    if (fd >= 0) destroy_pad(fd);
    return 0;
}
