#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Makes standard output line-buffered even into a pipe or a file, so that what watch, play --wait
/// and rumble print reaches a reader (`hapticctl watch | grep`, a log, a test) as it happens rather
/// than when the run ends. Call once, before anything is printed.
func lineBufferStandardOutput() {
    setvbuf(stdout, nil, _IOLBF, 0)
}
