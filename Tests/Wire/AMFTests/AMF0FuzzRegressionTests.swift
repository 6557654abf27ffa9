import Testing
@testable import AMF

/// Inputs found by fuzzing (Fuzz/Sources/FuzzAMF0) or while writing its round-trip property.
///
/// A reference (AMF0 §2.9) costs 3 bytes but stands for its whole value, and encoding writes that value in full.
/// Arrays of references to arrays of references grew exponentially: 436 bytes decoded in microseconds to a value
/// of 2^40 elements, and re-encoding it (a server relaying `onMetaData` to players) never finished. A reference
/// now counts at its expanded size against `maxTotalValues` and at its expanded depth against `maxDepth`.
struct AMF0FuzzRegressionTests {
    /// Each array holds two references to the array before it: 3, 7, 15, 31 values once expanded.
    static let doublingArrays: [UInt8] = [
        0x0A, 0x00, 0x00, 0x00, 0x02,  // strict array of 2 (reference #0)
        0x05, 0x05,                    //   null, null
        0x0A, 0x00, 0x00, 0x00, 0x02,  // strict array of 2 (reference #1)
        0x07, 0x00, 0x00,              //   reference #0
        0x07, 0x00, 0x00,              //   reference #0
        0x0A, 0x00, 0x00, 0x00, 0x02,  // strict array of 2 (reference #2)
        0x07, 0x00, 0x01,              //   reference #1
        0x07, 0x00, 0x01,              //   reference #1
        0x0A, 0x00, 0x00, 0x00, 0x02,  // strict array of 2 (reference #3)
        0x07, 0x00, 0x02,              //   reference #2
        0x07, 0x00, 0x02,              //   reference #2
    ]

    /// Each array holds one reference to the array before it: nested one level deeper each time.
    static let nestingArrays: [UInt8] = [
        0x0A, 0x00, 0x00, 0x00, 0x01,  // strict array of 1 (reference #0)
        0x05,                          //   null
        0x0A, 0x00, 0x00, 0x00, 0x01,  // strict array of 1 (reference #1)
        0x07, 0x00, 0x00,              //   reference #0: [null]
        0x0A, 0x00, 0x00, 0x00, 0x01,  // strict array of 1 (reference #2)
        0x07, 0x00, 0x01,              //   reference #1: [[null]]
        0x0A, 0x00, 0x00, 0x00, 0x01,  // strict array of 1 (reference #3)
        0x07, 0x00, 0x02,              //   reference #2: [[[null]]], so its null is at level 4
    ]

    static func limits(maxDepth: Int = 32, maxTotalValues: Int = 262_144) -> AMF0Limits {
        AMF0Limits(maxDepth: maxDepth, maxCollectionCount: 65_536, maxStringBytes: 1 << 20, maxReferences: 1024,
                   maxTotalValues: maxTotalValues)
    }

    @Test func referencesCountAtTheirExpandedSize() throws {
        // 3 + 7 + 15 + 31 = 56 values once expanded, though only 16 markers are in the bytes.
        let values = try AMF0.decodeAll(Self.doublingArrays, limits: Self.limits(maxTotalValues: 56))
        #expect(values.count == 4)
        #expect(throws: AMF0Error.self) {
            try AMF0.decodeAll(Self.doublingArrays, limits: Self.limits(maxTotalValues: 55))
        }
    }

    @Test func referencesCountAtTheirExpandedDepth() throws {
        // Once expanded, the last array's null is at level 4; levels 0..<maxDepth are accepted.
        let values = try AMF0.decodeAll(Self.nestingArrays, limits: Self.limits(maxDepth: 5))
        #expect(values.count == 4)
        #expect(throws: AMF0Error.self) {
            try AMF0.decodeAll(Self.nestingArrays, limits: Self.limits(maxDepth: 4))
        }
    }

    @Test func whatDecodesReencodesWithinTheSameLimits() throws {
        let limits = Self.limits(maxDepth: 5, maxTotalValues: 56)
        for bytes in [Self.doublingArrays, Self.nestingArrays] {
            let encoded = AMF0.encode(try AMF0.decodeAll(bytes, limits: limits))
            var noReferenceLimit = limits
            noReferenceLimit.maxReferences = Int.max
            #expect(AMF0.encode(try AMF0.decodeAll(encoded, limits: noReferenceLimit)) == encoded)
        }
    }

    @Test func theOriginal436ByteBombIsRefusedWithDefaultLimits() {
        // 40 doubling arrays as above (2^41 - 1 values once expanded); the default limits stop it at the 17th.
        var bytes: [UInt8] = [0x0A, 0x00, 0x00, 0x00, 0x02, 0x05, 0x05]
        for previous in UInt8(0)..<39 {
            bytes += [0x0A, 0x00, 0x00, 0x00, 0x02, 0x07, 0x00, previous, 0x07, 0x00, previous]
        }
        #expect(bytes.count == 436)
        #expect(throws: AMF0Error.self) { try AMF0.decodeAll(bytes) }
    }
}
