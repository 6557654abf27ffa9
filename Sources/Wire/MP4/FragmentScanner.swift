import ByteIO

/// Finds the init segment and the movie fragments of a fragmented MP4 file (ISO/IEC 14496-12 §8.8), without I/O:
/// it asks for the bytes it needs by offset, and the driver reads them from the file. Only box headers and the
/// `moov` and `moof` boxes are read; every `mdat` is skipped, so indexing an hour of video reads a few hundred
/// kilobytes.
///
/// The driver:
/// ```swift
/// var scanner = FragmentScanner(fileSize: size)
/// var step = scanner.start()
/// while case .read(let offset, let count) = step { step = try scanner.received(pread(offset, count)) }
/// guard case .done(let index) = step
/// ```
/// A read may return fewer bytes than asked for (the scanner asks again for the rest); an empty one means the file
/// ended there. A box cut short at the end of the file (a recording still being written, or cut by a crash) ends the
/// index at the last whole fragment; bytes that are not boxes, a fragment before the `moov`, or a box bigger than
/// its limit throw.
public struct FragmentScanner: Sendable {
    /// What the driver is to do next.
    public enum Step: Sendable, Equatable {
        /// Read `count` bytes at `offset` and pass them to ``FragmentScanner/received(_:)``.
        case read(offset: Int, count: Int)
        /// The file is indexed.
        case done(FragmentIndex)
    }

    /// The largest `moov` read: ours are about a kilobyte (two tracks, empty sample tables, §8.8.1).
    public static let maximumMovieBytes = 1 << 20
    /// The largest `moof` read: 16 bytes per sample in a `trun` (§8.8.8) makes 4 MiB about 260 000 samples.
    public static let maximumFragmentHeaderBytes = 4 << 20
    /// §4.2: a box header is a 32-bit size and a type, then a 64-bit size when the first is 1.
    static let headerBytes = 8
    static let largeHeaderBytes = 16

    private enum Body {
        case movie
        case fragment
    }

    private struct Reading {
        var offset: Int
        var count: Int
        var bytes: [UInt8] = []
    }

    private enum State {
        /// Reading a top-level box header.
        case header(Reading)
        /// Reading the payload of a `moov` or `moof` that spans `box`.
        case body(Reading, Body, box: Range<Int>)
        case finished
    }

    private struct Track {
        var id: UInt32
        var timescale: UInt32
        var isVideo: Bool
        var defaultDuration: UInt32 = 0
        var defaultFlags: UInt32 = 0
    }

    /// A `moof` read, waiting for its `mdat`.
    private struct PendingFragment {
        var offset: Int
        var decodeTime: UInt64
        var duration: UInt64
        var startsWithSyncSample: Bool
    }

    private let fileSize: Int
    private var state: State
    private var tracks: [Track] = []
    private var initEnd: Int?
    private var pending: PendingFragment?
    private var fragments: [FragmentIndex.Fragment] = []

    /// A scanner of a file of `fileSize` bytes.
    public init(fileSize: Int) {
        self.fileSize = max(0, fileSize)
        state = .finished
    }

    /// The first read: the first box's header.
    /// - Throws: `MP4Error` (`invalidFile`) when the file is too short to hold a box.
    public mutating func start() throws(MP4Error) -> Step {
        try header(at: 0)
    }

    /// Takes bytes the last ``Step/read(offset:count:)`` asked for (all or the first of them).
    /// - Returns: the next read, or the index.
    /// - Throws: `MP4Error` (`invalidFile`) when the file is not fragmented MP4.
    public mutating func received(_ bytes: [UInt8]) throws(MP4Error) -> Step {
        switch state {
        case .finished:
            return try finish()
        case .header(var reading):
            guard !bytes.isEmpty else { return try finish() }
            reading.bytes += bytes.prefix(reading.count - reading.bytes.count)
            guard reading.bytes.count == reading.count else {
                state = .header(reading)
                return .read(offset: reading.offset + reading.bytes.count, count: reading.count - reading.bytes.count)
            }
            return try boxHeader(reading.bytes, at: reading.offset)
        case .body(var reading, let body, let box):
            guard !bytes.isEmpty else { return try finish() }
            reading.bytes += bytes.prefix(reading.count - reading.bytes.count)
            guard reading.bytes.count == reading.count else {
                state = .body(reading, body, box: box)
                return .read(offset: reading.offset + reading.bytes.count, count: reading.count - reading.bytes.count)
            }
            switch body {
            case .movie:
                try movie(reading.bytes)
                initEnd = box.upperBound
            case .fragment:
                pending = try fragment(reading.bytes, at: box.lowerBound)
            }
            return try header(at: box.upperBound)
        }
    }

