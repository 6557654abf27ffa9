/// A deterministic moving "screen" in BGRA: colour bars over a grey ramp, a box sliding left to right, and the frame
/// number drawn as 16 black/white blocks (most significant bit first) that survive scaling and encoding. Below it,
/// optionally, a second row of 16 blocks burns in a time code: the publisher's wall clock in centiseconds, modulo
/// 2^16 (it wraps every 655.36 s). For a person, the same wall clock can also be written out as `HH:MM:SS.cc` (UTC)
/// on a black label under the sliding box (``clockLabel``), clear of the rows of bars tests sample.
///
/// ``readFrameNumber(from:)`` and ``readTimeCode(from:)`` read them back from a frame at any size (BGRA, I420 or
/// NV12), so a test at the far end of a pipeline can tell which frame it got and, with ``latency(ofTimeCode:at:)``,
/// how long after its capture it is shown.
public struct ScreenPattern: Sendable {
    /// Width of the rendered frames.
    public let width: Int
    /// Height of the rendered frames.
    public let height: Int
    /// Side of one frame-number block, in pixels.
    public let blockSize: Int
    /// Bits of the frame number drawn (the number is shown modulo 2^16).
    public static let frameNumberBits = 16
    /// Bits of the time code drawn.
    public static let timeCodeBits = 16
    /// Milliseconds per time code unit.
    public static let timeCodeUnitMilliseconds = 10

    /// The eight bars, left to right: white, yellow, cyan, green, magenta, red, blue, black (75 % intensity).
    public static let barColors: [BGRAColor] = [
        BGRAColor(b: 191, g: 191, r: 191), BGRAColor(b: 0, g: 191, r: 191), BGRAColor(b: 191, g: 191, r: 0),
        BGRAColor(b: 0, g: 191, r: 0), BGRAColor(b: 191, g: 0, r: 191), BGRAColor(b: 0, g: 0, r: 191),
        BGRAColor(b: 191, g: 0, r: 0), BGRAColor(b: 0, g: 0, r: 0),
    ]
    /// The sliding box's colour (orange).
    public static let boxColor = BGRAColor(b: 0, g: 128, r: 255)

    /// Where the readable wall clock goes: left-aligned with the blocks, just under the sliding box, its font cells
    /// 6 % of the height per 7 cells; nil when the picture is too small for cells of one pixel.
    public let clockLabel: ClockLabel?

    private let barsRow: [UInt32]
    private let rampRow: [UInt32]

    /// Prepares a pattern of `width` × `height` (e.g. 1920×1080, or an iPhone's 1179×2556).
    /// - Precondition: at least 64×64 pixels.
    public init(width: Int, height: Int) {
        precondition(width >= 64 && height >= 64, "the screen pattern needs at least 64x64 pixels")
        self.width = width
        self.height = height
        blockSize = max(4, min(width / (Self.frameNumberBits + 2), height / 8) / 2 * 2)
        barsRow = (0..<width).map { x in Self.barColors[x * Self.barColors.count / width].word }
        rampRow = (0..<width).map { x in
            let level = UInt8(x * 255 / max(width - 1, 1))
            return BGRAColor(b: level, g: level, r: level).word
        }
        // The label ends above 0.65 of the height (0.5625 + 10 cells of at most 0.06 / 7): the bars row between the
        // box and the grey ramp, at 0.656, stays clear for the tests that check the colours there.
        let scale = min(height * 6 / 700, (width - 2 * blockSize) / ClockLabel.cellsWide)
        let boxBottom = (height - max(16, height / 8)) / 2 + max(16, height / 8)
        clockLabel = scale >= 1 ? ClockLabel(x: blockSize, y: boxBottom + scale, scale: scale) : nil
    }

    /// Where the box is in frame `index`: it moves 8 pixels per frame and wraps.
    public func boxRect(frameIndex index: Int) -> PiPRect {
        let side = max(16, height / 8)
        let travel = max(width - side, 1)
        return PiPRect(x: (index &* 8) % travel, y: (height - side) / 2, width: side, height: side)
    }

    /// The rectangle of frame-number bit `bit` (0 = most significant), in pattern pixels.
    public func blockRect(bit: Int) -> PiPRect {
        PiPRect(x: blockSize * (1 + bit), y: blockSize, width: blockSize, height: blockSize)
    }

    /// The rectangle of time-code bit `bit` (0 = most significant): a row below the frame number, one block apart.
    public func timeCodeRect(bit: Int) -> PiPRect {
        PiPRect(x: blockSize * (1 + bit), y: blockSize * 3, width: blockSize, height: blockSize)
    }

    /// The time code of a wall-clock time: centiseconds since the Unix epoch, modulo 2^16.
    public static func timeCode(millisecondsSinceEpoch milliseconds: Int64) -> Int {
        Int(truncatingIfNeeded: milliseconds / Int64(timeCodeUnitMilliseconds)) & (1 << timeCodeBits - 1)
    }

