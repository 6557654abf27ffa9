import ByteIO

/// The CMAF header ("init segment", the HLS Media Initialization Section): `ftyp` and a `moov` describing an H.264
/// track, an AAC track or both, with `mvex` announcing that the samples come in movie fragments
/// (ISO/IEC 14496-12 §8.8; ISO/IEC 23000-19 §7.3.2).
///
/// ```
/// ftyp                      iso6, compatible iso6 cmfc mp41
/// moov
///   mvhd                    timescale 1000, duration 0 (the length is unknown while live)
///   trak (video, ID 1)      tkhd, mdia { mdhd 90 kHz, hdlr vide, minf { vmhd, dinf, stbl { stsd avc1 { avcC } } } }
///   trak (audio, ID 2)      tkhd, mdia { mdhd rate, hdlr soun, minf { smhd, dinf, stbl { stsd mp4a { esds } } } }
///   mvex                    trex per track
/// ```
/// The sample tables in `stbl` are empty, as fragmented files require (§8.8.1).
public enum InitSegment {
    /// `ftyp` brands: ISO base media version 6 (fragments with `tfdt`), CMAF, MP4.
    static let majorBrand: FourCC = "iso6"
    static let compatibleBrands: [FourCC] = ["iso6", "cmfc", "mp41"]
    /// ISO 639-2/T "und" packed as three 5-bit letters (§8.4.2.3).
    static let undeterminedLanguage: UInt16 = 0x55C4

    /// Writes the init segment for the given tracks.
    /// - Precondition: at least one track.
    public static func make(video: VideoTrack?, audio: AudioTrack?) -> [UInt8] {
        precondition(video != nil || audio != nil, "an init segment needs a track")
        var writer = ByteWriter(capacity: 1024)
        writer.writeBox("ftyp") { box in
            box.writeBytes(majorBrand.bytes)
            box.writeUInt32(0)  // minor_version
            for brand in compatibleBrands { box.writeBytes(brand.bytes) }
        }
        writer.writeBox("moov") { moov in
            writeMovieHeader(into: &moov)
            if let video { writeTrack(video: video, into: &moov) }
            if let audio { writeTrack(audio: audio, into: &moov) }
            moov.writeBox("mvex") { mvex in
                for trackID in [video.map { _ in VideoTrack.trackID }, audio.map { _ in AudioTrack.trackID }]
                    .compactMap({ $0 }) {
                    // §8.8.3: defaults that every fragment overrides per sample.
                    mvex.writeFullBox("trex") { trex in
                        trex.writeUInt32(trackID)
                        trex.writeUInt32(1)  // default_sample_description_index
                        trex.writeUInt32(0)  // default_sample_duration
                        trex.writeUInt32(0)  // default_sample_size
                        trex.writeUInt32(0)  // default_sample_flags
                    }
                }
            }
        }
        return writer.bytes
    }

    /// §8.2.2 `mvhd`, version 0.
    private static func writeMovieHeader(into moov: inout ByteWriter) {
        moov.writeFullBox("mvhd") { mvhd in
            mvhd.writeUInt32(0)  // creation_time
            mvhd.writeUInt32(0)  // modification_time
            mvhd.writeUInt32(1000)  // timescale
            mvhd.writeUInt32(0)  // duration: unknown
            mvhd.writeUInt32(0x0001_0000)  // rate 1.0
            mvhd.writeUInt16(0x0100)  // volume 1.0
            mvhd.writeZeros(2 + 8)  // reserved
            mvhd.writeUnityMatrix()
            mvhd.writeZeros(24)  // pre_defined
            mvhd.writeUInt32(AudioTrack.trackID + 1)  // next_track_ID
        }
    }

    /// §8.3.2 `tkhd`, version 0, flags track_enabled | track_in_movie.
    private static func writeTrackHeader(trackID: UInt32, isAudio: Bool, width: Int, height: Int,
                                         into trak: inout ByteWriter) {
        trak.writeFullBox("tkhd", flags: 0x000003) { tkhd in
            tkhd.writeUInt32(0)  // creation_time
            tkhd.writeUInt32(0)  // modification_time
            tkhd.writeUInt32(trackID)
            tkhd.writeUInt32(0)  // reserved
            tkhd.writeUInt32(0)  // duration
            tkhd.writeZeros(8)  // reserved
            tkhd.writeUInt16(0)  // layer
            tkhd.writeUInt16(0)  // alternate_group
            tkhd.writeUInt16(isAudio ? 0x0100 : 0)  // volume
            tkhd.writeUInt16(0)  // reserved
            tkhd.writeUnityMatrix()
            tkhd.writeUInt32(UInt32(clamping: width) << 16)  // width, 16.16 fixed point
            tkhd.writeUInt32(UInt32(clamping: height) << 16)  // height, 16.16 fixed point
        }
    }

    /// `mdhd` (§8.4.2) and `hdlr` (§8.4.3) of a track's `mdia`.
    private static func writeMediaHeaders(timescale: UInt32, handler: FourCC, name: String,
                                          into mdia: inout ByteWriter) {
        mdia.writeFullBox("mdhd") { mdhd in
            mdhd.writeUInt32(0)  // creation_time
            mdhd.writeUInt32(0)  // modification_time
            mdhd.writeUInt32(timescale)
            mdhd.writeUInt32(0)  // duration
            mdhd.writeUInt16(undeterminedLanguage)  // pad bit 0 + language
            mdhd.writeUInt16(0)  // pre_defined
        }
        mdia.writeFullBox("hdlr") { hdlr in
            hdlr.writeUInt32(0)  // pre_defined
            hdlr.writeBytes(handler.bytes)
            hdlr.writeZeros(12)  // reserved
            hdlr.writeBytes(Array(name.utf8))
            hdlr.writeUInt8(0)  // null-terminated name
        }
    }

