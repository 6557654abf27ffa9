/// The fields of an H.264 sequence parameter set that a container needs: profile, level, chroma format and the
/// cropped picture size (ITU-T H.264 §7.3.2.1.1, semantics §7.4.2.1.1).
///
/// Parsing stops after the frame cropping fields; VUI parameters are not read.
public struct H264SequenceParameterSet: Sendable, Hashable {
    /// §7.3.2.1.1: the profiles whose SPS carries chroma format, bit depths and scaling matrices.
    static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]
    /// §A.3.1: no level allows a picture wider or taller than this many macroblocks (8192 pixels); a larger value
    /// is a corrupt SPS.
    static let maximumMacroblocks = 1024
    /// §7.4.2.1.1: num_ref_frames_in_pic_order_cnt_cycle is in 0...255.
    static let maximumPOCCycle = 255

    /// profile_idc (66 Baseline, 77 Main, 100 High, ...).
    public let profile: UInt8
    /// The constraint_set flags byte.
    public let constraints: UInt8
    /// level_idc (e.g. 31 for level 3.1).
    public let level: UInt8
    /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public let chromaFormat: UInt8
    /// Luma bit depth (8 for every stream this project makes).
    public let bitDepthLuma: Int
    /// The displayed width in pixels, after cropping.
    public let width: Int
    /// The displayed height in pixels, after cropping.
    public let height: Int

    /// Parses a sequence parameter set NAL unit.
    /// - Parameter nalUnit: the SPS NAL unit (type 7) with its header byte, without a start code, still escaped.
    /// - Throws: ``MP4Error`` when it is not an SPS, ends early, or describes an impossible picture.
    public init<C: Collection>(parsing nalUnit: C) throws(MP4Error) where C.Element == UInt8 {
        guard let header = nalUnit.first, header & 0x1F == 7 else {
            throw Self.failure("the NAL unit is not an SPS (type 7)")
        }
        var reader = ExpGolombReader(escaped: nalUnit.dropFirst())
        guard let profile = reader.read(8), let constraints = reader.read(8), let level = reader.read(8),
              reader.readUnsigned() != nil  // seq_parameter_set_id
        else { throw Self.truncated }
        self.profile = UInt8(profile)
        self.constraints = UInt8(constraints)
        self.level = UInt8(level)

        var chromaFormat: UInt32 = 1
        var separateColourPlanes = false
        var bitDepthLuma = 8
        if Self.highProfiles.contains(UInt8(profile)) {
            guard let format = reader.readUnsigned(), format <= 3 else {
                throw Self.failure("chroma_format_idc is missing or above 3")
            }
            chromaFormat = format
            if format == 3 {
                guard let separate = reader.readFlag() else { throw Self.truncated }
                separateColourPlanes = separate
            }
            guard let lumaDepth = reader.readUnsigned(), lumaDepth <= 6,
                  let chromaDepth = reader.readUnsigned(), chromaDepth <= 6,
                  reader.readFlag() != nil,  // qpprime_y_zero_transform_bypass_flag
                  let hasScalingMatrix = reader.readFlag()
            else { throw Self.failure("bit depths are missing or above 14") }
            bitDepthLuma = Int(lumaDepth) + 8
            if hasScalingMatrix {
                for index in 0..<(format == 3 ? 12 : 8) {
                    guard let present = reader.readFlag() else { throw Self.truncated }
                    if present {
                        try Self.skipScalingList(size: index < 6 ? 16 : 64, reader: &reader)
                    }
                }
            }
        }
        self.chromaFormat = UInt8(chromaFormat)
        self.bitDepthLuma = bitDepthLuma

        guard reader.readUnsigned() != nil,  // log2_max_frame_num_minus4
              let pocType = reader.readUnsigned()
        else { throw Self.truncated }
        switch pocType {
        case 0:
            guard reader.readUnsigned() != nil else { throw Self.truncated }  // log2_max_pic_order_cnt_lsb_minus4
        case 1:
            guard reader.readFlag() != nil,  // delta_pic_order_always_zero_flag
                  reader.readSigned() != nil,  // offset_for_non_ref_pic
                  reader.readSigned() != nil,  // offset_for_top_to_bottom_field
                  let cycle = reader.readUnsigned(), cycle <= Self.maximumPOCCycle
            else { throw Self.failure("picture order count type 1 fields are missing or out of range") }
            for _ in 0..<cycle {
                guard reader.readSigned() != nil else { throw Self.truncated }
            }
        case 2:
            break
        default:
            throw Self.failure("pic_order_cnt_type \(pocType) is not 0, 1 or 2")
        }
        guard reader.readUnsigned() != nil,  // max_num_ref_frames
              reader.readFlag() != nil,  // gaps_in_frame_num_value_allowed_flag
              let widthInMacroblocks = reader.readUnsigned().map({ Int($0) + 1 }),
              let heightInMapUnits = reader.readUnsigned().map({ Int($0) + 1 }),
              let frameMacroblocksOnly = reader.readFlag()
        else { throw Self.truncated }
        let heightInMacroblocks = heightInMapUnits * (frameMacroblocksOnly ? 1 : 2)
        guard widthInMacroblocks <= Self.maximumMacroblocks, heightInMacroblocks <= Self.maximumMacroblocks else {
            throw Self.failure("a picture of \(widthInMacroblocks)x\(heightInMacroblocks) macroblocks is larger "
                + "than any H.264 level allows")
        }
        if !frameMacroblocksOnly {
            guard reader.readFlag() != nil else { throw Self.truncated }  // mb_adaptive_frame_field_flag
        }
        guard reader.readFlag() != nil,  // direct_8x8_inference_flag
              let cropped = reader.readFlag()
        else { throw Self.truncated }
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if cropped {
            guard let left = reader.readUnsigned(), let right = reader.readUnsigned(),
                  let top = reader.readUnsigned(), let bottom = reader.readUnsigned()
            else { throw Self.truncated }
            let limit = UInt32(Self.maximumMacroblocks * 16)
            crop = (Int(min(left, limit)), Int(min(right, limit)), Int(min(top, limit)), Int(min(bottom, limit)))
        }
        // §7.4.2.1.1, Table 6-1: crop units are chroma samples (SubWidthC, SubHeightC), doubled vertically for
        // field coding; monochrome and separately coded planes count in luma samples.
        let chromaArrayType = separateColourPlanes ? 0 : chromaFormat
        let unitX = chromaArrayType == 0 || chromaArrayType == 3 ? 1 : 2
        let unitY = (chromaArrayType == 1 ? 2 : 1) * (frameMacroblocksOnly ? 1 : 2)
        let width = widthInMacroblocks * 16 - unitX * (crop.left + crop.right)
        let height = heightInMacroblocks * 16 - unitY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else {
            throw Self.failure("the frame cropping leaves a picture of \(width)x\(height)")
        }
        self.width = width
        self.height = height
    }

    /// §7.3.2.1.1.1 scaling_list(): read only to get past it.
    private static func skipScalingList(size: Int, reader: inout ExpGolombReader) throws(MP4Error) {
        var last: Int32 = 8
        var next: Int32 = 8
        for _ in 0..<size {
            if next != 0 {
                guard let delta = reader.readSigned() else { throw truncated }
                next = Int32(((Int64(last) + Int64(delta)) % 256 + 256) % 256)
            }
            last = next == 0 ? last : next
        }
    }

    private static var truncated: MP4Error { failure("it ends before its frame size fields") }

    private static func failure(_ what: String) -> MP4Error {
        MP4Error(.invalidSequenceParameterSet, "\(what); the encoder's sequence header is corrupt")
    }
}