    /// How long before `now` a time code was burnt in, in milliseconds (to the 10 ms unit); unambiguous up to half
    /// the wrap, 327 s.
    public static func latency(ofTimeCode code: Int, at now: Int64) -> Int {
        let wrap = 1 << timeCodeBits
        let difference = (timeCode(millisecondsSinceEpoch: now) - code) & (wrap - 1)
        return (difference < wrap / 2 ? difference : difference - wrap) * timeCodeUnitMilliseconds
    }

    /// Draws frame `index` into `frame`.
    /// - Parameters:
    ///   - index: the frame number to burn in.
    ///   - timeCode: the time code to burn in (``timeCode(millisecondsSinceEpoch:)``); nil leaves its row to the
    ///     bars.
    ///   - clock: milliseconds since the Unix epoch to write as `HH:MM:SS.cc` in ``clockLabel``; nil writes none.
    /// - Precondition: `frame` is BGRA at this pattern's size and uniquely referenced.
    public func render(frameIndex index: Int, timeCode: Int? = nil, clock: Int64? = nil,
                       into frame: inout VideoFrame) {
        precondition(frame.format == .bgra && frame.width == width && frame.height == height,
                     "ScreenPattern renders BGRA \(width)x\(height), not \(frame.layout)")
        let rampTop = height * 3 / 4
        frame.withUnsafeMutablePlanes { planes in
            let base = planes.baseAddress(ofPlane: 0)
            let stride = planes.stride(ofPlane: 0)
            barsRow.withUnsafeBufferPointer { bars in
                rampRow.withUnsafeBufferPointer { ramp in
                    // Both rows hold `width` (≥ 64) pixels, so their base addresses exist.
                    guard let barsStart = bars.baseAddress, let rampStart = ramp.baseAddress else { return }
                    for row in 0..<height {
                        UnsafeMutableRawPointer(base + row * stride).assumingMemoryBound(to: UInt32.self)
                            .update(from: row < rampTop ? barsStart : rampStart, count: width)
                    }
                }
            }
            let box = boxRect(frameIndex: index)
            planes.fillRect(x: box.x, y: box.y, width: box.width, height: box.height, color: Self.boxColor)
            drawBlocks(index & (1 << Self.frameNumberBits - 1), bits: Self.frameNumberBits, rect: blockRect(bit:),
                       into: planes)
            if let timeCode {
                drawBlocks(timeCode, bits: Self.timeCodeBits, rect: timeCodeRect(bit:), into: planes)
            }
            if let clock, let clockLabel {
                clockLabel.draw(millisecondsSinceEpoch: clock, into: planes)
            }
        }
    }

    /// Draws `number`'s low `bits` bits as white (1) and black (0) blocks, most significant first.
    private func drawBlocks(_ number: Int, bits: Int, rect: (Int) -> PiPRect, into planes: MutableVideoPlanes) {
        for bit in 0..<bits {
            let isSet = number >> (bits - 1 - bit) & 1 == 1
            let block = rect(bit)
            let color = isSet ? BGRAColor(b: 255, g: 255, r: 255) : BGRAColor(b: 0, g: 0, r: 0)
            planes.fillRect(x: block.x, y: block.y, width: block.width, height: block.height, color: color)
        }
    }

    /// Reads the frame number (modulo 2^16) from a rendering of this pattern, possibly scaled to another size and
    /// converted to I420 or NV12, by sampling the middle of each block.
    public func readFrameNumber(from frame: VideoFrame) -> Int {
        readBlocks(Self.frameNumberBits, rect: blockRect(bit:), from: frame)
    }

    /// Reads the time code from a rendering of this pattern, as ``readFrameNumber(from:)`` reads the frame number.
    public func readTimeCode(from frame: VideoFrame) -> Int {
        readBlocks(Self.timeCodeBits, rect: timeCodeRect(bit:), from: frame)
    }

    /// Reads the wall clock written by ``render(frameIndex:timeCode:clock:into:)``, as ``readFrameNumber(from:)``
    /// reads the frame number.
    /// - Returns: `HH:MM:SS.cc`, or nil when the picture has no label or a glyph there is not one of the font's.
    public func readClock(from frame: VideoFrame) -> String? {
        clockLabel?.read(from: frame, pictureWidth: width, pictureHeight: height)
    }

    private func readBlocks(_ bits: Int, rect: (Int) -> PiPRect, from frame: VideoFrame) -> Int {
        var number = 0
        for bit in 0..<bits {
            let block = rect(bit)
            let x = (block.x + block.width / 2) * frame.width / width
            let y = (block.y + block.height / 2) * frame.height / height
            let brightness = frame.format == .bgra ? Int(frame.bgra(x: x, y: y).g) : Int(frame.yuv(x: x, y: y).y)
            number = number << 1 | (brightness > 128 ? 1 : 0)
        }
        return number
    }
}
