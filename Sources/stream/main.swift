import Foundation
import StreamCLI

exit(StreamCLIMain.run(CommandLine.arguments))
