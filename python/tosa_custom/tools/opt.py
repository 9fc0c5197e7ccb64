"""`tosa-custom-opt`: mlir-opt with our Python passes as ordinary pass flags.

    tosa-custom-opt in.mlir -o out.mlir \\
        --convert-torch-backend-legal-to-tosa-custom="ops=aten.gelu encoding=const" \\
        --torch-backend-to-tosa-backend-pipeline

Pass flags and `--pass-pipeline=` run in command-line order; any pass the
torch-mlir wheel registers (torch-mlir's and upstream MLIR's) may appear beside
ours. `--verify-diagnostics` checks `expected-error`/`expected-warning`/
`expected-note`/`expected-remark` annotations as mlir-opt does (the bindings do
not expose MLIR's own verifier, and our warnings are not MLIR diagnostics).
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
from typing import TextIO

from torch_mlir import ir

from .. import iree as _iree, quant as _quant, runtime as _runtime, tosa as _tosa, tunnel as _tunnel, vgf as _vgf  # noqa: F401
from .. import weights as _weights  # noqa: F401
from ..core import ir as _ir
from ..core.diagnostics import CompileError, Diagnostic, DiagnosticLog
from ..tunnel.options import PASS_ARGUMENT, PassOptions
from ..core import mlir_files
from ..core.mlir_files import BYTECODE_MAGIC, serialize
# (importing each layer registers its passes: every pass of every layer, as mlir-opt's registerAllPasses)
from ..core.passes import build_pass_manager, registered_passes, split_pipeline
from ..core.schema import op_identifier

__all__ = ["main"]

_SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)
_EXPECTED = re.compile(
    r"expected-(?P<sev>error|warning|note|remark)\s*(?:@(?P<where>above|below|[+-]\d+|\d+))?\s*\{\{(?P<msg>.*?)\}\}"
)

_USAGE = """usage: tosa-custom-opt [options] [input|-]

options:
  -o FILE                  write the output here (default: stdout)
  --split-input-file       process chunks separated by '// -----' independently
  --verify-diagnostics     check expected-* annotations instead of printing diagnostics
  --allow-unregistered-dialect
  --pass-pipeline=PIPE     a textual pipeline, e.g. 'builtin.module(canonicalize)'
  --PASS[=OPTIONS]         any registered pass, run in command-line order
  --list-passes            list our Python passes
  --version                print the version
  --emit-bytecode          write MLIR bytecode (what another MLIR version reads)
  --mlir-print-op-generic  write the generic op form
