#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Where a small named blob (the settings JSON) is shared between processes: App Group user defaults on Apple,
/// a directory of files elsewhere.
public protocol SharedBlobStorage: Sendable {
    /// Reads the blob stored under `key`.
    /// - Parameters:
    ///   - key: e.g. `stream.settings.v1`.
    ///   - maximumSize: blobs larger than this are reported as `.tooLarge` and not loaded.
    /// - Throws: `StreamCoreError` when the store itself cannot be read.
    func read(key: String, maximumSize: Int) throws -> BlobReadResult

    /// Replaces the blob under `key` atomically.
    /// - Throws: `StreamCoreError` when it cannot be written.
    func write(_ data: Data, key: String) throws

    /// Moves the blob under `key` aside so that nothing overwrites it, and removes it from `key`.
    /// - Parameters:
    ///   - key: the blob's key.
    ///   - stamp: a label making the new name unique, e.g. `20261129T181500Z`.
    /// - Returns: where it went, for telling the user (a path, or a defaults key).
    /// - Throws: `StreamCoreError` when it cannot be moved.
    func setAside(key: String, stamp: String) throws -> String

    /// Where the blob for `key` lives, for messages.
    func location(key: String) -> String
}

/// The outcome of reading a shared blob.
public enum BlobReadResult: Sendable, Equatable {
    /// Nothing is stored under the key.
    case missing
    /// Something is stored but it is larger than allowed.
    case tooLarge(byteCount: Int)
    /// Something is stored but it is not bytes or text (e.g. a property list dictionary in user defaults).
    case notData
    /// The stored bytes.
    case data(Data)
}
