import Testing
@testable import RTMP

struct ChunkStreamMapTests {
    @Test func idsInTheTableAndBeyondItKeepTheirValues() {
        var map = ChunkStreamMap<[UInt8]>()
        #expect(map[2] == nil)
        #expect(map.count == 0)
        map[2] = [1]
        map[63] = [2]
        map[64] = [3]
        map[65_599] = [4]
        #expect(map.count == 4)
        #expect([map[2], map[63], map[64], map[65_599], map[3]] == [[1], [2], [3], [4], nil])
        map[2] = [5]  // replacing does not count twice
        #expect(map.count == 4)
        #expect(map.removeValue(forKey: 64) == [3])
        #expect(map.removeValue(forKey: 64) == nil)
        map[63] = nil
        map[40] = nil  // removing an absent id changes nothing
        #expect(map.count == 2)
        #expect(map[63] == nil)
    }

    @Test func modifyChangesAValueInPlaceAndIgnoresAbsentIds() {
        var map = ChunkStreamMap<[UInt8]>()
        map[6] = [1]
        map[300] = [2]
        map.modify(6) { $0.append(9) }
        map.modify(300) { $0.append(8) }
        map.modify(7) { $0.append(7) }
        map.modify(301) { $0.append(7) }
        #expect(map[6] == [1, 9])
        #expect(map[300] == [2, 8])
        #expect(map[7] == nil && map[301] == nil)
        #expect(map.count == 2)
    }
}