    // MARK: Top-level boxes

    private mutating func header(at offset: Int) throws(MP4Error) -> Step {
        let count = min(Self.largeHeaderBytes, fileSize - offset)
        guard count >= Self.headerBytes else { return try finish() }
        state = .header(Reading(offset: offset, count: count))
        return .read(offset: offset, count: count)
    }

    private mutating func boxHeader(_ bytes: [UInt8], at offset: Int) throws(MP4Error) -> Step {
        var reader = ByteReader(bytes)
        guard let size32 = reader.readUInt32(), let type = reader.readUInt32() else { return try finish() }
        var headerSize = Self.headerBytes
        var size = Int(size32)
        if size32 == 1 {
            guard let large = reader.readUInt64() else { return try finish() }
            guard large <= UInt64(Int.max) else { throw Self.invalid("a box of \(large) bytes at \(offset)") }
            size = Int(large)
            headerSize = Self.largeHeaderBytes
        } else if size32 == 0 {
            size = fileSize - offset  // §4.2: the box runs to the end of the file
        }
        guard size >= headerSize else {
            throw Self.invalid("a box at \(offset) says it has \(size) bytes, less than its header")
        }
        // A box cut short: the file is still being written, or was cut; it ends at the last whole box.
        guard size <= fileSize - offset else { return try finish() }
        let box = offset..<(offset + size)
        let payload = (offset + headerSize)..<box.upperBound
        switch type {
        case Self.code("moov"):
            guard initEnd == nil else { throw Self.invalid("a second moov at \(offset)") }
            guard payload.count <= Self.maximumMovieBytes else {
                throw Self.invalid("a moov of \(size) bytes, more than \(Self.maximumMovieBytes)")
            }
            state = .body(Reading(offset: payload.lowerBound, count: payload.count), .movie, box: box)
            return .read(offset: payload.lowerBound, count: payload.count)
        case Self.code("moof"):
            guard initEnd != nil else { throw Self.invalid("a moof at \(offset) before the moov") }
            guard payload.count <= Self.maximumFragmentHeaderBytes else {
                throw Self.invalid("a moof of \(size) bytes, more than \(Self.maximumFragmentHeaderBytes)")
            }
            pending = nil  // a moof without its mdat holds no media
            guard !payload.isEmpty else { return try header(at: box.upperBound) }
            state = .body(Reading(offset: payload.lowerBound, count: payload.count), .fragment, box: box)
            return .read(offset: payload.lowerBound, count: payload.count)
        case Self.code("mdat"):
            if let fragment = pending {
                fragments.append(FragmentIndex.Fragment(range: fragment.offset..<box.upperBound,
                                                        decodeTime: fragment.decodeTime, duration: fragment.duration,
                                                        startsWithSyncSample: fragment.startsWithSyncSample))
                pending = nil
            }
            return try header(at: box.upperBound)
        default:
            return try header(at: box.upperBound)
        }
    }

    private mutating func finish() throws(MP4Error) -> Step {
        state = .finished
        guard let initEnd else { throw Self.invalid("no moov: this is not a fragmented MP4 file") }
        guard let timing = tracks.first(where: \.isVideo) ?? tracks.first else {
            throw Self.invalid("the moov has no track")
        }
        return .done(FragmentIndex(initSegment: 0..<initEnd, timingTrackID: timing.id, timescale: timing.timescale,
                                   hasVideo: timing.isVideo, fragments: fragments))
    }

    // MARK: moov

