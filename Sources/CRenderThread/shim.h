// What the render loop's own thread needs from Linux that Glibc's Swift module does not export.
#include <sys/prctl.h>
#include <sys/timerfd.h>

/// Names the calling thread (prctl's PR_SET_NAME: at most 15 bytes; prctl is variadic, which Swift
/// cannot call).
static inline int hapticd_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}
