// Where the stopped, reset and finished callbacks run.
import Glibc
import Synchronization

/// Calls the game's asynchronous callbacks (stopped, reset, players finished, advanced player
/// finished) on a thread of the library's own, one callback at a time, in the order their causes
/// happened. The thread lives while callbacks are due and ends when none is left: a new one starts
/// for the next.
///
/// Not on the engines' handler queues: libdispatch's worker threads block every signal, and the
/// runtimes a Unity game runs on (Mono, IL2CPP's Boehm GC) stop the world by signalling each thread
/// that has entered managed code. A callback from a worker thread attaches that thread to the
/// runtime, and the next garbage collection waits forever for it to acknowledge a signal it never
/// receives (seen under Mono: the game hangs). The callback thread takes the signal mask of the
/// game's thread that first handed the library a callback (what the runtime expects, and no signal
/// the game keeps from its threads). It ends when idle because Mono waits, at exit, for every thread
/// that ever called into managed code and still lives.
final class CallbackThread: Sendable {
    static let shared = CallbackThread()

    private struct State: @unchecked Sendable {
        // @unchecked Sendable: sigset_t is plain data.
        var mask: sigset_t?
        var running = false
        var items: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// Takes the calling thread's signal mask for the callback thread (the first call's): call on
    /// the game's thread before callbacks are due.
    func start() {
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        state.withLock { if $0.mask == nil { $0.mask = mask } }
    }

    /// Runs `callback` on the callback thread. (Dropped before `start`, or if no thread can be made:
    /// no thread that the runtime cannot stop may call the game.)
    func post(_ callback: @escaping @Sendable () -> Void) {
        let spawn = state.withLock { s -> Bool in
            guard s.mask != nil else { return false }
            s.items.append(callback)
            if s.running { return false }
            s.running = true
            return true
        }
        guard spawn else { return }
        var thread = pthread_t()
        let made = pthread_create(&thread, nil, { _ in
            CallbackThread.shared.drain()
            return nil
        }, nil)
        if made == 0 {
            pthread_detach(thread)
        } else {
            state.withLock { s in
                s.running = false
                s.items.removeAll()
            }
        }
    }

    private func drain() {
        if var mask = state.withLock({ $0.mask }) { pthread_sigmask(SIG_SETMASK, &mask, nil) }
        while let next = state.withLock({ s -> (@Sendable () -> Void)? in
            if s.items.isEmpty {
                s.running = false
                return nil
            }
            return s.items.removeFirst()
        }) {
            next()
        }
    }
}