The input may be MLIR text, MLIR bytecode or a TOSA flatbuffer (`.tosa`);
`-o x.tosa` writes a TOSA flatbuffer (both need tosa-tools, README).
"""


@dataclasses.dataclass
class _Args:
    input: str = "-"
    output: str = "-"
    split: bool = False
    verify: bool = False
    allow_unregistered: bool = False
    pipeline: list[str] = dataclasses.field(default_factory=list)
    form: str = "text"  # mlir_files.FORMATS: "bytecode" or "generic" by flag


class _UsageError(Exception):
    pass


def _parse_args(argv: list[str]) -> _Args | None:
    args = _Args()
    inputs = []
    it = iter(argv)
    for a in it:
        if a in ("-h", "--help"):
            print(_USAGE, end="")
            return None
        if a == "--version":
            from .. import __version__

            print(f"tosa-custom-opt (tosa-custom {__version__})")
            return None
        if a == "--list-passes":
            for _, p in sorted(registered_passes().items()):
                print(f"  --{p.argument}\n      {p.summary()}")
            return None
        if a == "-o":
            args.output = next(it, None) or _fail("-o needs a file name")
        elif a.startswith("-o="):
            args.output = a[3:]
        elif a in ("--split-input-file", "-split-input-file"):
            args.split = True
        elif a in ("--verify-diagnostics", "-verify-diagnostics"):
            args.verify = True
        elif a in ("--emit-bytecode", "-emit-bytecode"):
            args.form = "bytecode"
        elif a in ("--mlir-print-op-generic", "-mlir-print-op-generic"):
            args.form = "generic"
        elif a in ("--allow-unregistered-dialect", "-allow-unregistered-dialect"):
            args.allow_unregistered = True
        elif a.startswith(("--pass-pipeline=", "-pass-pipeline=")):
            try:
                args.pipeline.extend(split_pipeline(a.split("=", 1)[1]))
            except ValueError as e:
                raise _UsageError(f"{a}: {e}") from None
        elif a.startswith("-") and a != "-":
            name, sep, options = a.lstrip("-").partition("=")
            options = options.strip()
            if len(options) >= 2 and options[0] == options[-1] and options[0] in "\"'":
                options = options[1:-1]
            args.pipeline.append(f"{name}{{{options}}}" if sep else name)
        else:
            inputs.append(a)
    if len(inputs) > 1:
        raise _UsageError(f"expected one input file, got {len(inputs)}: {' '.join(inputs)}")
    args.input = inputs[0] if inputs else "-"
    return args


def _fail(message: str):
    raise _UsageError(message)


def _chunks(text: str, split: bool) -> list[tuple[int, str]]:
    """(first line number - 1, text) per chunk; padding keeps line numbers."""
    if not split:
        return [(0, text)]
    result, line, pos = [], 0, 0
    for m in _SPLIT_MARKER.finditer(text):
        result.append((line, text[pos:m.start()]))
        line += text[pos:m.end()].count("\n")
        pos = m.end()
    result.append((line, text[pos:]))
    return result


@dataclasses.dataclass
class _Expected:
    severity: str
    line: int
    message: str
    annotation_line: int
    matched: bool = False


def _expectations(text: str, first_line: int) -> list[_Expected]:
    result = []
    for offset, line_text in enumerate(text.split("\n")):
        line = first_line + offset + 1
        for m in _EXPECTED.finditer(line_text):
            where = m["where"]
            target = line
            if where == "above":
                target = line - 1
            elif where == "below":
                target = line + 1
            elif where and where[0] in "+-":
                target = line + int(where)
            elif where:
                target = int(where)
            result.append(_Expected(m["sev"], target, m["msg"], line))
    return result


def _verify(diagnostics: list[Diagnostic], expected: list[_Expected], filename: str) -> list[str]:
    problems = []
    check_notes = any(e.severity == "note" for e in expected)
    flat = []
    for d in diagnostics:
        flat.append(d)
        if check_notes:
            flat.extend(d.notes)
    for d in flat:
        if d.severity == "note" and not check_notes:
            continue
        fl = d.file_line
        line = fl[1] if fl else None
        for e in expected:
            if not e.matched and e.severity == d.severity and e.line == line and e.message in d.message:
                e.matched = True
                break
        else:
            where = f"{filename}:{line}" if line else d.location
            problems.append(f"{where}: unexpected {d.severity}: {d.message}")
    for e in expected:
        if not e.matched:
            problems.append(
                f"{filename}:{e.annotation_line}: expected {e.severity} \"{e.message}\" on line {e.line} was not produced"
            )
    return problems


def _process_chunk(ctx, text: "str | bytes", pipeline: list[str],
                   form: str = "text") -> tuple["str | bytes | None", list[Diagnostic]]:
    log = DiagnosticLog()
    with ctx:
        try:
            module = _ir.parse_module(text)
        except ir.MLIRError as e:
            return None, [Diagnostic.from_mlir(d) for d in e.error_diagnostics]
        try:
            pm = build_pass_manager(pipeline, log)
        except ValueError as e:
            raise _UsageError(str(e)) from None
        log.attach(ctx)
        try:
            pm.run(module.operation)
        except ir.MLIRError as e:
            log.detach()
            return None, log.diagnostics + [Diagnostic.from_mlir(d) for d in e.error_diagnostics]
        finally:
            log.detach()
        return serialize(module, form), log.diagnostics


def _unmatched_ops(ctx, texts: list[str], pipeline: list[str]) -> list[str]:
    """The `ops=` entries of our pass that name no op of the input, as
    compile() warns for backend_legal_ops; chunks that do not parse are skipped
    (their error is reported when they are processed). `ctx` must not be the
    one the chunks are then processed in: a second parse there would rename
    the input's resource blobs (`name_1`) in the output."""
    selections = []
    for element in pipeline:
        name, _, options = element.partition("{")
        try:
            selection = PassOptions.parse(options.rstrip("}")).ops if name.strip() == PASS_ARGUMENT else None
        except ValueError:
            continue  # bad options: build_pass_manager reports them
        if selection and not selection.everything:
            selections.append(selection)
    if not selections:
        return []
    present: set[str] = set()

    def visit(op):
        present.add(op_identifier(op))
        return ir.WalkResult.ADVANCE

    with ctx:
        for text in texts:
            try:
                _ir.parse_module(text).operation.walk(visit)
            except ir.MLIRError:
                continue
    return list(dict.fromkeys(spec for s in selections for spec in s.unmatched(present)))


def _print_diagnostic(d: Diagnostic, filename: str, err: TextIO) -> None:
    # Module.parse names every buffer "-"; say which file it was.
    print(re.sub(r"^-:", f"{filename}:", str(d), flags=re.MULTILINE), file=err)


