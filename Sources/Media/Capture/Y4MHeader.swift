/// The stream header of a YUV4MPEG2 (`.y4m`) file: `YUV4MPEG2 W320 H240 F15:1 Ip A1:1 C420jpeg\n`.
///
/// Only 8-bit 4:2:0 colour spaces are accepted (`C420jpeg`, `C420`, `C420paldv`, `C420mpeg2`), which all store
/// planar I420 and differ only in chroma siting; others are refused with advice to convert.
public struct Y4MHeader: Sendable, Hashable {
    /// How the fields of a frame are ordered (`I` parameter).
    public enum Interlace: Sendable, Hashable {
        /// `Ip`: progressive.
        case progressive
        /// `It`: top field first.
        case topFieldFirst
        /// `Ib`: bottom field first.
        case bottomFieldFirst
        /// `Im`: mixed, per frame.
        case mixed
        /// `I?` or no `I` parameter.
        case unknown
    }

    /// The 8-bit 4:2:0 colour spaces (`C` parameter); all are stored as planar I420.
    public enum Colorspace: String, Sendable, Hashable, CaseIterable {
        /// `C420jpeg`: chroma centred (the default when `C` is absent).
        case c420jpeg = "420jpeg"
        /// `C420`: chroma sited as in MPEG-2 progressive.
        case c420 = "420"
        /// `C420paldv`: PAL DV chroma siting.
        case c420paldv = "420paldv"
        /// `C420mpeg2`: MPEG-2 chroma siting.
        case c420mpeg2 = "420mpeg2"
    }

    /// The magic word that opens every YUV4MPEG2 stream, followed by a space.
    public static let magic: [UInt8] = Array("YUV4MPEG2".utf8)
    /// The longest header line accepted. The format sets no limit; real headers are under 100 bytes.
    public static let maximumLineLength = 4_096

    /// Width in pixels (`W`).
    public var width: Int
    /// Height in pixels (`H`).
    public var height: Int
    /// Frame rate numerator (`F`num:den).
    public var frameRateNumerator: Int
    /// Frame rate denominator.
    public var frameRateDenominator: Int
    /// Field order (`I`).
    public var interlace: Interlace
    /// Pixel aspect ratio numerator (`A`num:den); 0:0 means unknown.
    public var aspectNumerator: Int
    /// Pixel aspect ratio denominator.
    public var aspectDenominator: Int
    /// Chroma siting (`C`).
    public var colorspace: Colorspace

    /// Frames per second.
    public var frameRate: Double { Double(frameRateNumerator) / Double(frameRateDenominator) }

    /// Bytes of one frame's planes: Y, then U and V at a quarter size each (rounded up for odd sizes).
    public var frameByteCount: Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// Parses a header line, without its terminating newline.
    /// - Throws: ``CaptureError`` when the magic, a size, the rate or the colour space is missing or invalid.
    public init(line: some Collection<UInt8>) throws(CaptureError) {
        let words = line.split(separator: 0x20, omittingEmptySubsequences: true)
        guard let first = words.first, Array(first) == Self.magic else {
            throw CaptureError.y4m("not a YUV4MPEG2 stream: it must start with 'YUV4MPEG2 '")
        }
        var width: Int?
        var height: Int?
        var rate: (Int, Int)?
        var interlace = Interlace.unknown
        var aspect = (0, 0)
        var colorspace = Colorspace.c420jpeg
        for word in words.dropFirst() {
            let value = String(decoding: word.dropFirst(), as: UTF8.self)
            switch word.first {
            case UInt8(ascii: "W"): width = try Self.dimension(value, "W")
            case UInt8(ascii: "H"): height = try Self.dimension(value, "H")
            case UInt8(ascii: "F"):
                guard let ratio = Self.ratio(value), ratio.0 > 0, ratio.1 > 0 else {
                    throw CaptureError.y4m("Y4M frame rate 'F\(value.prefix(20))' is not a positive ratio like F30:1")
                }
                rate = ratio
            case UInt8(ascii: "I"): interlace = try Self.interlace(value)
            case UInt8(ascii: "A"):
                guard let ratio = Self.ratio(value) else {
                    throw CaptureError.y4m("Y4M pixel aspect 'A\(value.prefix(20))' is not a ratio like A1:1")
                }
                aspect = ratio
            case UInt8(ascii: "C"):
                guard let known = Colorspace(rawValue: value) else {
                    throw CaptureError.y4m("Y4M colour space 'C\(value.prefix(20))' is not supported: only 8-bit "
                                               + "4:2:0 is; convert with ffmpeg -pix_fmt yuv420p")
                }
                colorspace = known
            default:
                continue  // X (extensions) and unknown parameters are ignored, as the format asks
            }
        }
        guard let width, let height else {
            throw CaptureError.y4m("Y4M header has no frame size: it needs W and H parameters")
        }
        guard let rate else {
            throw CaptureError.y4m("Y4M header has no frame rate: it needs an F parameter such as F30:1")
        }
        self.width = width
        self.height = height
        frameRateNumerator = rate.0
        frameRateDenominator = rate.1
        self.interlace = interlace
        aspectNumerator = aspect.0
        aspectDenominator = aspect.1
        self.colorspace = colorspace
    }

    private static func dimension(_ text: String, _ name: String) throws(CaptureError) -> Int {
        guard let value = Int(text), (1...16_384).contains(value) else {
            throw CaptureError.y4m("Y4M \(name) '\(text.prefix(20))' is not a size in 1...16384")
        }
        return value
    }

    private static func ratio(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]),
              numerator >= 0, denominator >= 0, numerator <= Int(Int32.max), denominator <= Int(Int32.max)
        else { return nil }
        return (numerator, denominator)
    }

    private static func interlace(_ text: String) throws(CaptureError) -> Interlace {
        switch text {
        case "p": return .progressive
        case "t": return .topFieldFirst
        case "b": return .bottomFieldFirst
        case "m": return .mixed
        case "?": return .unknown
        default: throw CaptureError.y4m("Y4M interlace 'I\(text.prefix(20))' is not one of Ip, It, Ib, Im, I?")
        }
    }
}
