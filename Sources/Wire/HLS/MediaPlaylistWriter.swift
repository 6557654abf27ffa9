/// Writes an LL-HLS media playlist (RFC 8216bis §4) for a window of segments.
///
/// ```
/// #EXTM3U
/// #EXT-X-VERSION:6                         (EXT-X-MAP in a playlist without EXT-X-I-FRAMES-ONLY, §8)
/// #EXT-X-TARGETDURATION:2
/// #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.002
/// #EXT-X-PART-INF:PART-TARGET=0.334
/// #EXT-X-MEDIA-SEQUENCE:10
/// #EXT-X-DISCONTINUITY-SEQUENCE:1          (once a discontinuity left the window)
/// #EXT-X-MAP:URI="init-EPOCH-0.mp4"
/// #EXT-X-PROGRAM-DATE-TIME:2026-11-30T12:00:20.000Z
/// #EXT-X-PART:DURATION=0.33400,URI="part-EPOCH-10.0.m4s",INDEPENDENT=YES     (last three target durations only)
/// #EXTINF:2.00000,
/// seg-EPOCH-10.m4s
/// ...
/// #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-EPOCH-13.2.m4s"                  (or #EXT-X-ENDLIST)
/// ```
/// A player without LL-HLS reads the same text as a plain live playlist: it ignores the tags it does not know and
/// plays the EXTINF segments.
struct MediaPlaylistWriter {
    let configuration: HLSConfiguration
    let epoch: String
    let targetDuration: Int
    let segments: [HLSSegment]
    let openSegment: HLSSegment?
    let discontinuitySequence: Int
    let isEnded: Bool
    let preloadHint: ResourceName?

    /// §6.2.2: EXT-X-PART tags are listed for the segments within three target durations of the playlist's end.
    static let partListingTargetDurations: Int64 = 3

    var text: String {
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:6",
            "#EXT-X-TARGETDURATION:\(targetDuration)",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK="
                + DecimalText.milliseconds(Int64(configuration.partHoldBackMilliseconds)),
            "#EXT-X-PART-INF:PART-TARGET=" + DecimalText.milliseconds(Int64(configuration.partTargetMilliseconds)),
            "#EXT-X-MEDIA-SEQUENCE:\((segments.first ?? openSegment)?.msn ?? 0)",
        ]
        let listed = segments + [openSegment].compactMap { $0 }
        // The first segment's own EXT-X-DISCONTINUITY is not written (nothing before it to be discontinuous
        // with): it counts as removed, in the sequence number.
        let sequence = discontinuitySequence + (listed.first?.isDiscontinuity == true ? 1 : 0)
        if sequence > 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(sequence)") }
        let end = listed.last.map { $0.startTicks + ($0.durationTicks ?? $0.partTicks) } ?? 0
        let partsFrom = end - Self.partListingTargetDurations * Int64(targetDuration) * 90_000
        var currentInit: Int?
        for segment in listed {
            if segment.isDiscontinuity && segment.msn != listed.first?.msn { lines.append("#EXT-X-DISCONTINUITY") }
            if segment.durationTicks == nil && segment.parts.isEmpty { break }
            if segment.initIndex != currentInit {
                lines.append("#EXT-X-MAP:URI=\"\(ResourceName.initSegment(epoch: epoch, index: segment.initIndex))\"")
                currentInit = segment.initIndex
            }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(segment.programDateTime)")
            let segmentEnd = segment.startTicks + (segment.durationTicks ?? segment.partTicks)
            if segmentEnd > partsFrom {
                for part in segment.parts {
                    var line = "#EXT-X-PART:DURATION=" + DecimalText.seconds(part.durationTicks, scale: 90_000)
                        + ",URI=\"\(ResourceName.part(epoch: epoch, msn: segment.msn, index: part.index))\""
                    if part.isIndependent { line += ",INDEPENDENT=YES" }
                    lines.append(line)
                }
            }
            if let duration = segment.durationTicks {
                lines.append("#EXTINF:" + DecimalText.seconds(duration, scale: 90_000) + ",")
                lines.append(ResourceName.segment(epoch: epoch, msn: segment.msn).description)
            }
        }
        if isEnded {
            lines.append("#EXT-X-ENDLIST")
        } else if let preloadHint {
            lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(preloadHint)\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
