import AppLogic
import CoreMedia
import Encoders
import Foundation
import Synchronization
import VideoToolbox

/// H.264 through VideoToolbox's hardware encoder, behind the Encoders module's `VideoEncoder` protocol.
///
/// Real-time, no B-frames (pts = dts), at most `MemoryBudget.encoderFramesInFlight` frames held. VideoToolbox delivers
/// each frame on its own thread when it is done; `encode` hands it the picture and returns what was delivered since
/// the last call (the protocol allows packets of earlier pictures), so the caller's thread never waits for the
/// hardware. `flush` waits for the rest. Screen frames of another size are scaled by VideoToolbox itself, which is
/// what makes the no-PiP path a passthrough.
final class VideoToolboxEncoder: VideoEncoder {
    private(set) var configuration: VideoEncoderConfiguration
    private(set) var parameterSets: H264ParameterSets?
    private let session: VTCompressionSession
    private let sink = PacketSink()
    private var forceNextKeyframe = false
    private var finished = false
    private var planarPool: CVPixelBufferPool?

    /// Collects what the output handler delivers on VideoToolbox's thread.
    private final class PacketSink: Sendable {
        let packets = Mutex<[Output]>([])
    }

    private struct Output: Sendable {
        var packet: EncodedVideoPacket
        var parameterSets: H264ParameterSets?
    }

    init(configuration: VideoEncoderConfiguration) throws {
        try configuration.validate()
        var made: VTCompressionSession?
        let status = VTCompressionSessionCreate(
            allocator: nil, width: Int32(configuration.width), height: Int32(configuration.height),
            codecType: kCMVideoCodecType_H264, encoderSpecification: nil, imageBufferAttributes: nil,
            compressedDataAllocator: nil, outputCallback: nil, refcon: nil, compressionSessionOut: &made)
        guard status == noErr, let made else {
            throw EncoderError(.openFailed, "VideoToolbox cannot open an H.264 encoder for \(configuration.summary) "
                                   + "(OSStatus \(status)); try a lower quality")
        }
        session = made
        self.configuration = configuration
        set(kVTCompressionPropertyKey_RealTime, kCFBooleanTrue)
        set(kVTCompressionPropertyKey_ProfileLevel, kVTProfileLevel_H264_High_AutoLevel)
        set(kVTCompressionPropertyKey_AllowFrameReordering, kCFBooleanFalse)
        set(kVTCompressionPropertyKey_ExpectedFrameRate, NSNumber(value: configuration.framesPerSecond))
        set(kVTCompressionPropertyKey_MaxKeyFrameInterval, NSNumber(value: configuration.keyframeIntervalFrames))
        set(kVTCompressionPropertyKey_MaxKeyFrameIntervalDuration,
            NSNumber(value: configuration.keyframeIntervalSeconds))
        set(kVTCompressionPropertyKey_MaxFrameDelayCount, NSNumber(value: MemoryBudget.encoderFramesInFlight))
        _ = applyBitrate(configuration.bitrateKbps)
        VTCompressionSessionPrepareToEncodeFrames(session)
    }

    deinit {
        VTCompressionSessionInvalidate(session)
    }

    /// Encodes a pixel buffer as it is (ReplayKit's frame or the compositor's output).
    /// - Parameters:
    ///   - pixelBuffer: any size; VideoToolbox scales it to the configured size.
    ///   - pts: milliseconds, increasing.
    func encode(_ pixelBuffer: CVPixelBuffer, pts: Int64) throws -> [EncodedVideoPacket] {
        guard !finished else { throw EncoderError(.finished, "the video encoder was flushed; start a new one") }
        let time = CMTime(value: pts, timescale: 1000)
        var options: CFDictionary?
        if forceNextKeyframe {
            options = [kVTEncodeFrameOptionKey_ForceKeyFrame: kCFBooleanTrue] as CFDictionary
            forceNextKeyframe = false
        }
        let sink = self.sink
        let status = VTCompressionSessionEncodeFrame(session, imageBuffer: pixelBuffer, presentationTimeStamp: time,
                                                     duration: .invalid, frameProperties: options,
                                                     infoFlagsOut: nil) { status, _, sample in
            guard status == noErr, let sample, let output = Self.output(from: sample) else { return }
            sink.packets.withLock { $0.append(output) }
        }
        guard status == noErr else {
            throw EncoderError(.encodeFailed, "VideoToolbox refused a frame (OSStatus \(status))")
        }
        // No VTCompressionSessionCompleteFrames here: waiting for every frame held ReplayKit's thread, under the
        // sample handler's lock, for the whole hardware encode (issue 35 defect 9).
        return drain()
    }

    func encode(_ picture: I420Planes, pts: Int64) throws -> [EncodedVideoPacket] {
        guard let buffer = planarBuffer(for: picture) else {
            throw EncoderError(.invalidInput, "cannot copy a \(picture.width)x\(picture.height) picture for "
                                   + "VideoToolbox")
        }
        return try encode(buffer, pts: pts)
    }

