import CV4L2
import Capture
import Media
import Testing
import TestSupport

/// V4L2 without a camera: the kernel structs are filled in here as a driver would fill them.
@Suite struct V4L2NegotiationTests {
    static func setString<T>(_ tuple: inout T, _ text: String) {
        withUnsafeMutableBytes(of: &tuple) { bytes in
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            bytes.copyBytes(from: Array(text.utf8.prefix(bytes.count - 1)))
        }
    }

    @Test func fourCCPacksLittleEndian() {
        #expect(V4L2FourCC.yuyv.rawValue == 0x5659_5559)  // 'Y' 0x59, 'U' 0x55, 'Y', 'V' 0x56
        #expect(V4L2FourCC.nv12.description == "NV12")
        #expect(V4L2FourCC(rawValue: 0x4750_4A4D).description == "MJPG")
        #expect(V4L2FourCC(rawValue: 0x0000_0041).description == "A...")
    }

    @Test func capabilitiesPreferDeviceCaps() {
        var capability = v4l2_capability()
        Self.setString(&capability.card, "Integrated Camera: Integrated C")
        Self.setString(&capability.driver, "uvcvideo")
        Self.setString(&capability.bus_info, "usb-0000:00:14.0-5")
        // The card can capture and stream; this node (a metadata node) cannot.
        capability.capabilities = 0x8000_0000 | 0x0400_0000 | 0x0000_0001
        capability.device_caps = 0x0080_0000 | 0x0400_0000
        let metadata = V4L2Negotiation.capabilities(capability)
        #expect(metadata.name == "Integrated Camera: Integrated C")
        #expect(metadata.driver == "uvcvideo")
        #expect(metadata.busInfo == "usb-0000:00:14.0-5")
        #expect(!metadata.canCapture)
        #expect(metadata.canStream)
        capability.device_caps = 0x0400_0000 | 0x0000_0001
        #expect(V4L2Negotiation.capabilities(capability).canCapture)
        // Old drivers without V4L2_CAP_DEVICE_CAPS: the card's capabilities stand.
        capability.capabilities = 0x0000_0001
        capability.device_caps = 0
        let old = V4L2Negotiation.capabilities(capability)
        #expect(old.canCapture && !old.canStream)
    }

