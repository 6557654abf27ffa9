import ByteIO

/// A CMAF chunk: one `moof` and the `mdat` holding its samples (ISO/IEC 14496-12 §8.8.4–§8.8.12).
///
/// ```
/// moof
///   mfhd                sequence_number
///   traf (per track)
///     tfhd              flags default-base-is-moof (0x020000): data offsets count from the moof's first byte
///     tfdt  version 1   baseMediaDecodeTime, 64 bits
///     trun  version 1   flags data-offset | duration | size | flags | composition offset (0xF01): signed offsets
/// mdat                  each track's samples in turn, in the order of the trafs
/// ```
public enum MovieFragment {
    /// `tfhd` flags: default-base-is-moof (§8.8.7.1).
    static let defaultBaseIsMoof: UInt32 = 0x02_0000
    /// `trun` flags: data-offset-present, sample-duration-, sample-size-, sample-flags- and
    /// sample-composition-time-offsets-present (§8.8.8.1).
    static let trunFlags: UInt32 = 0x000001 | 0x000100 | 0x000200 | 0x000400 | 0x000800
    /// Bytes per `trun` sample entry with those flags.
    static let trunEntrySize = 16

    /// Writes a fragment. Tracks without samples are left out.
    /// - Parameters:
    ///   - sequenceNumber: the `mfhd` sequence number, increasing by one per fragment of a stream.
    ///   - tracks: each track's run.
    /// - Returns: the `moof` and `mdat` bytes; empty when no track has a sample.
    public static func make(sequenceNumber: UInt32, tracks: [TrackFragment]) -> [UInt8] {
        let tracks = tracks.filter { !$0.samples.isEmpty }
        guard !tracks.isEmpty else { return [] }
        let mediaSize = tracks.reduce(0) { total, track in track.samples.reduce(total) { $0 + $1.data.count } }
        var writer = ByteWriter(capacity: 256 + tracks.reduce(0) { $0 + $1.samples.count * trunEntrySize }
                                    + mediaSize)
        // Each trun's data_offset is known only once the moof's size is; remember where they go.
        var dataOffsetPositions: [Int] = []
        writer.writeBox("moof") { moof in
            moof.writeFullBox("mfhd") { $0.writeUInt32(sequenceNumber) }
            for track in tracks {
                moof.writeBox("traf") { traf in
                    traf.writeFullBox("tfhd", flags: defaultBaseIsMoof) { $0.writeUInt32(track.trackID) }
                    traf.writeFullBox("tfdt", version: 1) { $0.writeUInt64(track.baseDecodeTime) }
                    traf.writeFullBox("trun", version: 1, flags: trunFlags) { trun in
                        trun.writeUInt32(UInt32(track.samples.count))
                        dataOffsetPositions.append(trun.count)
                        trun.writeUInt32(0)  // data_offset, filled in below
                        for sample in track.samples {
                            trun.writeUInt32(sample.duration)
                            trun.writeUInt32(UInt32(sample.data.count))
                            trun.writeUInt32(sample.flags.rawValue)
                            trun.writeUInt32(UInt32(bitPattern: sample.compositionOffset))
                        }
                    }
                }
            }
        }
        let moofSize = writer.count
        let mdatHeaderSize = 8
        var offset = moofSize + mdatHeaderSize
        for (track, position) in zip(tracks, dataOffsetPositions) {
            writer.setUInt(UInt64(offset), at: position, width: 4)
            offset += track.samples.reduce(0) { $0 + $1.data.count }
        }
        writer.writeBox("mdat") { mdat in
            for track in tracks {
                for sample in track.samples { mdat.writeBytes(sample.data) }
            }
        }
        return writer.bytes
    }
}
