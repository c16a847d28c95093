extension FixedWidthInteger {
    /// `x` rounded toward zero and clamped to the type's range; NaN gives 0. Every conversion of a
    /// time, rate or size that came from outside goes through this, so that no input can trap.
    @inlinable
    public init(saturating x: Double) {
        if x.isNaN {
            self = 0
        } else if x <= Double(Self.min) {
            self = Self.min
        } else if x >= Double(Self.max) {
            // Double(Self.max) rounds up for 64-bit types; anything at or above it is the maximum.
            self = Self.max
        } else {
            self = Self(x.rounded(.towardZero))
        }
    }
}
