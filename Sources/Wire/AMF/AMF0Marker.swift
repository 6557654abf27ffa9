/// AMF0 type markers (AMF0 spec §2.1).
enum AMF0Marker {
    static let number: UInt8 = 0x00
    static let boolean: UInt8 = 0x01
    static let string: UInt8 = 0x02
    static let object: UInt8 = 0x03
    static let movieclip: UInt8 = 0x04  // reserved, not supported
    static let null: UInt8 = 0x05
    static let undefined: UInt8 = 0x06
    static let reference: UInt8 = 0x07
    static let ecmaArray: UInt8 = 0x08
    static let objectEnd: UInt8 = 0x09
    static let strictArray: UInt8 = 0x0A
    static let date: UInt8 = 0x0B
    static let longString: UInt8 = 0x0C
    static let unsupported: UInt8 = 0x0D
    static let recordset: UInt8 = 0x0E  // reserved, not supported
    static let xmlDocument: UInt8 = 0x0F
    static let typedObject: UInt8 = 0x10
    static let avmplusObject: UInt8 = 0x11  // switch to AMF3: not supported here
}
