import Testing
@testable import HLS

@Suite struct ResourceNameTests {
    @Test(arguments: [
        ("init-e1-0.mp4", ResourceName.initSegment(epoch: "e1", index: 0)),
        ("part-k3x9-12.4.m4s", .part(epoch: "k3x9", msn: 12, index: 4)),
        ("seg-k3x9-120.m4s", .segment(epoch: "k3x9", msn: 120)),
    ])
    func namesRoundTrip(name: String, resource: ResourceName) {
        #expect(ResourceName(parsing: name) == resource)
        #expect(resource.description == name)
    }

    @Test(arguments: ["", "index.m3u8", "init-e1-.mp4", "init--0.mp4", "init-E1-0.mp4", "seg-e1-1.mp4",
                      "part-e1-12.m4s", "part-e1-1.2.3.m4s", "seg-e1-../x.m4s", "seg-e1-1234567890123.m4s",
                      "part-e1-1.-2.m4s", "seg-e1-+1.m4s", "seg-e1-1.m4s/", "init-e1-0.mp4?x"])
    func refusesAnythingElse(name: String) {
        #expect(ResourceName(parsing: name) == nil)
    }
}

@Suite struct PlaylistTextTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),  // a leap day of a century leap year
        (1_800_000_000_000, "2027-01-15T08:00:00.000Z"),
        (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),  // 2100 is not a leap year
        (-1, "1969-12-31T23:59:59.999Z"),
    ])
    func programDateTimesAreISO8601InUTC(milliseconds: Int64, text: String) {
        #expect(ProgramDateTime(millisecondsSinceEpoch: milliseconds).description == text)
    }

    @Test func decimalsRoundToTheDigitsAsked() {
        #expect(DecimalText.seconds(30_004, scale: 90_000) == "0.33338")
        #expect(DecimalText.seconds(180_000, scale: 90_000) == "2.00000")
        #expect(DecimalText.seconds(1, scale: 90_000) == "0.00001")
        #expect(DecimalText.milliseconds(1002) == "1.002")
        #expect(DecimalText.milliseconds(334) == "0.334")
    }
}
