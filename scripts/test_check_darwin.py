#!/usr/bin/env python3
"""Tests of scripts/check-darwin on tiny fixture packages: python3 scripts/test_check_darwin.py

Each fixture is a Package.swift with one library product, a few Swift files and an App/ with an XcodeGen spec, in a
temporary directory; nothing is compiled. The dirty fixture holds each mistake of issue 35's review once, in the
shape the review found it (and a comment naming one, which is not code); the clean fixture holds the same code as
it was fixed. CHECK_DARWIN=path runs the tests against another copy of the script.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.environ.get("CHECK_DARWIN") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-darwin")

MANIFEST = """\
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Fixture",
    products: [
        .library(name: "Kit", targets: ["Core", "Logic"]),
    ],
    targets: []
)
"""

COMMON = {
    "Package.swift": MANIFEST,
    "Sources/Base/Core/SettingsStore.swift": "public struct SettingsStore {}\n",
    "Sources/Clients/Logic/Plan.swift": "import Core\n\npublic enum Plan {}\n",
    # Linux-only by its unconditional Glibc import: unwrapping the start routine's argument is right there.
    "Sources/IO/Loop/Loop.swift": """
        import Glibc

        func start(_ context: UnsafeMutableRawPointer) {
            var thread = pthread_t()
            pthread_create(&thread, nil, { context in
                guard let context else { return nil }
                return nil
            }, context)
        }
        """,
    "App/Stream/Settings.swift": """
        import Logic

        struct Settings {
            let plan: Plan
        }
        """,
}

DIRTY = {
    # Line 8: the review's defect 1, in code both platforms compile.
    "Sources/Base/Locking/Thread.swift": """
        #if canImport(Glibc)
        import Glibc
        #endif

        func start(_ context: UnsafeMutableRawPointer) {
            var thread = pthread_t()
            pthread_create(&thread, nil, { context in
                guard let context else { return nil }
                return nil
            }, context)
        }
        """,
    # Line 1: defect 10.
    "Sources/Base/Core/Paths.swift": """
        #if canImport(FoundationEssentials)
        import FoundationEssentials
        import Glibc
        #else
        import Foundation
        #endif
        """,
    # Lines 7 and 8 (defect 7 and, in a comment, not a problem), 12 (defect 5), 15 and 17 (defect 2), 22 (defect 4),
    # 23 (defect 8).
    "App/StreamBroadcast/Pipeline.swift": """
        import AVFoundation
        import UIKit

        final class Pipeline: @unchecked Sendable {
            private let session = AVCaptureSession()
            private let queue = DispatchQueue(label: "pipeline")
            let scale = UITraitCollection.current.displayScale
            // UITraitCollection.current.displayScale is 0 in an extension.

            func start(timeout: Duration, converter: AVAudioConverter, output: AVAudioPCMBuffer,
                       input: AVAudioPCMBuffer) {
                queue.async { [session] in session.startRunning() }
                var provided = false
                var error: NSError?
                _ = converter.convert(to: output, error: &error) { [input] _, status in
                    if provided { return nil }
                    provided = true
                    status.pointee = .haveData
                    return input
                }
                _ = error
                let store = SettingsStore()
                queue.asyncAfter(deadline: .now() + Double(timeout.components.seconds)) { _ = store }
            }
        }
        """,
    # Lines 13 and 16: defect 3, the whole parameter assigned a non-Sendable value made outside, in both spellings.
    "App/StreamBroadcast/Handler.swift": """
        import Synchronization

        final class Worker {
            init() throws {}
        }

        final class Handler: @unchecked Sendable {
            private let worker = Mutex<Worker?>(nil)

            func start() throws {
                let made = try Worker()
                worker.withLock { worker in
                    worker = made
                }
                let again = try Worker()
                worker.withLock { $0 = again }
            }
        }
        """,
    # Line 6 (the Stream target, whose Settings.swift imports Logic), line 17 (the process mode).
    "App/project.yml": """
        name: Stream
        packages:
          StreamPackage:
            path: ..
        targets:
          Stream:
            type: application
            sources:
              - path: Stream
            dependencies:
              - target: StreamBroadcast
          StreamBroadcast:
            type: app-extension
            info:
              properties:
                NSExtension:
                  RPBroadcastProcessMode: RPBroadcastProcessModeSampleBuffer
        """,
}

CLEAN = {
    "Sources/Base/Locking/Thread.swift": """
        #if canImport(Glibc)
        import Glibc
        #endif

        func start(_ context: UnsafeMutableRawPointer) {
            #if canImport(Glibc)
            var thread = pthread_t()
            pthread_create(&thread, nil, { context in
                guard let context else { return nil }
                return nil
            }, context)
            #else
            var thread: pthread_t?
            pthread_create(&thread, nil, { context in
                _ = context
                return nil
            }, context)
            #endif
        }
        """,
    "Sources/Base/Core/Paths.swift": """
        #if canImport(Glibc)
        import FoundationEssentials
        import Glibc
        #else
        import Foundation
        #endif
        """,
    "App/StreamBroadcast/Pipeline.swift": """
        import AVFoundation
        import Core
        import UIKit

        final class Pipeline: @unchecked Sendable {
            private let session = AVCaptureSession()
            private let queue = DispatchQueue(label: "pipeline")
            // UITraitCollection.current.displayScale is 0 in an extension.

            func start(timeout: Duration, converter: AVAudioConverter, output: AVAudioPCMBuffer,
                       input: AVAudioPCMBuffer) {
                queue.async { [self] in session.startRunning() }
                nonisolated(unsafe) var provided = false
                nonisolated(unsafe) let buffer = input
                var error: NSError?
                _ = converter.convert(to: output, error: &error) { _, status in
                    if provided { return nil }
                    provided = true
                    status.pointee = .haveData
                    return buffer
                }
                _ = error
                let store = SettingsStore()
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
                queue.asyncAfter(deadline: .now() + seconds) { _ = store }
            }
        }
        """,
    # Made inside the lock, and a Sendable value from outside: neither is a problem.
    "App/StreamBroadcast/Handler.swift": """
        import Synchronization

        final class Worker {
            init() throws {}
        }

        final class Counter: Sendable {}

        final class Handler: @unchecked Sendable {
            private let worker = Mutex<Worker?>(nil)
            private let counter = Mutex<Counter?>(nil)

            func start() {
                worker.withLock { worker in
                    worker = try? Worker()
                }
                let made = Counter()
                counter.withLock { $0 = made }
            }
        }
        """,
    "App/project.yml": """
        name: Stream
        packages:
          StreamPackage:
            path: ..
        targets:
          Stream:
            type: application
            sources:
              - path: Stream
            dependencies:
              - target: StreamBroadcast
              - package: StreamPackage
                product: Kit
                link: false
          StreamBroadcast:
            type: app-extension
            info:
              properties:
                NSExtension:
                  NSExtensionAttributes:
                    RPBroadcastProcessMode: RPBroadcastProcessModeSampleBuffer
        """,
}


def make_package(directory, files):
    for path, content in files.items():
        full = os.path.join(directory, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(content).lstrip("\n"))


def run(*arguments):
    return subprocess.run([sys.executable, SCRIPT, *arguments], capture_output=True, text=True, timeout=60)


class CheckDarwinTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.temporary = tempfile.TemporaryDirectory(prefix="check-darwin-tests-")
        cls.clean = os.path.join(cls.temporary.name, "clean")
        cls.dirty = os.path.join(cls.temporary.name, "dirty")
        make_package(cls.clean, {**COMMON, **CLEAN})
        make_package(cls.dirty, {**COMMON, **DIRTY})
        cls.dirty_run = run(cls.dirty)
        cls.problems = [line[len("check-darwin: "):] for line in cls.dirty_run.stderr.splitlines()
                        if line.startswith("check-darwin: ") and " problem(s) " not in line]

    @classmethod
    def tearDownClass(cls):
        cls.temporary.cleanup()

    def assertProblem(self, place, rule, words):
        """The dirty run failed with a problem at `place` (file:line) of `rule` whose text contains `words`."""
        self.assertEqual(self.dirty_run.returncode, 1, self.dirty_run.stderr)
        self.assertTrue(any(p.startswith(f"{place}: [{rule}] ") and words in p for p in self.problems),
                        f"no [{rule}] at {place} saying {words!r}; problems:\n" + "\n".join(self.problems))

    def test_an_optional_start_routine_argument_compiled_on_darwin_fails(self):
        self.assertProblem("Sources/Base/Locking/Thread.swift:8", "pthread-optional", "unwrapping `context`")

    def test_a_module_presence_selecting_the_platform_fails(self):
        self.assertProblem("Sources/Base/Core/Paths.swift:1", "platform-by-module", "test `canImport(Glibc)`")

    def test_traits_in_the_extension_fail(self):
        self.assertProblem("App/StreamBroadcast/Pipeline.swift:7", "extension-traits", "is 0 there")

    def test_a_captured_session_in_a_queue_block_fails(self):
        self.assertProblem("App/StreamBroadcast/Pipeline.swift:12", "sendable-capture",
                           "captures `session`, an AVCaptureSession")

    def test_a_captured_buffer_in_an_input_block_fails(self):
        self.assertProblem("App/StreamBroadcast/Pipeline.swift:15", "sendable-capture",
                           "captures `input`, an AVAudioPCMBuffer")

    def test_an_input_block_assigning_a_captured_var_fails(self):
        self.assertProblem("App/StreamBroadcast/Pipeline.swift:17", "input-block-var", "the captured var `provided`")

    def test_a_non_sendable_value_made_outside_the_lock_fails(self):
        self.assertProblem("App/StreamBroadcast/Handler.swift:13", "outside-value",
                           "assigns `made`, a Worker (not Sendable) made outside the closure")
        self.assertProblem("App/StreamBroadcast/Handler.swift:16", "outside-value", "assigns `again`, a Worker")

    def test_a_package_type_without_its_import_fails(self):
        self.assertProblem("App/StreamBroadcast/Pipeline.swift:22", "missing-import",
                           "uses SettingsStore, a type of Core, without `import Core`")

    def test_whole_seconds_fail(self):
        self.assertProblem("App/StreamBroadcast/Pipeline.swift:23", "whole-seconds", "add `attoseconds`")

    def test_a_target_without_the_product_of_its_imports_fails(self):
        self.assertProblem("App/project.yml:6", "project-products",
                           "target Stream compiles App/Stream/Settings.swift, which imports Logic")

    def test_the_process_mode_outside_the_attributes_fails(self):
        self.assertProblem("App/project.yml:17", "process-mode", "not from under `NSExtension:`")

    def test_a_comment_and_a_linux_only_file_are_not_problems(self):
        self.assertEqual(self.dirty_run.returncode, 1, self.dirty_run.stderr)
        self.assertEqual([p for p in self.problems if "Pipeline.swift:8: " in p or "Loop.swift" in p], [],
                         "\n".join(self.problems))

    def test_each_problem_is_reported_once(self):
        self.assertEqual(len(self.problems), 12, "\n".join(self.problems))
        self.assertIn("check-darwin: 12 problem(s) ", self.dirty_run.stderr)

    def test_the_fixed_code_passes(self):
        result = run(self.clean)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")

    def test_an_option_is_a_usage_error(self):
        self.assertEqual(run("--all").returncode, 2)


if __name__ == "__main__":
    unittest.main()
