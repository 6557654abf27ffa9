/// The stream header of a YUV4MPEG2 (`.y4m`) file, as written by ffmpeg and x264: `YUV4MPEG2 W640 H480 F30:1 Ip
/// A1:1 C420jpeg\n`. Only 8-bit 4:2:0 (the `C420*` colour spaces, or none) is accepted: that is I420 in the file.
public struct Y4MHeader: Sendable, Hashable {
    /// The magic word that starts the file.
    public static let magic = "YUV4MPEG2"
    /// The word that starts each frame.
    public static let frameMagic = "FRAME"
    /// Longest header line accepted (real headers are well under 100 bytes).
    public static let maximumLineLength = 1024

    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// Frames per second as a fraction (numerator, denominator).
    public var frameRate: (numerator: Int, denominator: Int)
    /// Bytes of one frame's pixels (Y, then U, then V).
    public var frameByteCount: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }

    /// Parses a header line (without its newline).
    /// - Throws: `BroadcastError` (`.invalidConfiguration`) naming what is wrong.
    public init(line: String) throws(BroadcastError) {
        let fields = line.split(separator: " ")
        guard fields.first == Substring(Self.magic) else {
            throw Self.invalid("it does not start with \(Self.magic); convert it with ffmpeg -pix_fmt yuv420p")
        }
        var width: Int?
        var height: Int?
        var rate = (numerator: 30, denominator: 1)
        for field in fields.dropFirst() {
            let value = field.dropFirst()
            switch field.first {
            case "W": width = Int(value)
            case "H": height = Int(value)
            case "F":
                let parts = value.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
                    throw Self.invalid("bad frame rate \(field)")
                }
                rate = (parts[0], parts[1])
            case "C":
                guard value.hasPrefix("420"), !value.contains("p1"), !value.contains("p9") else {
                    throw Self.invalid("colour space \(value) is not 8-bit 4:2:0; convert it with ffmpeg "
                                            + "-pix_fmt yuv420p")
                }
            default: continue
            }
        }
        guard let width, let height, (2...8192).contains(width), (2...8192).contains(height) else {
            throw Self.invalid("missing or out-of-range width/height (2 to 8192)")
        }
        self.width = width
        self.height = height
        self.frameRate = rate
    }

    /// Headers are equal when size and rate are.
    public static func == (left: Y4MHeader, right: Y4MHeader) -> Bool {
        left.width == right.width && left.height == right.height && left.frameRate == right.frameRate
    }

    /// Hashes size and rate.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(frameRate.numerator)
        hasher.combine(frameRate.denominator)
    }

    private static func invalid(_ why: String) -> BroadcastError {
        BroadcastError(.invalidConfiguration, "not a usable Y4M camera file: \(why)")
    }
}
