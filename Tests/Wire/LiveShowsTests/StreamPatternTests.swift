import LiveShows
import Testing

struct StreamPatternTests {
    @Test(arguments: [
        ("show:{id}", "show:mugs", ["id": "mugs"]),
        ("show:{id}", "show:a.b-c_1", ["id": "a.b-c_1"]),
        ("{team}:{id}", "red:mugs", ["team": "red", "id": "mugs"]),
        ("room-{n}-live", "room-7-live", ["n": "7"]),
        ("{a}-{b}", "x-y-z", ["a": "x-y", "b": "z"]),
        ("lobby", "lobby", [:]),
    ])
    func matches(pattern: String, name: String, parameters: [String: String]) throws {
        #expect(try StreamPattern(pattern).match(name) == parameters)
    }

    @Test(arguments: [
        ("show:{id}", "show:"), ("show:{id}", "show:a:b"), ("show:{id}", "shows:mugs"), ("show:{id}", "show:mu gs"),
        ("show:{id}", "show:mugs/x"), ("lobby", "lobby2"), ("show:{id}", "show:" + String(repeating: "a", count: 124)),
        ("{id}", ""),
    ])
    func doesNotMatch(pattern: String, name: String) throws {
        #expect(try StreamPattern(pattern).match(name) == nil)
    }

    @Test(arguments: [
        ("", "empty"), ("show:{id", "never closed"), ("show:{}", "parameter name"), ("show:{i d}", "parameter name"),
        ("{a}{b}", "side by side"), ("{a}:{a}", "appears twice"), ("show/{id}", "'/' cannot be in a stream name"),
    ])
    func malformed(pattern: String, reason: String) {
        #expect { try StreamPattern(pattern) } throws: { error in
            (error as? DeclarationError)?.reason.contains(reason) == true
        }
    }

    @Test func namesAreLimited() {
        #expect(StreamPattern.isValidName("show:mugs"))
        #expect(StreamPattern.isValidName(String(repeating: "a", count: 128)))
        #expect(!StreamPattern.isValidName(String(repeating: "a", count: 129)))
        #expect(!StreamPattern.isValidName(""))
        #expect(!StreamPattern.isValidName("show:müg"))
        #expect(!StreamPattern.isValidName("show:%41"))
    }
}
