/// The 32-bit sample flags of a `trun` entry (ISO/IEC 14496-12 §8.8.3.1):
///
/// ```
/// reserved 4 | is_leading 2 | sample_depends_on 2 | sample_is_depended_on 2 | sample_has_redundancy 2
/// | sample_padding_value 3 | sample_is_non_sync_sample 1 | sample_degradation_priority 16
/// ```
public struct SampleFlags: RawRepresentable, Sendable, Hashable {
    /// The packed value.
    public let rawValue: UInt32

    /// Creates flags from their packed value.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// A sync sample (an IDR picture, or any audio frame): depends on no other sample (depends_on = 2).
    public static let sync = SampleFlags(rawValue: 0x0200_0000)
    /// A picture that depends on others (depends_on = 1) and is not a sync sample (non_sync = 1).
    public static let nonSync = SampleFlags(rawValue: 0x0101_0000)

    /// Whether sample_is_non_sync_sample is clear.
    public var isSync: Bool { rawValue & 0x0001_0000 == 0 }
}
