import LiveProtocol
import LiveShows
import Testing

struct ShowsFileTests {
    /// The issue's example: Ann hosts every show, the show's id is its mod, everyone else watches and chats.
    @Test func theIssuesExample() throws {
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}"], "users": "viewer",
                          "visitors": "read_only", "reactions": true}]}
            """.utf8))
        let (declaration, parameters) = try #require(catalog.resolve("show:mugs"))
        #expect(declaration.role("ann", parameters) == .host)
        #expect(declaration.role("mugs", parameters) == .mod)
        #expect(declaration.role("bob", parameters) == .viewer)
        #expect(declaration.role(nil, parameters) == .readOnly)
        #expect(declaration.options.reactions)
        #expect(catalog.resolve("room:mugs") == nil)
    }

    /// Issue 34 item 12: a title and a description, with the pattern's parameters, in the welcome.
    @Test func titleAndDescriptionWithParameters() throws {
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [{"pattern": "shop:{id}", "title": "The {id} shop, live",
                          "description": "Mugs and more.\\nEvery Friday."},
                         {"pattern": "plain"}]}
            """.utf8))
        let (declaration, parameters) = try #require(catalog.resolve("shop:example"))
        let show = Show(name: "shop:example", declaration: declaration, parameters: parameters,
                        record: ShowRecord(epoch: "e"),
                        configuration: ShowConfiguration(ingestURL: nil, credentials: ShowHarness.credentials))
        #expect(show.snapshot.title == "The example shop, live")
        #expect(show.snapshot.description == "Mugs and more.\nEvery Friday.")
        let (plain, _) = try #require(catalog.resolve("plain"))
        #expect(plain.options.title == nil && plain.options.description == nil)
    }

    @Test func defaultsAndTemplates() throws {
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [
              {"pattern": "{team}:{id}", "hosts": ["host-{team}-{id}"], "mods": ["ann", "{team}"]},
              {"pattern": "lobby", "users": "read_only", "visitors": "viewer"}
            ]}
            """.utf8))
        let (team, parameters) = try #require(catalog.resolve("red:quiz"))
        #expect(team.role("host-red-quiz", parameters) == .host)
        #expect(team.role("red", parameters) == .mod)
        #expect(team.role("ann", parameters) == .mod)
        #expect(team.role("bob", parameters) == .viewer)
        #expect(team.role(nil, parameters) == Role.none)
        #expect(team.options.reactions == false)
        let (lobby, none) = try #require(catalog.resolve("lobby"))
        #expect(lobby.role("bob", none) == .readOnly)
        #expect(lobby.role(nil, none) == .viewer)
    }

    /// A file that does not parse or means nothing stops the server with the line and the reason.
    @Test(arguments: [
        ("{\"streams\": [\n  {\"pattern\": \"show:{id}\",\n   \"users\": \"admin\"}\n]}", 3, "unknown role 'admin'"),
        ("{\"streams\": [\n  {\"pattern\": \"show:{id}\", \"visitors\": \"host\"}]}", 2, "unknown role 'host'"),
        ("{\"streams\": [\n  {\"pattern\": \"show:{id}\",\n   \"hosts\": \"ann\"}]}", 3, "must be an array"),
        ("{\"streams\": [\n  {\"pattern\": \"show:{id}\",\n\n   \"mods\": [\"{slug}\"]}]}", 4,
         "{slug} is not a parameter"),
        ("{\"streams\": [\n  {\"pattern\": \"show:{id}\", \"reactoins\": true}]}", 2, "unknown member 'reactoins'"),
        ("{\"streams\": [\n  {\"hosts\": []}]}", 2, "\"pattern\" is missing"),
        ("{\"streams\": [\n  {\"pattern\": \"show/{id}\"}]}", 2, "cannot be in a stream name"),
        ("{\"streams\": [\n  {\"pattern\": \"a\"},\n  {\"pattern\": \"a\"}]}", 3, "declared twice"),
        ("{\"streams\": []}", 1, "non-empty array"),
        ("{\"stream\": []}", 1, "unknown member 'stream'"),
        ("{\"streams\": [\n  {\"pattern\": \"show:{id}\",}\n]}", 2, "not valid JSON"),
        ("[]", 1, "must hold an object"),
        ("{\"streams\": [{\"pattern\": \"a\", \"reactions\": \"yes\"}]}", 1, "true or false"),
        ("{\"streams\": [\n  {\"pattern\": \"a\",\n   \"title\": \"\"}]}", 3, "1 to 120 characters"),
        ("{\"streams\": [{\"pattern\": \"a\", \"title\": \"\(String(repeating: "t", count: 121))\"}]}", 1, "1 to 120"),
        ("{\"streams\": [{\"pattern\": \"a\", \"title\": \"two\\nlines\"}]}", 1, "control characters"),
        ("{\"streams\": [{\"pattern\": \"a\", \"description\": \"bell\\u0007\"}]}", 1, "only line feeds"),
        ("{\"streams\": [{\"pattern\": \"s:{id}\", \"title\": \"{slug}\"}]}", 1, "{slug} is not a parameter"),
        ("{\"streams\": [{\"pattern\": \"a\", \"title\": 7}]}", 1, "must be a string"),
    ])
    func errorsNameTheLine(text: String, line: Int, reason: String) {
        #expect {
            try ShowsFile.catalog(from: Array(text.utf8))
        } throws: { error in
            guard let error = error as? DeclarationError else { return false }
            return error.line == line && error.reason.contains(reason) && "\(error)".hasPrefix("line \(line): ")
        }
    }
}
