import Foundation
import TestSupport
import Testing
@testable import StreamCLI

/// `stream serve --webhook`'s options: what is refused before anything starts, and a queue left by a crash.
@Suite struct ServeWebhooksTests {
    private func make(_ arguments: [String], dataDirectory: String? = "/tmp/unused",
                      console: Console = ConsoleCapture().console) throws -> ServeWebhooks? {
        let parsed = try ArgumentParser.parse(arguments, options: ServeWebhooks.options)
        return try ServeWebhooks.make(parsed, dataDirectory: dataDirectory, console: console)
    }

    private func usage(_ arguments: [String], dataDirectory: String? = "/tmp/unused") -> String? {
        do {
            _ = try make(arguments, dataDirectory: dataDirectory)
            return nil
        } catch let error as CLIError {
            return error.exitCode == ExitCode.usage ? error.message : "not a usage error: \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    private func secretFile(_ work: TemporaryDirectory, _ text: String, mode: mode_t = 0o600) throws -> String {
        let path = work.file("webhook-secret-\(mode)-\(text.count)")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test func refusesWhatCannotWorkBeforeAnythingStarts() throws {
        let work = try TemporaryDirectory("webhooks-options")
        let good = try secretFile(work, "0123456789abcdef0123\n")
        #expect(try make([]) == nil)
        #expect(usage(["--webhook-secret-file", good])?.contains("needs --webhook URL") == true)
        #expect(usage(["--webhook", "ftp://backend/x", "--webhook-secret-file", good])?.contains("http") == true)
        #expect(usage(["--webhook", "http://127.0.0.1:9/x", "--webhook-secret-file", good], dataDirectory: nil)?
                    .contains("needs --shows") == true)
        #expect(usage(["--webhook", "http://127.0.0.1:9/x"])?.contains("--webhook-secret-file") == true)
        let open = try secretFile(work, "0123456789abcdef0123\n", mode: 0o640)
        let refused = usage(["--webhook", "http://127.0.0.1:9/x", "--webhook-secret-file", open]) ?? ""
        #expect(refused.contains("can be read by others") && refused.contains("chmod 600"), "\(refused)")
        let short = try secretFile(work, "short\n")
        #expect(usage(["--webhook", "http://127.0.0.1:9/x", "--webhook-secret-file", short])?
                    .contains("shorter than 16 bytes") == true)
    }

    @Test func cutsATornRecordAndKeepsWhatWasQueued() async throws {
        let work = try TemporaryDirectory("webhooks-queue")
        let secret = try secretFile(work, "0123456789abcdef0123\n")
        let whole = WebhookJournal.queueRecord(WebhookJournal.Entry(
            id: "evt_1", body: Array(#"{"id":"evt_1","type":"show.live"}"#.utf8)))
        let torn = Array(#"Q 00000000 {"id":"evt_2","ty"#.utf8)
        let queue = work.file(ServeWebhooks.fileName)
        #expect(FileManager.default.createFile(atPath: queue, contents: Data(whole + torn)))
        let capture = ConsoleCapture()
        let webhooks = try #require(try make(
            ["--webhook", "http://127.0.0.1:9/hooks?key=hidden", "--webhook-secret-file", secret],
            dataDirectory: work.path, console: capture.console))
        await webhooks.stop()
        #expect(try Data(contentsOf: URL(fileURLWithPath: queue)) == Data(whole))
        #expect(capture.output.contains("left out \(torn.count) bytes of a torn record"), "\(capture.output)")
        #expect(capture.output.contains("1 event queued before the last stop go to http://127.0.0.1:9"))
        #expect(!capture.output.contains("hidden") && !capture.output.contains("0123456789abcdef"))
    }
}
