// StreamCore.framework: the one copy of the package's modules shared by the app and its broadcast extension.
// Its own module (StreamCoreFramework) only re-exports them; the app and the extension import the modules by name.
@_exported import AppLogic
@_exported import Encoders
@_exported import Engine
@_exported import FLV
@_exported import LiveProtocol
@_exported import Media
@_exported import Publisher
@_exported import RealtimeCalls
@_exported import RTMP
@_exported import StreamCore
