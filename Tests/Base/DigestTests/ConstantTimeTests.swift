import Digest
import Testing

struct ConstantTimeTests {
    @Test(arguments: [([UInt8](), [UInt8](), true), ([1, 2, 3], [1, 2, 3], true), ([1, 2, 3], [1, 2, 4], false),
                      ([1, 2, 3], [1, 2], false), ([0], [], false), ([], [0], false), ([0, 0], [0], false)])
    func equal(lhs: [UInt8], rhs: [UInt8], expected: Bool) {
        #expect(ConstantTime.equal(lhs, rhs) == expected)
        #expect(ConstantTime.equal(rhs, lhs) == expected)
    }
}
