#!/usr/bin/env bash
# The native libraries (lib/) built with AddressSanitizer + UndefinedBehaviorSanitizer,
# out of tree, and the native tests run against them (README, "Sanitized native build").
#
#   scripts/sanitize.sh [pytest arguments]      default: test/native
#
# PYTHON: the interpreter with tosa_custom installed (default .venv/bin/python if
# present, else python3). TOSA_CUSTOM_SANITIZE_BUILD: the build directory (default
# build/sanitize, reused: a second run only rebuilds what changed).
# Exits non-zero if a test fails or any sanitizer reports anything.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${TOSA_CUSTOM_SANITIZE_BUILD:-$root/build/sanitize}" && cd "${TOSA_CUSTOM_SANITIZE_BUILD:-$root/build/sanitize}" && pwd)
if [[ -z ${PYTHON:-} ]]; then
  if [[ -x $root/.venv/bin/python ]]; then PYTHON=$root/.venv/bin/python; else PYTHON=python3; fi
fi
# One compiler for the libraries, the user libraries the tests build and the
# preloaded runtimes, so that they match.
cc=${SANITIZE_CC:-gcc}
sanitizers=address,undefined
flags="-fsanitize=$sanitizers -fno-sanitize-recover=all -fno-omit-frame-pointer -g"

cmake -S "$root" -B "$build/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
  -DTOSA_CUSTOM_SANITIZE="$sanitizers" >/dev/null
cmake --build "$build/cmake" -j 2
cmake --install "$build/cmake" --prefix "$build" >/dev/null  # -> $build/_native/{*.so,include/}

# compile_kernel_library() (fixture_kernels.c and the tests' other libraries)
# compiles with $CC: this wrapper adds the same sanitizers, and keeps the
# compiler itself from running with the preloaded runtimes.
cat >"$build/cc" <<WRAPPER
#!/bin/sh
unset LD_PRELOAD
exec $cc $flags "\$@"
WRAPPER
chmod +x "$build/cc"

# --capture=sys: pytest captures Python's output only, so a report the native
# code writes to stderr is never swallowed with a test's captured output (UBSan
# ignores log_path next to ASan). Every report aborts the process; the log is
# also searched, for one a test might have caught (a subprocess).
log=$build/pytest.log
preload="$($cc -print-file-name=libasan.so):$($cc -print-file-name=libubsan.so)"
# detect_leaks=0: CPython and torch keep allocations alive until exit by design.
set +e
env TOSA_CUSTOM_SANITIZE_TEST=0 \
  TOSA_CUSTOM_NATIVE_DIR="$build/_native" CC="$build/cc" LD_PRELOAD="$preload" \
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" \
  UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1" \
  "$PYTHON" -m pytest -q -p no:cacheprovider --capture=sys "${@:-test/native}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

if grep -qE '(ERROR|WARNING): [A-Za-z]+Sanitizer|: runtime error: ' "$log"; then
  echo "sanitize.sh: FAILED: sanitizer report above (log: $log)" >&2
  exit 1
fi
if [[ $status != 0 ]]; then
  echo "sanitize.sh: FAILED: pytest exited with status $status (log: $log)" >&2
  exit "$status"
fi
echo "sanitize.sh: OK: no sanitizer report"