    @Test func formatsAndFrameSizes() {
        var description = v4l2_fmtdesc()
        description.pixelformat = V4L2FourCC.mjpeg.rawValue
        description.flags = 0x0001
        Self.setString(&description.description, "Motion-JPEG")
        let format = V4L2Negotiation.format(description, sizes: [V4L2FrameSize(width: 640, height: 480)])
        #expect(format.fourCC == "MJPG" && format.description == "Motion-JPEG" && format.isCompressed)

        var discrete = v4l2_frmsizeenum()
        discrete.type = 1
        discrete.discrete = v4l2_frmsize_discrete(width: 1280, height: 720)
        #expect(V4L2Negotiation.frameSizes(discrete) == [V4L2FrameSize(width: 1280, height: 720)])
        var stepwise = v4l2_frmsizeenum()
        stepwise.type = 3
        stepwise.stepwise = v4l2_frmsize_stepwise(min_width: 48, max_width: 1920, step_width: 16, min_height: 32,
                                                  max_height: 1080, step_height: 8)
        #expect(V4L2Negotiation.frameSizes(stepwise) == [V4L2FrameSize(width: 48, height: 32),
                                                         V4L2FrameSize(width: 1920, height: 1080)])
        var unknown = v4l2_frmsizeenum()
        unknown.type = 9
        #expect(V4L2Negotiation.frameSizes(unknown).isEmpty)
    }

    static let webcam: [V4L2DeviceInfo.Format] = [
        .init(fourCC: "MJPG", description: "Motion-JPEG", isCompressed: true,
              sizes: [.init(width: 1920, height: 1080), .init(width: 1280, height: 720)]),
        .init(fourCC: "YUYV", description: "YUYV 4:2:2", isCompressed: false,
              sizes: [.init(width: 640, height: 480), .init(width: 1280, height: 720), .init(width: 320, height: 240)]),
    ]

    @Test func choosesASupportedFormatAtTheNearestSize() throws {
        let choice = try #require(V4L2Negotiation.choose(from: Self.webcam, width: 1280, height: 720))
        #expect(choice.fourCC == .yuyv && choice.size == V4L2FrameSize(width: 1280, height: 720))
        let small = try #require(V4L2Negotiation.choose(from: Self.webcam, width: 352, height: 288))
        #expect(small.size == V4L2FrameSize(width: 320, height: 240))
        let withNV12 = Self.webcam + [.init(fourCC: "NV12", description: "Y/CbCr 4:2:0", isCompressed: false,
                                            sizes: [.init(width: 640, height: 480)])]
        #expect(V4L2Negotiation.choose(from: withNV12, width: 1280, height: 720)?.fourCC == .nv12)
        #expect(V4L2Negotiation.choose(from: [Self.webcam[0]], width: 1280, height: 720) == nil)
    }

    @Test func formatRequestAndAcceptedFormat() throws {
        var format = V4L2Negotiation.formatRequest(fourCC: .yuyv, width: 1280, height: 720)
        #expect(format.type == 1)
        #expect(format.fmt.pix.pixelformat == V4L2FourCC.yuyv.rawValue)
        #expect(format.fmt.pix.width == 1280 && format.fmt.pix.height == 720 && format.fmt.pix.field == 1)
        // The driver answers with its nearest size and padded rows.
        format.fmt.pix.width = 640
        format.fmt.pix.height = 480
        format.fmt.pix.bytesperline = 1_344
        format.fmt.pix.sizeimage = 1_344 * 480
        let accepted = try V4L2Negotiation.acceptedFormat(format)
        #expect(accepted.fourCC == .yuyv && accepted.width == 640 && accepted.height == 480)
        #expect(accepted.bytesPerLine == 1_344 && accepted.imageSize == 645_120)

        format.fmt.pix.pixelformat = V4L2FourCC.mjpeg.rawValue
        let switched = #expect(throws: CaptureError.self) { try V4L2Negotiation.acceptedFormat(format) }
        #expect(switched?.message.contains("switched to format MJPG") == true)
        format.fmt.pix.pixelformat = V4L2FourCC.yuyv.rawValue
        format.fmt.pix.sizeimage = 1_000
        #expect(throws: CaptureError.self) { try V4L2Negotiation.acceptedFormat(format) }
        format.fmt.pix.sizeimage = 0
        format.fmt.pix.width = 0
        #expect(throws: CaptureError.self) { try V4L2Negotiation.acceptedFormat(format) }
    }

    static let nv12Format: V4L2Negotiation.StreamFormat = {
        var format = V4L2Negotiation.formatRequest(fourCC: .nv12, width: 4, height: 2)
        format.fmt.pix.bytesperline = 8
        format.fmt.pix.sizeimage = 8 * 3
        return try! V4L2Negotiation.acceptedFormat(format)
    }()

    @Test func requestsAndDequeuedBuffers() throws {
        let request = V4L2Negotiation.bufferRequest(count: 4)
        #expect(request.count == 4 && request.type == 1 && request.memory == 1)
        var buffer = V4L2Negotiation.buffer(index: 2)
        #expect(buffer.index == 2 && buffer.type == 1 && buffer.memory == 1)
        let lengths = [24, 24, 24]
        buffer.bytesused = 24
        #expect(try V4L2Negotiation.dequeued(buffer, mappedLengths: lengths, format: Self.nv12Format)! == (2, 24))
        buffer.flags = 0x0040  // V4L2_BUF_FLAG_ERROR
        #expect(try V4L2Negotiation.dequeued(buffer, mappedLengths: lengths, format: Self.nv12Format) == nil)
        buffer.flags = 0
        buffer.bytesused = 10  // short frame
        #expect(try V4L2Negotiation.dequeued(buffer, mappedLengths: lengths, format: Self.nv12Format) == nil)
        buffer.bytesused = 25  // more than the buffer
        #expect(throws: CaptureError.self) {
            try V4L2Negotiation.dequeued(buffer, mappedLengths: lengths, format: Self.nv12Format)
        }
        buffer.bytesused = 24
        buffer.index = 3       // never mapped
        let unknown = #expect(throws: CaptureError.self) {
            try V4L2Negotiation.dequeued(buffer, mappedLengths: lengths, format: Self.nv12Format)
        }
        #expect(unknown?.message.contains("buffer 3, which was never queued") == true)
    }

    @Test func convertsYUYVAndNV12ToI420() throws {
        // YUYV 4x2 with rows padded to 12 bytes: Y0 U Y1 V per pixel pair.
        var format = V4L2Negotiation.formatRequest(fourCC: .yuyv, width: 4, height: 2)
        format.fmt.pix.bytesperline = 12
        let yuyv = try V4L2Negotiation.acceptedFormat(format)
        let yuyvBytes: [UInt8] = [
            10, 100, 20, 200, 30, 110, 40, 210, 0, 0, 0, 0,  // row 0: Y 10 20 30 40, U 100 110, V 200 210, padding
            50, 120, 60, 220, 70, 130, 80, 230, 0, 0, 0, 0,  // row 1: Y 50 60 70 80, U 120 130, V 220 230, padding
        ]
        var frame = VideoFrame(layout: FrameLayout(format: .i420, width: 4, height: 2))
        try yuyvBytes.withUnsafeBytes { try V4L2FrameConverter.convert($0, format: yuyv, into: &frame) }
        #expect(frame.yuv(x: 0, y: 0) == YUVColor(y: 10, u: 110, v: 210))  // chroma averaged over the two rows
        #expect(frame.yuv(x: 3, y: 1) == YUVColor(y: 80, u: 120, v: 220))

        let nv12Bytes: [UInt8] = [
            1, 2, 3, 4, 0, 0, 0, 0,          // Y row 0, padding to 8
            5, 6, 7, 8, 0, 0, 0, 0,          // Y row 1
            90, 160, 95, 165, 0, 0, 0, 0,    // UV pairs: (90, 160) (95, 165)
        ]
        var second = VideoFrame(layout: FrameLayout(format: .i420, width: 4, height: 2))
        try nv12Bytes.withUnsafeBytes { try V4L2FrameConverter.convert($0, format: Self.nv12Format, into: &second) }
        #expect(second.yuv(x: 1, y: 0) == YUVColor(y: 2, u: 90, v: 160))
        #expect(second.yuv(x: 2, y: 1) == YUVColor(y: 7, u: 95, v: 165))
    }

    @Test func listingWithoutCamerasIsEmptyAndOpeningOneFailsClearly() throws {
        let directory = try TemporaryDirectory("v4l2")
        #expect(V4L2DeviceLister.list(directory: directory.path).isEmpty)
        let error = #expect(throws: CaptureError.self) { try V4L2CameraSource(path: directory.path + "/video0") }
        #expect(error?.message.hasPrefix("cannot open camera") == true)
    }
}
