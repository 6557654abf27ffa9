/// Comparisons of secrets (signatures, key hashes) whose time does not depend on where two values differ, so a
/// prober learns nothing from how long a refusal took.
public enum ConstantTime {
    /// Whether two byte strings are equal, looking at every byte of the longer one.
    public static func equal<L: Collection, R: Collection>(_ lhs: L, _ rhs: R) -> Bool
    where L.Element == UInt8, R.Element == UInt8 {
        let left = Array(lhs)
        let right = Array(rhs)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}