    /// §8.3.2 `tkhd`, §8.4.2 `mdhd`, §8.4.3 `hdlr`, §8.8.3 `trex`.
    private mutating func movie(_ bytes: [UInt8]) throws(MP4Error) {
        var defaults: [UInt32: (duration: UInt32, flags: UInt32)] = [:]
        for child in try Self.children(bytes, 0..<bytes.count) {
            switch child.type {
            case Self.code("trak"):
                try tracks.append(track(bytes, child.payload))
            case Self.code("mvex"):
                for trex in try Self.children(bytes, child.payload) where trex.type == Self.code("trex") {
                    var reader = ByteReader(bytes[trex.payload])
                    guard reader.skip(4), let id = reader.readUInt32(), reader.skip(4),
                          let duration = reader.readUInt32(), reader.skip(4), let flags = reader.readUInt32() else {
                        throw Self.invalid("a trex of \(trex.payload.count) bytes")
                    }
                    defaults[id] = (duration, flags)
                }
            default:
                break
            }
        }
        for index in tracks.indices {
            if let found = defaults[tracks[index].id] {
                tracks[index].defaultDuration = found.duration
                tracks[index].defaultFlags = found.flags
            }
        }
    }

    private func track(_ bytes: [UInt8], _ range: Range<Int>) throws(MP4Error) -> Track {
        var id: UInt32?
        var timescale: UInt32?
        var isVideo = false
        for child in try Self.children(bytes, range) {
            if child.type == Self.code("tkhd") {
                var reader = ByteReader(bytes[child.payload])
                guard let version = reader.readUInt8(), reader.skip(3 + (version == 1 ? 16 : 8)),
                      let found = reader.readUInt32() else { throw Self.invalid("a tkhd too short") }
                id = found
            } else if child.type == Self.code("mdia") {
                for box in try Self.children(bytes, child.payload) {
                    var reader = ByteReader(bytes[box.payload])
                    if box.type == Self.code("mdhd") {
                        guard let version = reader.readUInt8(), reader.skip(3 + (version == 1 ? 16 : 8)),
                              let found = reader.readUInt32() else { throw Self.invalid("an mdhd too short") }
                        timescale = found
                    } else if box.type == Self.code("hdlr") {
                        guard reader.skip(8), let handler = reader.readUInt32() else {
                            throw Self.invalid("an hdlr too short")
                        }
                        isVideo = handler == Self.code("vide")
                    }
                }
            }
        }
        guard let id, let timescale, timescale > 0 else {
            throw Self.invalid("a trak without a track ID or a timescale")
        }
        return Track(id: id, timescale: timescale, isVideo: isVideo)
    }

    // MARK: moof

    /// One track's run in a fragment, in its own ticks.
    private struct Run {
        var trackID: UInt32
        var decodeTime: UInt64?
        var duration: UInt64 = 0
        var firstFlags: UInt32?
    }

    /// §8.8.7 `tfhd`, §8.8.12 `tfdt`, §8.8.8 `trun`.
    private func fragment(_ bytes: [UInt8], at offset: Int) throws(MP4Error) -> PendingFragment {
        var runs: [Run] = []
        for traf in try Self.children(bytes, 0..<bytes.count) where traf.type == Self.code("traf") {
            var run: Run?
            var defaultDuration: UInt32?
            var defaultFlags: UInt32?
            for box in try Self.children(bytes, traf.payload) {
                let known = [Self.code("tfhd"), Self.code("tfdt"), Self.code("trun")]
                guard known.contains(box.type) else { continue }
                var reader = ByteReader(bytes[box.payload])
                guard let version = reader.readUInt8(), let flags = reader.readUInt24() else {
                    throw Self.invalid("a \(Self.name(box.type)) too short in the moof at \(offset)")
                }
                switch box.type {
                case Self.code("tfhd"):
                    guard let id = reader.readUInt32(),
                          flags & 0x01 == 0 || reader.skip(8),  // base-data-offset
                          flags & 0x02 == 0 || reader.skip(4)  // sample-description-index
                    else { throw Self.invalid("a tfhd too short in the moof at \(offset)") }
                    if flags & 0x08 != 0 {
                        guard let value = reader.readUInt32() else { throw Self.invalid("a tfhd too short") }
                        defaultDuration = value
                    }
                    if flags & 0x10 != 0 && !reader.skip(4) { throw Self.invalid("a tfhd too short") }
                    if flags & 0x20 != 0 {
                        guard let value = reader.readUInt32() else { throw Self.invalid("a tfhd too short") }
                        defaultFlags = value
                    }
                    guard let track = tracks.first(where: { $0.id == id }) else {
                        throw Self.invalid("a traf of track \(id), which the moov does not have")
                    }
                    defaultDuration = defaultDuration ?? track.defaultDuration
                    defaultFlags = defaultFlags ?? track.defaultFlags
                    run = Run(trackID: id)
                case Self.code("tfdt"):
                    let time = version == 1 ? reader.readUInt64() : reader.readUInt32().map(UInt64.init)
                    guard let time, run != nil else { throw Self.invalid("a tfdt before its tfhd, or too short") }
                    run?.decodeTime = time
                case Self.code("trun"):
                    guard run != nil, let count = reader.readUInt32(),
                          flags & 0x01 == 0 || reader.skip(4)  // data-offset
                    else { throw Self.invalid("a trun before its tfhd, or too short") }
                    var firstFlags: UInt32?
                    if flags & 0x04 != 0 {
                        guard let value = reader.readUInt32() else { throw Self.invalid("a trun too short") }
                        firstFlags = value
                    }
                    let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
                    guard UInt64(count) * UInt64(fields * 4) <= UInt64(reader.readableBytes) else {
                        throw Self.invalid("a trun of \(count) samples in \(box.payload.count) bytes")
                    }
                    for index in 0..<Int(count) {
                        var duration = defaultDuration ?? 0
                        var sampleFlags = defaultFlags ?? 0
                        if flags & 0x100 != 0 { duration = reader.readUInt32() ?? 0 }
                        if flags & 0x200 != 0 { _ = reader.skip(4) }
                        if flags & 0x400 != 0 { sampleFlags = reader.readUInt32() ?? 0 }
                        if flags & 0x800 != 0 { _ = reader.skip(4) }
                        if index == 0 && run?.firstFlags == nil { run?.firstFlags = firstFlags ?? sampleFlags }
                        run?.duration &+= UInt64(duration)
                    }
                default:
                    break
                }
            }
            if let run { runs.append(run) }
        }
        return timed(runs, at: offset)
    }

