import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Who is on the other end of a connection (SO_PEERCRED, SO_PEERGROUPS).
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// Supplementary groups.
    public var groups: [UInt32]
    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }
    public var allGroups: [UInt32] { [gid] + groups }
    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// Reading a Unix socket peer's credentials.
extension PeerCredentials {
    /// `struct ucred` (pid, uid, gid: three 32-bit fields), which glibc declares only under
    /// _GNU_SOURCE and so Swift does not import.
    struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// SO_PEERCRED, and the supplementary groups from SO_PEERGROUPS (Linux ≥ 4.13), read on the
    /// channel's own event loop (so the futures are already fulfilled).
    static func read(from channel: any Channel) -> PeerCredentials? {
        guard let provider = channel as? SocketOptionProvider else { return nil }
        let cred: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(level: .socket, name: .init(rawValue: SO_PEERCRED))
        let box = NIOLockedValueBox<UCred?>(nil)
        cred.whenSuccess { c in box.withLockedValue { $0 = c } }
        guard let c = box.withLockedValue({ $0 }) else { return nil }
        return PeerCredentials(pid: c.pid, uid: c.uid, gid: c.gid, groups: groups(provider))
    }

    /// Up to 64 supplementary groups. NIO hands the option's buffer back zero-filled and without its
    /// length; the kernel keeps group lists sorted, so the groups are the non-zero prefix (with gid 0
    /// first when the peer is in it and in others). More than 64 groups (ERANGE): none are read, and
    /// only the primary group counts — the allow and admin lists then fail closed.
    static func groups(_ provider: any SocketOptionProvider) -> [UInt32] {
        let future: EventLoopFuture<SIMD64<UInt32>> = provider.unsafeGetSocketOption(level: .socket, name: .init(rawValue: SO_PEERGROUPS))
        let box = NIOLockedValueBox<SIMD64<UInt32>?>(nil)
        future.whenSuccess { g in box.withLockedValue { $0 = g } }
        guard let raw = box.withLockedValue({ $0 }) else { return [] }
        var groups: [UInt32] = []
        for i in 0..<64 {
            let g = raw[i]
            if g == 0 && i > 0 { break }
            groups.append(g)
        }
        // A lone 0 is either "in group 0 only" or "no groups": read as none (fail closed).
        if groups == [0] { return [] }
        return groups
    }
}
