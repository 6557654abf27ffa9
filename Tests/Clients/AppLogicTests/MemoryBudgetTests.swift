import Testing
import AppLogic
import Encoders
import StreamCore

@Suite struct MemoryBudgetTests {
    static let iPhone = PixelSize(width: 1179, height: 2556)
    static let iPadPro = PixelSize(width: 2048, height: 2732)

    @Test func theAudioEncoderTakesTheMixFormatAtTheSettingsBitrate() {
        var settings = StreamSettings()
        settings.audioBitrateKbps = 96
        #expect(MemoryBudget.audioConfiguration(settings)
                == AudioEncoderConfiguration(sampleRate: 48_000, channels: 2, bitrateKbps: 96))
    }

    @Test func defaultsAre720pAndTheSeedsBufferCounts() {
        #expect(StreamSettings().quality == .p720)
        #expect(MemoryBudget.encoderFramesInFlight == 5)
        #expect(MemoryBudget.cameraFramesKept == 1)
        #expect(MemoryBudget.ciContextCount == 1)
        #expect(MemoryBudget.budgetBytes == 50 * 1024 * 1024)
    }

    @Test func frameBytesAreNV12() {
        #expect(MemoryBudget.frameBytes(PixelSize(width: 1280, height: 720)) == 1_382_400)
    }

    @Test(arguments: [iPhone, iPadPro, PixelSize(width: 2732, height: 2048)])
    func theDefault720pFitsWithTheFacecamOnEveryScreen(_ screen: PixelSize) {
        var settings = StreamSettings()
        settings.pipEnabled = true
        let plan = MemoryBudget.plan(screen: screen, settings: settings, facecam: true)
        #expect(plan.quality == .p720)
        #expect(plan.fits)
        #expect(!plan.steppedDown)
        #expect(plan.note == nil)
    }

    @Test func p1080OnAnIPadProWithTheFacecamStepsDownTo720p() {
        let settings = StreamSettings.defaults(for: .p1080)
        let plan = MemoryBudget.plan(screen: Self.iPadPro, settings: settings, facecam: true)
        #expect(plan.quality == .p720)
        #expect(plan.encodeSize == PixelSize(width: 720, height: 960))
        #expect(plan.steppedDown)
        #expect(plan.note?.contains("720p (720x960)") == true)
    }

    @Test func p1080OnAnIPhoneWithoutTheFacecamIsKept() {
        let plan = MemoryBudget.plan(screen: Self.iPhone, settings: .defaults(for: .p1080), facecam: false)
        #expect(plan.quality == .p1080)
        #expect(plan.encodeSize == PixelSize(width: 1080, height: 2342))
        #expect(plan.fits)
    }

    @Test func thePlanNeverRaisesTheQuality() {
        let plan = MemoryBudget.plan(screen: Self.iPhone, settings: .defaults(for: .p480), facecam: true)
        #expect(plan.quality == .p480)
        #expect(!plan.steppedDown)
    }

    @Test func whenNothingFits480pIsUsedAndReportedAsNotFitting() {
        let huge = PixelSize(width: 8192, height: 8192)
        let plan = MemoryBudget.plan(screen: huge, settings: .defaults(for: .p1080), facecam: true)
        #expect(plan.quality == .p480)
        #expect(!plan.fits)
        #expect(plan.steppedDown)
    }

    @Test func theFacecamCostsTheCompositorPoolAndCameraBuffers() {
        let encode = PixelSize(width: 720, height: 1560)
        let without = MemoryBudget.estimatedBytes(screen: Self.iPhone, encode: encode, facecam: false,
                                                  videoBitrateKbps: 3000, audioBitrateKbps: 128)
        let with = MemoryBudget.estimatedBytes(screen: Self.iPhone, encode: encode, facecam: true,
                                               videoBitrateKbps: 3000, audioBitrateKbps: 128)
        #expect(with - without == 3 * MemoryBudget.frameBytes(encode)
                + 5 * MemoryBudget.frameBytes(MemoryBudget.cameraSize))
    }
}
