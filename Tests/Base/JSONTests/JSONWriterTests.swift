import JSON
import Testing

struct JSONWriterTests {
    @Test func compactInOrder() {
        let value = JSONValue.object([("z", .integer(1)), ("a", .array([.bool(true), .null, .number(1.5)])),
                                      ("s", .string("x"))])
        #expect(JSONWriter.string(value) == #"{"z":1,"a":[true,null,1.5],"s":"x"}"#)
    }

    @Test func escapesOnlyWhatTheGrammarRequires() {
        let text = "quote \" backslash \\ newline \n tab \t bell \u{7} slash / é 🎥"
        #expect(JSONWriter.string(.string(text))
                == #""quote \" backslash \\ newline \n tab \t bell \u0007 slash / é 🎥""#)
    }

    @Test(arguments: [(0.0, "0"), (-3.0, "-3"), (9_007_199_254_740_992, "9007199254740992"), (0.25, "0.25"),
                      (1e300, "1e+300")])
    func numbers(number: Double, text: String) {
        #expect(JSONWriter.string(.number(number)) == text)
    }

    /// What the writer writes, the parser reads back as the same value.
    @Test func roundTrip() throws {
        let value = JSONValue.object([
            ("text", .string("line\nbreak \"quoted\" \u{1} \u{1F600}")), ("n", .number(-0.125)),
            ("nested", .object([("list", .array([.object([]), .array([]), .null]))])), ("big", .integer(1 << 52)),
        ])
        #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
    }
}
