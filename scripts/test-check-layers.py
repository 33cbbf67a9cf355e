#!/usr/bin/env python3
"""Plants each kind of edge the compiler sees into a copy of ImageCore and
checks that scripts/check-layers.py fails on it, naming the edge (the first
line that makes it: a local of the same name before it must not be that
line); plants names that are no edge (locals, parameters) and checks that it
passes; and that the copy as it is passes. `make lint` runs this (well under a second).

Usage: scripts/test-check-layers.py
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "..", "Sources", "ImageCore")
CHECK = os.path.join(HERE, "check-layers.py")

# name: (files to add, relative to ImageCore, with their code; what the check must print, or None: it passes)
PLANTED = {
    "an extension member's initialiser (Batch's on a Model type), used below": (
        {"Pipeline/PlantedUse.swift": "func plantedUse(_ error: any Error) -> ImageCoreError {\n"
         "    ImageCoreError(reporting: error)\n}\n"},
        "Pipeline -> Batch (upward) at Pipeline/PlantedUse.swift:2: ImageCoreError(reporting:",
    ),
    "an extension member's property, used below": (
        {
            "Batch/PlantedMember.swift": "extension ImageRequest {\n    var plantedBatchOnly: Int { 1 }\n}\n",
            "Caching/PlantedUse.swift": "func plantedUse(_ request: ImageRequest) -> Int {\n"
            "    request.plantedBatchOnly\n}\n",
        },
        "Caching -> Batch (upward) at Caching/PlantedUse.swift:2: .plantedBatchOnly",
    ),
    "a global inside #if, used below": (
        {
            "Remote/PlantedGlobal.swift": "#if canImport(Glibc)\n    let plantedGlobal = 1\n#endif\n",
            "Loading/PlantedUse.swift": "func plantedUse() -> Int { plantedGlobal }\n",
        },
        "Loading -> Remote (upward) at Loading/PlantedUse.swift:1: plantedGlobal",
    ),
    "a C module imported outside its library's folder": (
        {"Pipeline/PlantedImport.swift": "internal import CCurl\n"},
        "C in Pipeline (owned by Loading) at Pipeline/PlantedImport.swift:1: CCurl",
    ),
    "a shim of another folder's library called": (
        {"Decoding/PlantedShim.swift": "internal import CImageCoreShims\n\n"
         "func plantedShim() { _ = imgcache_lcms_available() }\n"},
        "C in Decoding (owned by Colour) at Decoding/PlantedShim.swift:3: imgcache_lcms_",
    ),
    # Names as a file's own: System declares `open`, `stat`, `rename`, `mkdir` at file scope.
    "locals, parameters and closure names called as System's functions are: no edge": (
        {"Model/PlantedLocal.swift": "func plantedLocal(_ stat: Int, path: String) -> Int {\n"
         "    let open = path.count\n    var (rename, unlink) = (stat, open)\n"
         "    rename += [1].map { mkdir in mkdir + unlink }.count\n    return open + stat + rename\n}\n"},
        None,
    ),
    "another layer's function called where a local has its name": (
        {"Model/PlantedCall.swift": "func plantedCall(_ path: String) -> Int32 {\n"
         "    let open = Int32(path.count)\n    return open + open(path, 0)\n}\n"},
        "Model -> System (upward) at Model/PlantedCall.swift:3: open",
    ),
    "another layer's function called with a trailing closure": (
        {"Model/PlantedClosure.swift": "func plantedWork() async throws -> Int {\n"
         "    try await runInBackground { 1 }\n}\n"},
        "Model -> System (upward) at Model/PlantedClosure.swift:2: runInBackground",
    ),
    "another layer's type in a switch's case": (
        {"Model/PlantedCase.swift": "func plantedCase(_ value: Int) -> Bool {\n    switch value {\n"
         "    case EventLog.plantedLevel: true\n    default: false\n    }\n}\n"},
        "Model -> Support (upward) at Model/PlantedCase.swift:3: EventLog",
    ),
    "a C function called through its module where a local has its name": (
        {"Caching/PlantedXattr.swift": "internal import CImageCoreShims\n\n"
         "func plantedXattr(_ path: String) -> Int {\n    let getxattr = 0\n"
         "    return getxattr + CImageCoreShims.getxattr(path, \"user.x\", nil, 0)\n}\n"},
        "C in Caching (owned by System) at Caching/PlantedXattr.swift:5: getxattr",
    ),
    "a C function's name as a parameter and a local: no C use": (
        {"Caching/PlantedXattrName.swift": "internal import CImageCoreShims\n\n"
         "func plantedXattr(_ getxattr: Int) -> Int {\n    let setxattr = getxattr + 1\n    return setxattr\n}\n"},
        "C in Caching (no library of a folder's) at Caching/PlantedXattrName.swift:1: CImageCoreShims",
    ),
}


def check(root):
    return subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as work:
        clean = os.path.join(work, "clean")
        shutil.copytree(SOURCES, clean)
        result = check(clean)
        if result.returncode != 0:
            failures.append(f"the sources as they are fail:\n{result.stderr}")
        for name, (files, expected) in PLANTED.items():
            root = os.path.join(work, str(len(os.listdir(work))))
            shutil.copytree(SOURCES, root)
            for relative, code in files.items():
                with open(os.path.join(root, relative), "w", encoding="utf-8") as handle:
                    handle.write(code)
            result = check(root)
            if expected is None:
                if result.returncode != 0:
                    failures.append(f"{name}: expected no failure, got:\n{result.stderr}")
            elif result.returncode == 0 or expected not in result.stderr:
                failures.append(f"{name}: expected a failure naming\n  {expected}\ngot (exit {result.returncode}):\n"
                                f"{result.stderr}")
    for failure in failures:
        print(f"test-check-layers: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
