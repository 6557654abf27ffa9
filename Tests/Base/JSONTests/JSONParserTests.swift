import JSON
import Testing

struct JSONParserTests {
    /// RFC 8259 §13, the first example, whole.
    static let rfcImage = """
        {
          "Image": {
              "Width":  800,
              "Height": 600,
              "Title":  "View from 15th Floor",
              "Thumbnail": {
                  "Url":    "http://www.example.com/image/481989943",
                  "Height": 125,
                  "Width":  100
              },
              "Animated" : false,
              "IDs": [116, 943, 234, 38793]
            }
        }
        """

    @Test func rfc8259ImageExample() throws {
        let value = try JSONParser.parse(Self.rfcImage)
        let image = try #require(value["Image"])
        #expect(image["Width"] == .number(800))
        #expect(image["Title"] == .string("View from 15th Floor"))
        #expect(image["Thumbnail"]?["Url"] == .string("http://www.example.com/image/481989943"))
        #expect(image["Animated"] == .bool(false))
        #expect(image["IDs"] == .array([.number(116), .number(943), .number(234), .number(38793)]))
        #expect(image.objectValue?.map(\.0) == ["Width", "Height", "Title", "Thumbnail", "Animated", "IDs"])
    }

    /// RFC 8259 §13, the second example: an array of two objects with fractional numbers and null members.
    @Test func rfc8259ArrayExample() throws {
        let value = try JSONParser.parse("""
            [
              {
                 "precision": "zip",
                 "Latitude":  37.7668,
                 "Longitude": -122.3959,
                 "Address":   "",
                 "City":      "SAN FRANCISCO",
                 "State":     "CA",
                 "Zip":       "94107",
                 "Country":   "US"
              },
              {
                 "precision": "zip",
                 "Latitude":  37.371991,
                 "Longitude": -122.026020,
                 "Address":   "",
                 "City":      "SUNNYVALE",
                 "State":     "CA",
                 "Zip":       "94085",
                 "Country":   "US"
              }
            ]
            """)
        let places = try #require(value.arrayValue)
        #expect(places.count == 2)
        #expect(places[0]["Latitude"] == .number(37.7668))
        #expect(places[1]["Longitude"] == .number(-122.026020))
        #expect(places[1]["City"] == .string("SUNNYVALE"))
    }

    /// RFC 8259 §13: scalars are JSON texts too.
    @Test(arguments: [("\"Hello world!\"", JSONValue.string("Hello world!")), ("42", .number(42)),
                      ("true", .bool(true)),
                      ("null", .null), (" \t\r\n-0.5e1 ", .number(-5)), ("1E+2", .number(100)), ("[]", .array([])),
                      ("{}", .object([]))])
    func scalarsAndEmpties(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    /// §7: escapes, including a surrogate pair (U+1D11E, the example of §7) and the escaped solidus.
    @Test func escapes() throws {
        let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9\ud834\udd1e""#)
        #expect(value == .string("\"\\/\u{8}\u{C}\n\r\tAé\u{1D11E}"))
    }

    @Test func rawUTF8IsKept() throws {
        #expect(try JSONParser.parse(Array("\"héllo ☕ 🎥\"".utf8)) == .string("héllo ☕ 🎥"))
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.number(1)]))
    }

    /// Malformed texts: each error names the line and column where the parser stopped.
    @Test(arguments: [
        ("", 1, 1, "end of input"),
        ("{\"a\": 1,}", 1, 9, "member name"),
        ("[1, 2,]", 1, 7, "a value was expected"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3, "duplicate member name"),
        ("[01]", 1, 3, "may not start with 0"),
        ("[1.]", 1, 4, "digit must follow"),
        ("[-]", 1, 3, "needs a digit"),
        ("[1e]", 1, 4, "exponent"),
        ("1e400", 1, 1, "too large"),
        ("\"tab\there\"", 1, 5, "control character"),
        ("\"\\x\"", 1, 3, "unknown escape"),
        ("\"\\ud834\"", 1, 8, "low surrogate"),
        ("\"\\udd1e\"", 1, 8, "lone low surrogate"),
        ("\"\\u12g4\"", 1, 6, "hex digit"),
        ("tru", 1, 1, "a value was expected"),
        ("[1] [2]", 1, 5, "after the value"),
        ("// comment\n1", 1, 1, "a value was expected"),
        ("{\"a\":\n\n  nul}", 3, 3, "a value was expected"),
        ("\"unterminated", 1, 14, "inside a string"),
    ])
    func malformed(text: String, line: Int, column: Int, reason: String) {
        #expect {
            try JSONParser.parse(text)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.line == line && error.column == column && error.reason.contains(reason)
        }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }  // a UTF-8 surrogate
    }

    @Test func depthIsLimited() throws {
        let deep = String(repeating: "[", count: 5) + String(repeating: "]", count: 5)
        #expect(try JSONParser.parse(Array(deep.utf8), maximumDepth: 5) != .null)
        #expect(throws: JSONError.self) { try JSONParser.parse(Array(deep.utf8), maximumDepth: 4) }
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError.self) { try JSONParser.parse(hostile) }
    }

    @Test func integersUpTo2To53AreExact() throws {
        #expect(try JSONParser.parse("9007199254740992").integerValue == 9_007_199_254_740_992)
        #expect(try JSONParser.parse("9007199254740994").integerValue == nil)
        #expect(try JSONParser.parse("1.5").integerValue == nil)
        #expect(try JSONParser.parse("-7").integerValue == -7)
    }

    @Test func documentsRememberLines() throws {
        let document = try JSONParser.parseDocument(Array(Self.rfcImage.utf8))
        #expect(document.line(at: []) == 1)
        #expect(document.line(at: [.key("Image"), .key("Title")]) == 5)
        #expect(document.line(at: [.key("Image"), .key("Thumbnail"), .key("Width")]) == 9)
        #expect(document.line(at: [.key("Image"), .key("IDs"), .index(2)]) == 12)
        #expect(document.line(at: [.key("Image"), .key("Missing")]) == 2)
    }
}
