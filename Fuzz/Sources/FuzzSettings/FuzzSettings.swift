import Foundation
import FuzzSupport
import StreamCore

/// The settings blob (`stream.settings.v1`): decoding arbitrary bytes never traps, and settings that decode
/// re-encode to a blob that decodes without warnings to the same bytes again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSettings(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard case .success(let (settings, _)) = SettingsStore.decode(Data(input.bytes)) else { return 0 }
    let blob = SettingsStore.encode(settings)
    switch SettingsStore.decode(blob) {
    case .success(let (again, warnings)):
        fuzzCheck(warnings.isEmpty, "re-encoded settings decode with \(warnings.count) warnings")
        fuzzCheck(again == settings, "re-encoded settings decode to different settings")
        fuzzCheck(SettingsStore.encode(again) == blob, "settings re-encoding is not stable")
    case .failure(let failure):
        fuzzFail("re-encoded settings do not decode: \(failure.message)")
    }
    return 0
}
