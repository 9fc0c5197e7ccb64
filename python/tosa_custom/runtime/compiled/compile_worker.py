"""One group's object code, compiled in a process of its own (parallel.py).

Run by path, `python compile_worker.py MODULE PLAN INDEX OBJECT`, so that
it imports torch-mlir's bindings and nothing of the package (whose
`__init__` imports torch: half a second more, and torch's threads); or as
`compile_worker.py --serve`, started while the module is still being
lowered, which reads those four arguments as one JSON line from stdin
(end of input: no job, exit 0), so that its start and imports (~0.2 s)
overlap the lowering. The loading process compiles one group itself, by
`compile_file`. It
parses the whole lowered module (bytecode), turns every function and global
another group defines into a declaration, compiles what is left as the
serial path does (ExecutionEngine at the plan's opt_level, position-independent) and
dumps the object code. The symbols it leaves undefined get a dummy address:
the JIT must resolve them to finish, but this code never runs here, and the
dumped object keeps its relocations (the parent's link resolves them).
Compiling each object apart, LLVM knows no more of another group's symbol
than its declaration: a constant another group defines is not folded (the
pieces are never inlined, parallel or not).
"""

from __future__ import annotations

import ctypes
import json
import sys

from torch_mlir import execution_engine, ir

__all__ = ["compile_file", "compile_group", "main"]

_SYMBOLS = ("llvm.func", "llvm.mlir.global")
# The attributes of a definition a declaration does not take.
_BODY = ("value", "arg_attrs", "res_attrs")


def _defines(op) -> bool:
    return bool(op.regions and len(op.regions[0].blocks)) or "value" in op.attributes


def _local(op) -> bool:
    """Whether the JIT's lookup cannot see the function (private, internal)."""
    return str(op.attributes["linkage"]) in ("#llvm.linkage<private>", "#llvm.linkage<internal>")


def _declare(op) -> None:
    """Replace the definition `op` by a declaration of external linkage."""
    attributes = {k: op.attributes[k] for k in op.attributes if k not in _BODY}
    attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<external>")
    # Default visibility: a hidden one is addressed PC-relative, which the
    # JIT cannot resolve to a dummy address gigabytes away (the link relaxes
    # the GOT load this makes instead back to a PC-relative one).
    attributes["visibility_"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)
    ir.Operation.create(op.name, attributes=attributes, regions=len(op.regions), loc=op.location,
                        ip=ir.InsertionPoint(op))
    op.erase()


def compile_group(module: ir.Module, mine: set, imports: list, out: str, opt_level: int) -> None:
    """Compile the functions and globals named in `mine` into object file `out`."""
    undefined, entry = list(imports), None
    for op in list(module.body.operations):
        op = op.operation
        if op.name not in _SYMBOLS:
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        if not _defines(op) or name not in mine:
            if _defines(op):
                _declare(op)
            undefined.append(name)
        elif op.name == "llvm.func" and (entry is None or _local(entry[1])) and not _local(op):
            entry = (name, op)
        elif op.name == "llvm.func" and entry is None:
            entry = (name, op)
    if _local(entry[1]):  # a group only itself calls: made visible to the lookup that compiles it
        entry[1].attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<external>")
    entry = entry[0]
    engine = execution_engine.ExecutionEngine(module, opt_level=opt_level, enable_pic=True)
    dummy = ctypes.create_string_buffer(16)
    for name in dict.fromkeys(undefined):  # once each: a second definition is an error
        engine.raw_register_runtime(name, ctypes.c_void_p(ctypes.addressof(dummy)))
    if not engine.raw_lookup(entry):  # the JIT compiles the whole module at its first lookup
        raise RuntimeError(f"the JIT did not compile the group (looking up '{entry}' failed)")
    engine.dump_to_object_file(out)


def compile_file(module_path: str, plan_path: str, index: int, out: str) -> None:
    """Group `index` of the plan in `plan_path`, of the module (bytecode) in
    `module_path`, compiled into object file `out`, in a context of its own."""
    with open(plan_path) as f:
        plan = json.load(f)
    with open(module_path, "rb") as f:
        data = f.read()
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(data)
        compile_group(module, set(plan["groups"][index]), plan["imports"], out, plan["opt_level"])


def _warm_up() -> None:
    """What a job's first steps would pay, paid while waiting for it: the
    LLVM dialect's Python classes (the first LLVM op or attribute imports
    them, 0.03 s) and LLVM's target set-up (a first engine, ~0.01 s).
    Measured on a 2-layer BERT's second group: 0.30-0.31 s warm against 0.34 cold."""
    import torch_mlir.dialects.llvm  # noqa: F401

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("llvm.func @warm_up() { llvm.return }")
        execution_engine.ExecutionEngine(module, opt_level=2, enable_pic=True).raw_lookup("warm_up")


def main(argv: list[str]) -> int:
    if argv == ["--serve"]:
        _warm_up()
        line = sys.stdin.readline()
        if not line.strip():
            return 0
        argv = json.loads(line)
    module_path, plan_path, index, out = argv
    compile_file(module_path, plan_path, int(index), out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
