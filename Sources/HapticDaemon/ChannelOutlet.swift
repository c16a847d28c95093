import HapticCore
import HapticProtocol
import NIOConcurrencyHelpers
import NIOCore

/// The daemon's output to one connection: replies, and events that may be dropped.
///
/// The bound is NIO's write-buffer watermark (high `limits.output_buffer_bytes`, low half of it): an
/// event for a connection that is over it — not writable — is dropped and counted, and once the
/// client has caught up (under the low mark) it gets `{"event":"events_dropped","count":N}`: a
/// subscriber that does not read costs a bounded buffer, never memory without end. Replies are
/// always written: the connection reads no further requests while it is not writable, so they cannot
/// pile up. No write carries a promise: closing a flooder with thousands of replies unsent would
/// otherwise run a callback for each of them at once.
final class ChannelOutlet: ClientOutlet {
    // Sendable: `channel` is Sendable and thread-safe to write to; the mutable state is behind a lock.
    let channel: any Channel
    private struct State {
        var writable = true
        var dropped = 0
    }
    private let state = NIOLockedValueBox(State())

    init(channel: any Channel) {
        self.channel = channel
    }

    var droppedEvents: Int { state.withLockedValue { $0.dropped } }

    /// An event, from under the render loop's lock — possibly taken by this channel's own event loop
    /// thread, inside `RenderLoop.perform` (a request runs its command on its socket thread). So the
    /// write is always a task of its own on the event loop, never done in place: done in place, a
    /// write that fails (the peer is gone) closes the channel, and a write that drains the output
    /// makes it writable again — and both run handler code at once (`channelInactive` →
    /// `DaemonCore.disconnect`, `channelWritabilityChanged` → the next request) that calls `perform`
    /// again on the thread that holds the render loop's lock, a deadlock.
    func event(_ line: String) {
        guard take() else { return }
        channel.eventLoop.execute { [self] in
            // It may have stopped being writable since: checked again where it is exact.
            guard channel.isWritable else {
                state.withLockedValue { $0.dropped += 1 }
                return
            }
            write(line, flush: true)
        }
    }

    /// Whether an event may be sent now; counts it as dropped otherwise.
    private func take() -> Bool {
        state.withLockedValue { s in
            guard s.writable else {
                s.dropped += 1
                return false
            }
            return true
        }
    }

    /// A reply, always sent. Called on the event loop, outside `perform`.
    /// Without `flush`, the caller flushes (a turn's replies go out in one system call).
    func reply(_ line: String, flush: Bool = true) {
        write(line, flush: flush)
    }

    /// The channel's writability changed (on its event loop): events are dropped while it is over
    /// the high mark; back under the low mark the client hears how many it missed.
    func writabilityChanged(_ writable: Bool) {
        let notice: Int? = state.withLockedValue { s in
            s.writable = writable
            guard writable, s.dropped > 0 else { return nil }
            defer { s.dropped = 0 }
            return s.dropped
        }
        if let notice { reply(Reply.eventsDropped(notice)) }
    }

    private func write(_ line: String, flush: Bool) {
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        if flush {
            channel.writeAndFlush(buffer, promise: nil)
        } else {
            channel.write(buffer, promise: nil)
        }
    }
}

extension Reply {
    /// The notice a client gets once it catches up after events were dropped for it.
    static func eventsDropped(_ count: Int) -> String {
        JSONWriter.write(.object(JSONObject(["event": .string("events_dropped"), "count": .number(Double(count))])))
    }
}
