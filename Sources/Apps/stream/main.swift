#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StreamCLI

exit(StreamCLIMain.run(CommandLine.arguments))
