import LiveProtocol
import LiveShows
import Testing

@Suite struct MediaRecordTests {
    @Test func everySetOfTilesSurvivesTheStoresIntegerColumn() {
        let all = TileKind.allCases
        for mask in 0..<(1 << all.count) {
            let tiles = Set(all.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
            #expect(MediaRecord.bits(of: tiles) == Int64(mask))
            #expect(MediaRecord.tiles(fromBits: Int64(mask)) == tiles)
        }
    }

    @Test func onlyKicksAndReactionsPassWithoutTheStore() {
        #expect(StoreWrite.kick(user: "u1").unstoredFact == .kicked(user: "u1"))
        #expect(StoreWrite.ban(user: "u1").unstoredFact == nil)
        #expect(StoreWrite.slow(5).unstoredFact == nil)
    }
}
