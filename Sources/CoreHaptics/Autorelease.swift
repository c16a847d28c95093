import Dispatch

/// Objective-C's `Unmanaged.autorelease()`, which Swift on Linux lacks (there is no autorelease pool).
///
/// Bridges written for Apple platforms balance the retain of `Unmanaged.passRetained` with it when a
/// C caller hands an engine or player back, as Apple's own Unity wrapper does; with this they compile
/// here as written. As an autorelease pool would, it releases the object later, not at once: the
/// release runs on a global queue after the caller's statement, so a value taken from the same
/// `Unmanaged` in that statement is still alive.
extension Unmanaged {
    @discardableResult
    public func autorelease() -> Unmanaged<Instance> {
        let opaque = UInt(bitPattern: toOpaque())
        DispatchQueue.global().async {
            guard let pointer = UnsafeRawPointer(bitPattern: opaque) else { return }
            Unmanaged<Instance>.fromOpaque(pointer).release()
        }
        return self
    }
}
