#!/usr/bin/env python3
"""Tests of scripts/check-deps on tiny fixture packages: python3 scripts/test_check_deps.py

Each fixture is a Package.swift (targets with explicit `path: "Sources/<Layer>/<Name>"`) and one file of import lines
per target, in a temporary directory. Nothing is compiled: check-deps only runs `swift package dump-package` (a
second or so a run), so the fixtures are few: one clean package, one package with one problem of each kind (each in
its own file, so each problem is found by its file:line and reason), and a copy of the clean one for the document.
CHECK_DEPS=path runs the tests against another copy of the script.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.environ.get("CHECK_DEPS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-deps")


def make_package(directory, name, targets, files):
    """Writes a fixture package: `targets` are the lines of Package.swift's targets array, `files` maps paths to
    contents."""
    manifest = ("// swift-tools-version:6.0\n"
                "import PackageDescription\n"
                "\n"
                "let package = Package(\n"
                f'    name: "{name}",\n'
                "    targets: [\n"
                + "".join(f"        {line}\n" for line in targets)
                + "    ]\n"
                ")\n")
    with open(os.path.join(directory, "Package.swift"), "w", encoding="utf-8") as handle:
        handle.write(manifest)
    for path, content in files.items():
        full = os.path.join(directory, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(content).lstrip("\n"))


def run(package_dir, *arguments):
    """Runs check-deps on a package (from the package's directory): the completed process."""
    return subprocess.run([sys.executable, SCRIPT, *arguments, "."], cwd=package_dir, capture_output=True, text=True,
                          timeout=120)


# A package that follows every rule: imports of lower layers, a listed sideways driver edge (Engine → Publisher),
# system modules outside Wire, a test helper under Tests/ and a test importing an Apps target (both exempt), a C
# target, an executable whose name is not an identifier, a conditional dependency.
CLEAN_TARGETS = [
    '.target(name: "CShim", path: "Sources/System/CShim"),',
    '.target(name: "ByteIO", path: "Sources/Base/ByteIO"),',
    '.target(name: "Locking", path: "Sources/Base/Locking"),',
    '.target(name: "AMF", dependencies: ["ByteIO"], path: "Sources/Wire/AMF"),',
    '.target(name: "Transport",',
    '        dependencies: ["Locking", .target(name: "CShim", condition: .when(platforms: [.linux]))],',
    '        path: "Sources/IO/Transport"),',
    '.target(name: "Publisher", dependencies: ["AMF", "Transport"], path: "Sources/Drivers/Publisher"),',
    '.target(name: "Engine", dependencies: ["Publisher", "Locking"], path: "Sources/Drivers/Engine"),',
    '.target(name: "StreamCLI", dependencies: ["Engine", "Transport"], path: "Sources/Apps/StreamCLI"),',
    '.executableTarget(name: "stream-bench", dependencies: ["StreamCLI"], path: "Sources/Apps/StreamBench"),',
    '.target(name: "TestSupport", dependencies: ["Locking"], path: "Tests/TestSupport"),',
    '.testTarget(name: "EngineTests", dependencies: ["Engine", "StreamCLI", "TestSupport"], path: "Tests/EngineTests"),',
]
CLEAN_FILES = {
    "Sources/System/CShim/shim.c": "#include <stdio.h>\n#include <CShim.h>\n",
    "Sources/System/CShim/include/CShim.h": "int shim(void);\n",
    "Sources/Base/ByteIO/ByteIO.swift": "public struct Bytes {}\n",
    "Sources/Base/Locking/Locking.swift": "import Glibc\n",
    "Sources/Wire/AMF/AMF.swift": "import ByteIO\n",
    "Sources/IO/Transport/Transport.swift": """
        import Locking
        #if os(Linux)
        import CShim
        import Glibc
        #endif
        import Dispatch
        """,
    "Sources/Drivers/Publisher/Publisher.swift": "import AMF\nimport Foundation\nimport Transport\n",
    "Sources/Drivers/Engine/Engine.swift": "import Locking\nimport Publisher\n",
    "Sources/Apps/StreamCLI/CLI.swift": "import Engine\nimport Transport\n",
    "Sources/Apps/StreamBench/main.swift": "import StreamCLI\n",
    "Tests/TestSupport/Support.swift": "import Locking\n",
    "Tests/EngineTests/EngineTests.swift": "@testable import Engine\nimport StreamCLI\nimport TestSupport\nimport XCTest\n",
}
CLEAN_GRAPH = """\
flowchart TD
    subgraph layer_System["System"]
        CShim
    end
    subgraph layer_Base["Base"]
        ByteIO
        Locking
    end
    subgraph layer_Wire["Wire"]
        AMF
    end
    subgraph layer_IO["IO"]
        Transport
    end
    subgraph layer_Drivers["Drivers"]
        Engine
        Publisher
    end
    subgraph layer_Apps["Apps"]
        StreamCLI
        stream_bench["stream-bench"]
    end
    AMF --> ByteIO
    Engine --> Locking
    Engine --> Publisher
    Publisher --> AMF
    Publisher --> Transport
    StreamCLI --> Engine
    StreamCLI --> Transport
    Transport --> CShim
    Transport --> Locking
    stream_bench --> StreamCLI
"""

# One problem of each kind, each in its own file (every other import declared and along the layers), and one
# listed sideways driver import (Engine → Publisher) that must not be a problem.
DIRTY_TARGETS = [
    '.target(name: "ByteIO", path: "Sources/Base/ByteIO"),',
    '.target(name: "Locking", dependencies: ["SDP"], path: "Sources/Base/Locking"),',
    '.target(name: "SDP", path: "Sources/Wire/SDP"),',
    '.target(name: "AMF", dependencies: ["ByteIO", "Transport"], path: "Sources/Wire/AMF"),',
    '.target(name: "RTP", dependencies: ["ByteIO"], path: "Sources/Wire/RTP"),',
    '.target(name: "HTTP", dependencies: ["ByteIO"], path: "Sources/Wire/HTTP"),',
    '.target(name: "Transport", path: "Sources/IO/Transport"),',
    '.target(name: "Publisher", path: "Sources/Drivers/Publisher"),',
    '.target(name: "Engine", dependencies: ["Publisher"], path: "Sources/Drivers/Engine"),',
    '.target(name: "LiveHLS", dependencies: ["Engine"], path: "Sources/Drivers/LiveHLS"),',
    '.target(name: "IngestServer", dependencies: ["StreamCLI"], path: "Sources/Drivers/IngestServer"),',
    '.target(name: "StreamCLI", dependencies: ["Engine"], path: "Sources/Apps/StreamCLI"),',
    '.target(name: "Loose", path: "Sources/Loose"),',
]
DIRTY_FILES = {
    "Sources/Base/ByteIO/ByteIO.swift": "public struct Bytes {}\n",
    "Sources/Base/Locking/Locking.swift": "import SDP\n",
    "Sources/Wire/SDP/SDP.swift": "public struct Offer {}\n",
    "Sources/Wire/AMF/AMF.swift": "import ByteIO\nimport Transport\n",
    "Sources/Wire/RTP/RTP.swift": "import ByteIO\n#if os(Linux)\nimport Glibc\n#endif\n",
    "Sources/Wire/RTP/Offer.swift": "/// The same name as SDP's.\npublic struct Offer {}\n",
    "Sources/Wire/HTTP/HTTP.swift": "import ByteIO\nimport Dispatch\n",
    "Sources/IO/Transport/Transport.swift": "import Glibc\n",
    "Sources/Drivers/Publisher/Publisher.swift": "import Transport\n",
    "Sources/Drivers/Engine/Engine.swift": "import Publisher\n",
    "Sources/Drivers/LiveHLS/LiveHLS.swift": "import Engine\n",
    "Sources/Drivers/IngestServer/IngestServer.swift": "import StreamCLI\n",
    "Sources/Apps/StreamCLI/CLI.swift": "import Engine\n",
    "Sources/Loose/Loose.swift": "public struct Loose {}\n",
}

STALE_DOC = """\
# Architecture

The layers, lowest first.

<!-- module-graph:begin -->
```mermaid
flowchart TD
    Old --> Graph
```
<!-- module-graph:end -->

Text after the graph.
"""


class CheckDepsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.temporary = tempfile.TemporaryDirectory(prefix="check-deps-tests-")
        cls.clean = os.path.join(cls.temporary.name, "clean")
        cls.dirty = os.path.join(cls.temporary.name, "dirty")
        os.makedirs(cls.clean)
        os.makedirs(cls.dirty)
        make_package(cls.clean, "Clean", CLEAN_TARGETS, CLEAN_FILES)
        make_package(cls.dirty, "Dirty", DIRTY_TARGETS, DIRTY_FILES)
        cls.dirty_run = run(cls.dirty)
        cls.problems = [line[len("check-deps: "):] for line in cls.dirty_run.stderr.splitlines()
                        if line.startswith("check-deps: ") and " problem(s): " not in line]

    @classmethod
    def tearDownClass(cls):
        cls.temporary.cleanup()

    def assertProblem(self, place, reason):
        """The dirty fixture's run failed, with a problem at `place` (file:line) whose reason contains `reason`."""
        self.assertEqual(self.dirty_run.returncode, 1, self.dirty_run.stderr)
        at_place = [p for p in self.problems if p.startswith(place + ": ") or f" {place} " in p]
        self.assertTrue(any(reason in p for p in at_place),
                        f"no problem at {place} saying {reason!r}; problems:\n" + "\n".join(self.problems))

    # One name, one thing.

    def test_a_public_type_in_two_modules_fails(self):
        self.assertEqual(self.dirty_run.returncode, 1, self.dirty_run.stderr)
        self.assertTrue(any(p.startswith("public type Offer is declared by 2 modules: RTP (Sources/Wire/RTP/Offer.swift:2)"
                                         ", SDP (Sources/Wire/SDP/SDP.swift:1)") for p in self.problems),
                        "\n".join(self.problems))

    # The existing rule: imports must match the declared dependencies.

    def test_undeclared_import_fails(self):
        self.assertProblem("Sources/Drivers/Publisher/Publisher.swift:1",
                           "imports Transport, which Package.swift does not declare as a dependency of Publisher")

    # Layer rules.

    def test_wire_importing_transport_fails(self):
        self.assertProblem("Sources/Wire/AMF/AMF.swift:2",
                           "AMF (Wire) imports Transport (IO): Wire is pure; it may import only Wire targets and "
                           "ByteIO, Digest, JSON")

    def test_wire_importing_glibc_fails(self):
        self.assertProblem("Sources/Wire/RTP/RTP.swift:3", "RTP (Wire) imports Glibc: Wire is pure")

    def test_wire_importing_dispatch_fails(self):
        self.assertProblem("Sources/Wire/HTTP/HTTP.swift:2", "HTTP (Wire) imports Dispatch: Wire is pure")

    def test_driver_importing_an_apps_target_fails(self):
        self.assertProblem("Sources/Drivers/IngestServer/IngestServer.swift:1",
                           "IngestServer (Drivers) imports StreamCLI, an Apps target: only Apps targets may import "
                           "Apps targets")

    def test_upward_import_fails(self):
        self.assertProblem("Sources/Base/Locking/Locking.swift:1",
                           "Locking (Base) imports SDP (Wire), which points up the layers")

    def test_unlisted_sideways_driver_import_fails(self):
        self.assertProblem("Sources/Drivers/LiveHLS/LiveHLS.swift:1",
                           "LiveHLS (Drivers) imports Engine, another driver: a sideways import between drivers must "
                           "be listed in DRIVERS_SIDEWAYS_ALLOWLIST")

    def test_listed_sideways_driver_import_passes(self):
        self.assertEqual(self.dirty_run.returncode, 1, self.dirty_run.stderr)
        self.assertEqual([p for p in self.problems if "Engine.swift" in p or "Engine (Drivers)" in p], [])

    def test_target_outside_the_layers_fails(self):
        self.assertProblem("Package.swift:19", "target Loose's path Sources/Loose is not Sources/<Layer>/<Module>")

    def test_each_problem_is_reported_once(self):
        self.assertEqual(len(self.problems), 9, "\n".join(self.problems))
        self.assertIn("check-deps: 9 problem(s): ", self.dirty_run.stderr)

    # The clean fixture, the graph and the document.

    def test_clean_package_passes(self):
        result = run(self.clean)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("11 targets import exactly what Package.swift declares", result.stdout)

    def test_graph(self):
        result = run(self.clean, "--graph")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, CLEAN_GRAPH)

    def test_stale_doc_fails_and_write_doc_fixes_it(self):
        package = os.path.join(self.temporary.name, "documented")
        shutil.copytree(self.clean, package)
        doc = os.path.join(package, "docs", "architecture.md")
        os.makedirs(os.path.dirname(doc))
        with open(doc, "w", encoding="utf-8") as handle:
            handle.write(STALE_DOC)
        stale = ("docs/architecture.md:5: docs/architecture.md's module graph is stale: "
                 "run scripts/check-deps --write-doc docs/architecture.md")

        result = run(package)  # the normal run checks docs/architecture.md too
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(stale, result.stderr)
        result = run(package, "--check-doc", "docs/architecture.md")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(stale, result.stderr)

        result = run(package, "--write-doc", "docs/architecture.md")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(doc, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), STALE_DOC.replace("flowchart TD\n    Old --> Graph\n", CLEAN_GRAPH))
        result = run(package)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("docs/architecture.md's module graph is current", result.stdout)

    def test_help_is_the_docstring(self):
        result = subprocess.run([sys.executable, SCRIPT, "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Usage: scripts/check-deps", result.stdout)
        self.assertIn("--write-doc FILE", result.stdout)


if __name__ == "__main__":
    unittest.main()
