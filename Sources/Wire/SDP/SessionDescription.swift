/// An SDP session description (RFC 8866) as lines: the session part and its media sections.
///
/// This is the grammar only: `x=value` lines, `a=name:value` attributes, `m=` starting a media section. What the
/// lines mean for WHIP is read by ``WHIPAnswer``; what we send is built by ``WHIPOffer``.
public struct SessionDescription: Sendable, Hashable {
    /// Largest description accepted: a WHIP answer is a few kilobytes; anything near this is hostile.
    public static let maximumSize = 64 * 1024
    /// Most media sections accepted (a publisher offers two).
    public static let maximumMediaSections = 16

    /// One `x=value` line.
    public struct Line: Sendable, Hashable {
        /// The one-letter type (`v`, `o`, `a`, ...).
        public var type: Character
        /// Everything after `=`.
        public var value: String

        /// Creates a line.
        public init(_ type: Character, _ value: String) {
            self.type = type
            self.value = value
        }

        /// For an `a=` line, the attribute name and its value (nil for a flag such as `a=rtcp-mux`).
        public var attribute: (name: String, value: String?)? {
            guard type == "a" else { return nil }
            guard let colon = value.firstIndex(of: ":") else { return (value, nil) }
            return (String(value[..<colon]), String(value[value.index(after: colon)...]))
        }
    }

    /// One `m=` section: its media line and the lines below it.
    public struct Media: Sendable, Hashable {
        /// `audio`, `video`, `application`, ...
        public var kind: String
        /// The port; 0 marks a rejected section (RFC 8866 §5.14, RFC 3264 §6).
        public var port: Int
        /// The transport protocol, e.g. `UDP/TLS/RTP/SAVPF`.
        public var proto: String
        /// The formats (RTP payload types as text).
        public var formats: [String]
        /// The lines after the `m=` line, in order.
        public var lines: [Line]

        /// Creates a media section.
        public init(kind: String, port: Int, proto: String, formats: [String], lines: [Line] = []) {
            self.kind = kind
            self.port = port
            self.proto = proto
            self.formats = formats
            self.lines = lines
        }

        /// Values of every `a=name:value` attribute with this name, in order.
        public func attributes(_ name: String) -> [String] {
            lines.compactMap { line in
                guard let attribute = line.attribute, attribute.name == name else { return nil }
                return attribute.value ?? ""
            }
        }

        /// The first value of attribute `name` (empty for a flag), or nil when absent.
        public func attribute(_ name: String) -> String? {
            attributes(name).first
        }
    }

    /// The lines before the first `m=` line.
    public var session: [Line]
    /// The media sections in order.
    public var media: [Media]

    /// Creates a description.
    public init(session: [Line], media: [Media]) {
        self.session = session
        self.media = media
    }

    /// Values of every session-level `a=name:value` attribute with this name.
    public func sessionAttributes(_ name: String) -> [String] {
        session.compactMap { line in
            guard let attribute = line.attribute, attribute.name == name else { return nil }
            return attribute.value ?? ""
        }
    }

    /// Parses a description. Lines end in CRLF (RFC 8866 §5) or, leniently, LF; blank lines are skipped.
    /// - Parameter text: the description.
    /// - Throws: ``SDPError`` `.tooLarge`, or `.malformed` naming the line.
    public init(parsing text: String) throws(SDPError) {
        guard text.utf8.count <= Self.maximumSize else {
            throw SDPError(.tooLarge, "the session description is \(text.utf8.count) bytes, more than the "
                + "\(Self.maximumSize) accepted")
        }
        var session: [Line] = []
        var media: [Media] = []
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var line = raw[...]
            while line.hasSuffix("\r") { line = line.dropLast() }  // stray CRs before the line end are not content
            if line.isEmpty { continue }
            // RFC 8866 §9: no field may hold CR, LF or NUL.
            guard !line.contains("\r"), !line.contains("\0") else {
                throw SDPError(.malformed, "SDP line \(number) holds a carriage return or NUL inside it")
            }
            guard line.count >= 2, let type = line.first, type.isASCII, type.isLetter,
                  line[line.index(after: line.startIndex)] == "=" else {
                throw SDPError(.malformed, "SDP line \(number) is not of the form x=value: "
                    + "\"\(line.prefix(40))\"")
            }
            let value = String(line.dropFirst(2))
            if number == 1 && type != "v" {
                throw SDPError(.malformed, "SDP must start with v=0, not \"\(line.prefix(40))\"")
            }
            if type == "m" {
                guard media.count < Self.maximumMediaSections else {
                    throw SDPError(.tooLarge, "the session description has more than "
                        + "\(Self.maximumMediaSections) media sections")
                }
                media.append(try Self.mediaLine(value, number: number))
            } else if media.isEmpty {
                session.append(Line(type, value))
            } else {
                media[media.count - 1].lines.append(Line(type, value))
            }
        }
        guard session.first == Line("v", "0") else {
            throw SDPError(.malformed, "SDP must start with v=0")
        }
        self.init(session: session, media: media)
    }

    /// The description as text, each line ending in CRLF.
    public var text: String {
        var out = ""
        for line in session { out += "\(line.type)=\(line.value)\r\n" }
        for section in media {
            out += "m=\(section.kind) \(section.port) \(section.proto) \(section.formats.joined(separator: " "))\r\n"
            for line in section.lines { out += "\(line.type)=\(line.value)\r\n" }
        }
        return out
    }

    /// RFC 8866 §5.14: `m=<media> <port>[/<number of ports>] <proto> <fmt> ...`.
    private static func mediaLine(_ value: String, number: Int) throws(SDPError) -> Media {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let portField = fields.count > 1 ? fields[1].split(separator: "/").first.map(String.init) : nil
        guard fields.count >= 4, let portField, let port = Int(portField), (0...65535).contains(port) else {
            throw SDPError(.malformed, "SDP line \(number): \"m=\(value.prefix(60))\" is not "
                + "m=<media> <port> <proto> <formats>")
        }
        return Media(kind: fields[0], port: port, proto: fields[2], formats: Array(fields[3...]))
    }
}
