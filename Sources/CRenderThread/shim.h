// What the render loop's own thread needs from Linux that Glibc's Swift module does not export.
#include <sys/prctl.h>
#include <sys/timerfd.h>

/// Names the calling thread (prctl's PR_SET_NAME: at most 15 bytes; prctl is variadic, which Swift
/// cannot call).
static inline int hapticd_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}

#include <errno.h>
#include <sched.h>
// The kernel's (uapi linux/sched.h); glibc's <sched.h> shows it only with _GNU_SOURCE, which would
// make this module's view of glibc differ from the Glibc module's.
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/// Puts the calling thread under SCHED_FIFO at `priority`, reset to normal scheduling in a forked
/// child: 0, or -errno when the kernel refused (RLIMIT_RTPRIO without CAP_SYS_NICE,
/// `RestrictRealtime=yes`, a seccomp filter). (A macro Swift cannot see; the rest is the caller's.)
static inline int hapticd_set_realtime(int priority) {
    struct sched_param param = { .sched_priority = priority };
    return sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) == 0 ? 0 : -errno;
}