    func flush() throws -> [EncodedVideoPacket] {
        finished = true
        VTCompressionSessionCompleteFrames(session, untilPresentationTimeStamp: .invalid)
        return drain()
    }

    func setBitrate(kbps: Int) throws {
        guard applyBitrate(kbps) else {
            throw EncoderError(.reconfigureFailed, "VideoToolbox kept \(configuration.bitrateKbps) kbps")
        }
        configuration.bitrateKbps = kbps
    }

    func forceKeyframe() {
        forceNextKeyframe = true
    }

    // MARK: - Private

    private func set(_ key: CFString, _ value: CFTypeRef?) {
        VTSessionSetProperty(session, key: key, value: value)
    }

    /// Average bitrate plus a hard cap of 1.5× over one second, so a burst cannot flood the uplink.
    private func applyBitrate(_ kbps: Int) -> Bool {
        let bits = kbps * 1000
        let average = VTSessionSetProperty(session, key: kVTCompressionPropertyKey_AverageBitRate,
                                           value: NSNumber(value: bits))
        let limits = [NSNumber(value: bits * 3 / 2 / 8), NSNumber(value: 1)] as CFArray
        let cap = VTSessionSetProperty(session, key: kVTCompressionPropertyKey_DataRateLimits, value: limits)
        return average == noErr && cap == noErr
    }

    private func drain() -> [EncodedVideoPacket] {
        let outputs = sink.packets.withLock { packets in
            defer { packets.removeAll(keepingCapacity: true) }
            return packets
        }
        for output in outputs {
            if let sets = output.parameterSets { parameterSets = sets }
        }
        return outputs.map(\.packet)
    }

    /// VideoToolbox's output as it is: NAL units after 4-byte lengths, the form an FLV tag carries, copied once out of
    /// the block buffer, behind the SPS and PPS on a keyframe (Encoders' `EncodedVideoPacket(lengthPrefixedUnitsOf:)`).
    private static func output(from sample: CMSampleBuffer) -> Output? {
        let time = CMSampleBufferGetPresentationTimeStamp(sample)
        let pts = time.isNumeric ? Int64((time.seconds * 1000).rounded()) : 0
        guard let block = CMSampleBufferGetDataBuffer(sample) else { return nil }
        let attachments = CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: false)
            as? [[CFString: Any]]
        let isKeyframe = !((attachments?.first?[kCMSampleAttachmentKey_NotSync] as? Bool) ?? false)
        var sets: H264ParameterSets?
        if isKeyframe, let format = CMSampleBufferGetFormatDescription(sample),
           let sps = parameterSet(format, index: 0), let pps = parameterSet(format, index: 1) {
            sets = H264ParameterSets(sps: sps, pps: pps)
        }
        let length = CMBlockBufferGetDataLength(block)
        guard let packet = EncodedVideoPacket(lengthPrefixedUnitsOf: length, parameterSets: sets, pts: pts,
                                              isKeyframe: isKeyframe, copy: { destination in
            guard let base = destination.baseAddress else { return length == 0 }
            return CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: length, destination: base)
                == kCMBlockBufferNoErr
        }) else { return nil }
        return Output(packet: packet, parameterSets: sets)
    }

    private static func parameterSet(_ format: CMFormatDescription, index: Int) -> [UInt8]? {
        var pointer: UnsafePointer<UInt8>?
        var size = 0
        let status = CMVideoFormatDescriptionGetH264ParameterSetAtIndex(
            format, parameterSetIndex: index, parameterSetPointerOut: &pointer, parameterSetSizeOut: &size,
            parameterSetCountOut: nil, nalUnitHeaderLengthOut: nil)
        guard status == noErr, let pointer else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: size))
    }

    /// Copies an I420 picture into a pooled planar pixel buffer (row by row: Encoders' `I420Planes.copy(to:)`).
    private func planarBuffer(for picture: I420Planes) -> CVPixelBuffer? {
        if planarPool == nil {
            let attributes: [String: Any] = [
                kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8Planar,
                kCVPixelBufferWidthKey as String: picture.width,
                kCVPixelBufferHeightKey as String: picture.height,
                kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any](),
            ]
            CVPixelBufferPoolCreate(nil, nil, attributes as CFDictionary, &planarPool)
        }
        guard let planarPool else { return nil }
        var made: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBuffer(nil, planarPool, &made) == kCVReturnSuccess, let buffer = made,
              CVPixelBufferGetWidth(buffer) == picture.width, CVPixelBufferGetHeight(buffer) == picture.height
        else { return nil }
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        let copied = picture.copy { plane in
            guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane) else { return nil }
            return (base, CVPixelBufferGetBytesPerRowOfPlane(buffer, plane))
        }
        return copied ? buffer : nil
    }
}