def run(argv: list[str], stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    try:
        args = _parse_args(argv)
        if args is None:
            return 0
        text, filename = _read_input(args.input, stdin)
        if mlir_files.is_flatbuffer(args.output):
            args.form = "bytecode"  # what the flatbuffer writer reads back (_write_output)
        if args.form == "bytecode" and args.split:
            what = "-o *.tosa (a TOSA flatbuffer)" if mlir_files.is_flatbuffer(args.output) else "--emit-bytecode"
            raise _UsageError(f"{what} writes one module: it cannot be combined with --split-input-file")
        ctx = _ir.make_context()
        ctx.allow_unregistered_dialects = args.allow_unregistered
        outputs, failed, problems = [], False, []
        chunks = [(0, text)] if isinstance(text, bytes) else _chunks(text, args.split)
        if not args.verify:  # with --verify-diagnostics, only the annotated diagnostics may appear
            for spec in _unmatched_ops(_ir.make_context(), [c for _, c in chunks], args.pipeline):
                print(f"tosa-custom-opt: warning: ops= lists {spec}, but {filename} contains no such op "
                      "(check the spelling, or the stage the IR was dumped at)", file=stderr)
        for first_line, chunk in chunks:
            padded = chunk if isinstance(chunk, bytes) else "\n" * first_line + chunk
            out, diagnostics = _process_chunk(ctx, padded, args.pipeline, args.form)
            if args.verify:
                expected = [] if isinstance(chunk, bytes) else _expectations(chunk, first_line)
                problems += _verify(diagnostics, expected, filename)
            else:
                for d in diagnostics:
                    _print_diagnostic(d, filename, stderr)
                failed |= out is None or any(d.severity == "error" for d in diagnostics)
            if out is not None:
                outputs.append(out)
        if args.verify:
            for p in problems:
                print(p, file=stderr)
            failed = bool(problems)
        if args.output == "-" or not failed:  # as mlir-opt: a failed run leaves -o's file as it was
            _write_output(args.output, outputs, stdout)
        return 1 if failed else 0
    except _UsageError as e:
        print(f"tosa-custom-opt: error: {e}", file=stderr)
        return 1


def _read_input(path: str, stdin: TextIO) -> tuple["str | bytes", str]:
    """The input's text, or its bytes when it is MLIR bytecode, and its name."""
    filename = "<stdin>" if path == "-" else path
    if mlir_files.is_flatbuffer(path):
        return _flatbuffer(lambda: serialize(mlir_files.read(path))), filename
    try:
        if path == "-":
            raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        else:
            with open(path, "rb") as f:
                raw = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise _UsageError(f"cannot read '{path}': {e}" if path != "-" else f"standard input is not UTF-8 text: {e}") \
            from None
    if isinstance(raw, bytes) and raw.startswith(BYTECODE_MAGIC):
        return raw, filename
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        text.encode("utf-8")
    except UnicodeError as e:  # lone surrogates (stdin decoded with surrogateescape)
        raise _UsageError(f"{filename} is not UTF-8 text: {e}") from None
    return text, filename


def _write_output(path: str, outputs: list, stdout: TextIO) -> None:
    if outputs and isinstance(outputs[0], bytes):
        result: "str | bytes" = outputs[0]
    else:
        result = "\n// -----\n".join(o.rstrip("\n") for o in outputs) + "\n" if outputs else ""
    if mlir_files.is_flatbuffer(path) and outputs:
        _flatbuffer(lambda: mlir_files.save(_ir.parse_module(result, _ir.make_context()), path))
        return
    if path != "-":
        _write_atomically(path, result)
        return
    try:
        if isinstance(result, bytes):
            stdout.flush()
            (stdout.buffer if hasattr(stdout, "buffer") else stdout).write(result)
        else:
            stdout.write(result)
    except OSError as e:
        raise _UsageError(f"cannot write to standard output: {e.strerror or e}") from None


def _flatbuffer(step):
    """Read or write a TOSA flatbuffer (tosa-tools does it); its errors are the tool's usage errors."""
    try:
        return step()
    except (CompileError, OSError) as e:
        raise _UsageError(str(e)) from None


def _write_atomically(path: str, data: "str | bytes") -> None:
    """Write `data` to a temporary file beside `path`, then rename it over
    `path`: a reader never sees a half-written file, and an error keeps the old one."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    except OSError as e:
        raise _UsageError(f"cannot write '{path}': {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w",
                       **({} if isinstance(data, bytes) else {"encoding": "utf-8"})) as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise _UsageError(f"cannot write '{path}': {e.strerror or e}") from None


def main() -> None:
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