    /// The fragment's times on the timing track (another track's, scaled, when it has no run there).
    private func timed(_ runs: [Run], at offset: Int) -> PendingFragment {
        let timing = tracks.first(where: \.isVideo) ?? tracks[0]
        let previousEnd = fragments.last.map { $0.decodeTime &+ $0.duration } ?? 0
        if let run = runs.first(where: { $0.trackID == timing.id }) {
            let sync = run.firstFlags.map { SampleFlags(rawValue: $0).isSync } ?? false
            return PendingFragment(offset: offset, decodeTime: run.decodeTime ?? previousEnd, duration: run.duration,
                                   startsWithSyncSample: sync)
        }
        let scaled = runs.compactMap { run -> UInt64? in
            guard let track = tracks.first(where: { $0.id == run.trackID }) else { return nil }
            return run.duration.multipliedFullWidth(by: UInt64(timing.timescale)).low / UInt64(track.timescale)
        }
        return PendingFragment(offset: offset, decodeTime: previousEnd, duration: scaled.max() ?? 0,
                               startsWithSyncSample: false)
    }

    // MARK: Boxes inside a box

    private struct Child {
        var type: UInt32
        var payload: Range<Int>
    }

    /// The boxes inside `range` of `bytes`, in order.
    private static func children(_ bytes: [UInt8], _ range: Range<Int>) throws(MP4Error) -> [Child] {
        var found: [Child] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= headerBytes {
            var reader = ByteReader(bytes[offset..<range.upperBound])
            guard let size32 = reader.readUInt32(), let type = reader.readUInt32() else { break }
            var size = Int(size32)
            var headerSize = headerBytes
            if size32 == 1 {
                guard let large = reader.readUInt64(), large <= UInt64(range.upperBound - offset) else {
                    throw invalid("a \(name(type)) box that overruns its parent")
                }
                size = Int(large)
                headerSize = largeHeaderBytes
            } else if size32 == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerSize, size <= range.upperBound - offset else {
                throw invalid("a \(name(type)) box of \(size) bytes where \(range.upperBound - offset) are left")
            }
            found.append(Child(type: type, payload: (offset + headerSize)..<(offset + size)))
            offset += size
        }
        return found
    }

    /// A box type as the 32-bit number it is on the wire.
    static func code(_ text: StaticString) -> UInt32 {
        text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    private static func name(_ type: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }
        return bytes.allSatisfy { (0x20..<0x7F).contains($0) } ? String(decoding: bytes, as: UTF8.self) : "?"
    }

    private static func invalid(_ message: String) -> MP4Error {
        MP4Error(.invalidFile, message)
    }
}
