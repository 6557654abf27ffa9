// stream-bench: measures Stream's hot paths beside ffmpeg and nginx-rtmp and prints one table.
// scripts/bench.sh builds it in release mode and runs it; see `stream-bench --help`.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == "pipeline-child" {
        let numbers = arguments.dropFirst().compactMap { Int($0) }
        guard numbers.count == 4 else { throw BenchError("usage: pipeline-child WIDTH HEIGHT FPS FRAMES") }
        try PipelineBench.child(width: numbers[0], height: numbers[1], fps: numbers[2], frames: numbers[3])
    } else if arguments.first == "paused-child" {
        let numbers = arguments.dropFirst().compactMap { Int($0) }
        guard numbers.count == 2 else { throw BenchError("usage: paused-child PORT SECONDS") }
        try IdleBench.pausedChild(port: numbers[0], seconds: numbers[1])
    } else if arguments.first == "http-child" {
        guard arguments.count == 3, let port = Int(arguments[1]) else { throw BenchError("usage: http-child PORT DIR") }
        try HTTPBenchServer.child(port: port, directory: arguments[2])
    } else {
        let options = try BenchOptions(parsing: arguments)
        if options.help {
            print(BenchOptions.usage)
        } else {
            try BenchRunner(options: options).run()
        }
    }
} catch {
    FileHandle.standardError.write(Data("stream-bench: \(error)\n".utf8))
    exit(1)
}
