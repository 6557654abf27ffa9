/// A wall-clock time written as `HH:MM:SS.cc` (UTC) in a 5×7 bitmap font, white on a black label: the readable
/// twin of ``ScreenPattern``'s binary time code, for a person looking at the picture.
///
/// Each glyph is prepared once at the label's scale as rows of BGRA words, so drawing a time is one fill of the
/// label and a `memcpy` per glyph line (11 glyphs × 7 rows × `scale` lines); nothing is allocated per frame.
/// ``read(from:)`` samples the middle of every font cell and matches it against the font, so a test can read the
/// time back from a frame at any size, in BGRA, I420 or NV12.
public struct ClockLabel: Sendable {
    /// Characters in `HH:MM:SS.cc`.
    public static let characterCount = 11
    /// Font cells of one glyph: 5 wide, 7 high; one empty column separates glyphs.
    static let glyphWidth = 5
    static let glyphHeight = 7
    static let advance = glyphWidth + 1
    /// The label's size in font cells: the text with one empty cell around it.
    static let cellsWide = characterCount * advance - 1 + 2
    static let cellsHigh = glyphHeight + 2

    /// The characters of the font, in the order of ``rows``.
    static let characters: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ":", "."]
    /// Each glyph's 7 rows, the leftmost cell in bit 4.
    static let rows: [[UInt8]] = [
        [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],  // 0
        [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],  // 1
        [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],  // 2
        [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],  // 3
        [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],  // 4
        [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],  // 5
        [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],  // 6
        [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],  // 7
        [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],  // 8
        [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],  // 9
        [0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000],  // :
        [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100],  // .
    ]
    static let ink = BGRAColor(b: 255, g: 255, r: 255)
    static let paper = BGRAColor(b: 0, g: 0, r: 0)

    /// Where the label is, in pixels of the picture.
    public let rect: PiPRect
    /// Side of one font cell, in pixels.
    public let scale: Int
    /// Every glyph's rows at `scale`: glyph g, row r starts at `(g * glyphHeight + r) * glyphWidth * scale`.
    private let glyphPixels: [UInt32]

    /// A label whose top left corner is at (`x`, `y`), its font cells `scale` pixels wide.
    /// - Precondition: `scale` ≥ 1.
    public init(x: Int, y: Int, scale: Int) {
        precondition(scale >= 1, "a clock label needs cells of at least one pixel")
        self.scale = scale
        rect = PiPRect(x: x, y: y, width: Self.cellsWide * scale, height: Self.cellsHigh * scale)
        var pixels: [UInt32] = []
        pixels.reserveCapacity(Self.rows.count * Self.glyphHeight * Self.glyphWidth * scale)
        for glyph in Self.rows {
            for row in glyph {
                for column in 0..<Self.glyphWidth {
                    let isSet = row >> (Self.glyphWidth - 1 - column) & 1 == 1
                    let word = isSet ? Self.ink.word : Self.paper.word
                    pixels.append(contentsOf: repeatElement(word, count: scale))
                }
            }
        }
        glyphPixels = pixels
    }

    /// The text of a wall-clock time: `HH:MM:SS.cc` in UTC (hours of the day, centiseconds).
    /// - Parameter milliseconds: milliseconds since the Unix epoch (a time before it counts back from midnight).
    public static func text(millisecondsSinceEpoch milliseconds: Int64) -> String {
        let day: Int64 = 86_400_000
        let ofDay = (milliseconds % day + day) % day
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return two(ofDay / 3_600_000) + ":" + two(ofDay / 60_000 % 60) + ":" + two(ofDay / 1000 % 60) + "."
            + two(ofDay / 10 % 100)
    }

    /// The font's index of character `position` of `HH:MM:SS.cc` at `ofDay` milliseconds into the day.
    static func glyph(at position: Int, ofDay: Int) -> Int {
        switch position {
        case 0: ofDay / 36_000_000
        case 1: ofDay / 3_600_000 % 10
        case 3: ofDay / 600_000 % 6
        case 4: ofDay / 60_000 % 10
        case 6: ofDay / 10_000 % 6
        case 7: ofDay / 1000 % 10
        case 9: ofDay / 100 % 10
        case 10: ofDay / 10 % 10
        case 8: 11  // "."
        default: 10  // ":"
        }
    }

    /// Draws the time into a BGRA frame's planes.
    func draw(millisecondsSinceEpoch milliseconds: Int64, into planes: MutableVideoPlanes) {
        planes.fillRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height, color: Self.paper)
        let base = planes.baseAddress(ofPlane: 0)
        let stride = planes.stride(ofPlane: 0)
        let rowWords = Self.glyphWidth * scale
        let day: Int64 = 86_400_000
        let ofDay = Int((milliseconds % day + day) % day)
        glyphPixels.withUnsafeBufferPointer { glyphs in
            // The table holds 12 glyphs of 7 rows of 5 × scale words (scale ≥ 1), so its base address exists.
            guard let table = glyphs.baseAddress else { return }
            for position in 0..<Self.characterCount {
                let glyph = Self.glyph(at: position, ofDay: ofDay)
                let left = rect.x + (1 + position * Self.advance) * scale
                for row in 0..<Self.glyphHeight {
                    let source = table + (glyph * Self.glyphHeight + row) * rowWords
                    let top = rect.y + (1 + row) * scale
                    for line in top..<(top + scale) {
                        UnsafeMutableRawPointer(base + line * stride + left * 4)
                            .assumingMemoryBound(to: UInt32.self).update(from: source, count: rowWords)
                    }
                }
            }
        }
    }

    /// Reads the time back from a frame of the picture this label was placed in (`width` × `height`), possibly
    /// scaled to another size and converted to I420 or NV12, by sampling the middle of every font cell.
    /// - Returns: the text (`HH:MM:SS.cc`), or nil when a glyph matches no character of the font within 3 cells.
    public func read(from frame: VideoFrame, pictureWidth width: Int, pictureHeight height: Int) -> String? {
        var text = ""
        for position in 0..<Self.characterCount {
            var cells = [UInt8](repeating: 0, count: Self.glyphHeight)
            for row in 0..<Self.glyphHeight {
                var bits: UInt8 = 0
                for column in 0..<Self.glyphWidth {
                    let x = rect.x + (1 + position * Self.advance + column) * scale + scale / 2
                    let y = rect.y + (1 + row) * scale + scale / 2
                    let sampleX = min(frame.width - 1, x * frame.width / width)
                    let sampleY = min(frame.height - 1, y * frame.height / height)
                    let brightness = frame.format == .bgra ? Int(frame.bgra(x: sampleX, y: sampleY).g)
                        : Int(frame.yuv(x: sampleX, y: sampleY).y)
                    bits = bits << 1 | (brightness > 128 ? 1 : 0)
                }
                cells[row] = bits
            }
            let distances = Self.rows.map { glyph in
                zip(glyph, cells).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
            }
            guard let best = distances.indices.min(by: { distances[$0] < distances[$1] }), distances[best] <= 3
            else { return nil }
            text.append(Self.characters[best])
        }
        return text
    }
}
