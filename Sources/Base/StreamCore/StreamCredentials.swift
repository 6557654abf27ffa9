#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The connection secrets: where to publish and the stream key. Never stored with the settings.
///
/// Its description, debug description and mirror all mask the key.
public struct StreamCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable {
    /// The ingest server.
    public var url: IngestURL
    /// The publish name given by the service; sent with `publish`, never in the URL.
    public var streamKey: String

    /// The longest accepted stream key, in UTF-8 bytes.
    public static let maximumStreamKeyLength = 1024
    /// The longest accepted WHIP bearer token, in UTF-8 bytes: JWTs with many claims pass 1 KB, and HTTP servers
    /// commonly take 8 KB of request headers.
    public static let maximumTokenLength = 6 * 1024

    /// Creates credentials.
    /// - Parameters:
    ///   - url: the parsed ingest URL.
    ///   - streamKey: the key (check it with `validateStreamKey(_:)` first when it comes from a user).
    public init(url: IngestURL, streamKey: String) {
        self.url = url
        self.streamKey = streamKey
    }

    /// `rtmps://host/app/••••`.
    public var description: String { url.redactedDescription(streamKey: streamKey) }

    /// Same as `description`: the key is masked.
    public var debugDescription: String { "StreamCredentials(\(description))" }

    /// A mirror with the key masked, so `dump` and debuggers do not reveal it.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": url.tcUrl, "streamKey": Redaction.mask])
    }

    /// Checks a key a user typed: not empty, at most 1024 bytes (a WHIP bearer token: 6 KB), no whitespace or
    /// control characters.
    /// - Parameters:
    ///   - key: the key, already stripped of a trailing newline.
    ///   - scheme: where it goes: a WHIP endpoint (http, https) takes a bearer token.
    /// - Throws: `CredentialsError` describing the problem without echoing the key.
    public static func validateStreamKey(_ key: String, for scheme: IngestURL.Scheme = .rtmp) throws {
        let what = scheme.isWHIP ? "bearer token" : "stream key"
        let limit = scheme.isWHIP ? maximumTokenLength : maximumStreamKeyLength
        if key.isEmpty {
            throw CredentialsError("the \(what) is empty: copy it from your streaming service's dashboard")
        }
        if key.utf8.count > limit {
            throw CredentialsError("the \(what) is longer than \(limit) bytes")
        }
        if key.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            throw CredentialsError("the \(what) contains spaces or control characters: paste it again")
        }
    }

    /// Encodes as `{"streamKey": ..., "url": tcUrl}` for a credential store.
    public func encoded() -> Data {
        let object = ["url": url.tcUrl, "streamKey": streamKey]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A dictionary of two strings always encodes.
        return (try? encoder.encode(object)) ?? Data()
    }

    /// Decodes what `encoded()` produced.
    /// - Parameters:
    ///   - data: the stored bytes.
    ///   - location: where they came from, for the error message.
    /// - Throws: `StreamCoreError` (`.corruptCredentials`) without echoing the stored content.
    public static func decode(_ data: Data, location: String) throws -> StreamCredentials {
        let corrupt = StreamCoreError(.corruptCredentials, "the credentials in \(location) are unreadable: "
                                        + "set them again with `stream credentials set`")
        guard let object = try? JSONDecoder().decode([String: String].self, from: data),
              let urlText = object["url"], let key = object["streamKey"],
              let url = try? IngestURL(parsing: urlText)
        else { throw corrupt }
        return StreamCredentials(url: url, streamKey: key)
    }
}

/// A stream key or credentials problem, described without the key.
public struct CredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to do.
    public let message: String

    /// Creates an error.
    /// - Parameter message: must not contain the key.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
