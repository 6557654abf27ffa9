import LiveProtocol
import LiveShows
import Testing

struct StreamCatalogTests {
    @Test func firstMatchingPatternServesTheName() throws {
        var catalog = StreamCatalog()
        try catalog.streams("show:vip", role: { _, _ in .readOnly })
        try catalog.streams("show:{id}", role: { user, _ in user == nil ? .none : .viewer },
                            options: StreamOptions(reactions: true))
        let vip = try #require(catalog.resolve("show:vip"))
        #expect(vip.declaration.role("ann", vip.parameters) == .readOnly)
        #expect(vip.declaration.options.reactions == false)
        let mugs = try #require(catalog.resolve("show:mugs"))
        #expect(mugs.parameters == ["id": "mugs"])
        #expect(mugs.declaration.role("ann", mugs.parameters) == .viewer)
        #expect(mugs.declaration.role(nil, mugs.parameters) == Role.none)
        #expect(mugs.declaration.options.reactions)
        #expect(catalog.resolve("room:mugs") == nil)
    }

    @Test func aPatternIsDeclaredOnce() throws {
        var catalog = StreamCatalog()
        try catalog.streams("show:{id}", role: { _, _ in .viewer })
        #expect(throws: DeclarationError("the pattern 'show:{id}' is declared twice")) {
            try catalog.streams("show:{id}", role: { _, _ in .host })
        }
    }
}