    /// `dinf` with one self-contained `url ` entry (§8.7.1, flags 1: the media is in this file), and the empty
    /// sample tables of a fragmented track around `stsd`.
    private static func writeDataAndSampleTables(into minf: inout ByteWriter,
                                                 sampleEntry: (inout ByteWriter) -> Void) {
        minf.writeBox("dinf") { dinf in
            dinf.writeFullBox("dref") { dref in
                dref.writeUInt32(1)  // entry_count
                dref.writeFullBox("url ", flags: 1) { _ in }
            }
        }
        minf.writeBox("stbl") { stbl in
            stbl.writeFullBox("stsd") { stsd in
                stsd.writeUInt32(1)  // entry_count
                sampleEntry(&stsd)
            }
            stbl.writeFullBox("stts") { $0.writeUInt32(0) }  // entry_count
            stbl.writeFullBox("stsc") { $0.writeUInt32(0) }  // entry_count
            stbl.writeFullBox("stsz") { stsz in
                stsz.writeUInt32(0)  // sample_size
                stsz.writeUInt32(0)  // sample_count
            }
            stbl.writeFullBox("stco") { $0.writeUInt32(0) }  // entry_count
        }
    }

    private static func writeTrack(video: VideoTrack, into moov: inout ByteWriter) {
        moov.writeBox("trak") { trak in
            writeTrackHeader(trackID: VideoTrack.trackID, isAudio: false, width: video.width, height: video.height,
                             into: &trak)
            trak.writeBox("mdia") { mdia in
                writeMediaHeaders(timescale: VideoTrack.timescale, handler: "vide", name: "Stream video",
                                  into: &mdia)
                mdia.writeBox("minf") { minf in
                    // §12.1.2 vmhd: flags 1, graphicsmode copy, opcolor 0.
                    minf.writeFullBox("vmhd", flags: 1) { $0.writeZeros(8) }
                    writeDataAndSampleTables(into: &minf) { stsd in
                        writeVisualSampleEntry(video, into: &stsd)
                    }
                }
            }
        }
    }

    private static func writeTrack(audio: AudioTrack, into moov: inout ByteWriter) {
        moov.writeBox("trak") { trak in
            writeTrackHeader(trackID: AudioTrack.trackID, isAudio: true, width: 0, height: 0, into: &trak)
            trak.writeBox("mdia") { mdia in
                writeMediaHeaders(timescale: audio.timescale, handler: "soun", name: "Stream audio", into: &mdia)
                mdia.writeBox("minf") { minf in
                    // §12.2.2 smhd: balance 0, reserved.
                    minf.writeFullBox("smhd") { $0.writeZeros(4) }
                    writeDataAndSampleTables(into: &minf) { stsd in
                        writeAudioSampleEntry(audio, into: &stsd)
                    }
                }
            }
        }
    }

    /// ISO/IEC 14496-15 §5.4.2.1 `avc1`: a VisualSampleEntry (14496-12 §12.1.3) with the `avcC` box.
    private static func writeVisualSampleEntry(_ video: VideoTrack, into stsd: inout ByteWriter) {
        stsd.writeBox("avc1") { entry in
            entry.writeZeros(6)  // reserved
            entry.writeUInt16(1)  // data_reference_index
            entry.writeZeros(2 + 2 + 12)  // pre_defined, reserved, pre_defined
            entry.writeUInt16(UInt16(clamping: video.width))
            entry.writeUInt16(UInt16(clamping: video.height))
            entry.writeUInt32(0x0048_0000)  // horizresolution 72 dpi
            entry.writeUInt32(0x0048_0000)  // vertresolution 72 dpi
            entry.writeUInt32(0)  // reserved
            entry.writeUInt16(1)  // frame_count
            entry.writeZeros(32)  // compressorname: empty Pascal string
            entry.writeUInt16(0x0018)  // depth: colour, no alpha
            entry.writeUInt16(0xFFFF)  // pre_defined = -1
            entry.writeBox("avcC") { $0.writeBytes(video.configurationBytes) }
        }
    }

    /// ISO/IEC 14496-14 §5.6 `mp4a`: an AudioSampleEntry (14496-12 §12.2.3) with the `esds` box.
    private static func writeAudioSampleEntry(_ audio: AudioTrack, into stsd: inout ByteWriter) {
        stsd.writeBox("mp4a") { entry in
            entry.writeZeros(6)  // reserved
            entry.writeUInt16(1)  // data_reference_index
            entry.writeZeros(8)  // reserved
            entry.writeUInt16(UInt16(clamping: audio.channelCount))
            entry.writeUInt16(16)  // samplesize
            entry.writeUInt16(0)  // pre_defined
            entry.writeUInt16(0)  // reserved
            // 16.16 fixed point; rates above 65535 Hz do not fit and are written as 0 (the esds has the rate).
            let rate = audio.configuration.sampleRate
            entry.writeUInt32(rate <= 0xFFFF ? UInt32(rate) << 16 : 0)
            entry.writeFullBox("esds") { esds in
                ElementaryStreamDescriptor.write(audioSpecificConfig: audio.configurationBytes, into: &esds)
            }
        }
    }
}
