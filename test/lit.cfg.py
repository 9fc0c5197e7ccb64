# -*- Python -*-
"""lit configuration for the FileCheck tests of tosa_custom (test/**/*.mlir).

Run with `lit -v test` (or `python -m pytest test/test_lit.py`). The tools are
those of the Python running lit, so the suite always tests the tosa_custom that
Python imports:

  tosa-custom-opt  ->  <python> -m tosa_custom.tools.opt
  FileCheck        ->  the `filecheck` package's script next to <python>
"""

import os
import shutil
import sys

import lit.formats

config.name = "tosa_custom"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# %t files go under test/Output/, which .gitignore covers (test/**/Output/).
config.test_exec_root = os.path.join(config.test_source_root, "Output")
# Only the lit suites hold tests; inputs kept elsewhere under test/ are not.
config.excludes = [
    "Output",
    "__pycache__",
    "frontend",
    "contract",
    "package",
    "lit.cfg.py",
    "test_lit.py",
    "conftest.py",
]


def _quote(path: str) -> str:
    return '"' + path + '"' if " " in path else path


def _filecheck() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "filecheck")
    if os.path.exists(here):
        return here
    found = shutil.which("filecheck")
    if found:
        return found
    # The package is importable even when its script is not installed.
    return f"{_quote(sys.executable)} -m filecheck"


python = _quote(sys.executable)
# Whole words only, so paths and pass names that contain them stay intact.
config.substitutions.append(
    (r"(?<![\w./-])tosa-custom-opt(?![\w.-])", f"{python} -m tosa_custom.tools.opt")
)
config.substitutions.append((r"(?<![\w./-])FileCheck(?![\w.-])", _quote(_filecheck())))

def _runtime_pipeline() -> str:
    """The runtime lowering's pipeline text, from the package itself (so a
    test replays exactly what `Program.pipeline` shows), planned for AVX-512
    whatever the host: the tests check IR (vector widths), never run it."""
    from tosa_custom.runtime.lower.lowering import pipeline

    return pipeline(vectorize=True, cpu="avx512")


config.substitutions.append(("%{runtime_pipeline}", _runtime_pipeline()))

# Keep what the tools need from the caller's environment (lit starts from a
# clean one): where Python finds packages, and where torch may write caches.
for name in ("PYTHONPATH", "HOME", "TMPDIR", "TORCH_HOME", "XDG_CACHE_HOME",
             "FILECHECK_FEATURE_ENABLE"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
# A traceback even if a tool dies in native code.
config.environment["PYTHONFAULTHANDLER"] = "1"
