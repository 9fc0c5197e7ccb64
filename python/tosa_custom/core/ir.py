"""MLIR context set-up shared by the pass, `compile()` and the opt tool.

The torch-mlir wheel registers its passes and the `torch_c` dialect lazily, and
an op created in a dialect that is not loaded silently becomes an unregistered
op that fails much later. Everything that builds IR goes through here.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from torch_mlir import ir, passmanager
from torch_mlir.dialects import torch as torch_d

__all__ = ["parse_module"]


def public_functions(module, entry: str | None = None) -> list[ir.Operation]:
    """The public `func.func`s with a body (what a program can run), of a
    Module or a module op; only the one named `entry` when given."""
    body = module.body if isinstance(module, ir.Module) else module.regions[0].blocks[0]
    funcs = [op.operation for op in body.operations
             if op.operation.name == "func.func" and "sym_visibility" not in op.operation.attributes
             and len(op.operation.regions[0].blocks) > 0]
    if entry is not None:
        funcs = [f for f in funcs if ir.StringAttr(f.attributes["sym_name"]).value == entry]
    return funcs


def function_type(func) -> ir.FunctionType:
    """The type of a `func.func`."""
    return ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)


def set_function_type(func, inputs, results) -> None:
    """Give a `func.func` these argument and result types (its block's and
    return's types are the caller's to match)."""
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(inputs), list(results)))


def add_signature_attrs(func, key: str, count: int, marks: "dict[int, dict[str, str | ir.Attribute]]") -> None:
    """Add attributes (a str is a StringAttr) to some arguments' (`key="arg_attrs"`)
    or results' (`"res_attrs"`) dictionaries of `func`, keeping the others."""
    if not marks:
        return
    old = list(ir.ArrayAttr(func.attributes[key])) if key in func.attributes else [ir.DictAttr.get({})] * count
    new = []
    for i, attrs in enumerate(old):
        entries = {a.name: a.attr for a in ir.DictAttr(attrs)}
        entries.update({k: ir.StringAttr.get(v) if isinstance(v, str) else v for k, v in marks.get(i, {}).items()})
        new.append(ir.DictAttr.get(entries))
    func.attributes[key] = ir.ArrayAttr.get(new)


def collect_ops(root, predicate, *, enter_matches: bool = True) -> list[ir.Operation]:
    """The operations under `root` (a module or an op) for which `predicate`
    holds: in post-order (an op after the ops nested in it), or with
    `enter_matches=False` in pre-order, nothing nested inside a match visited
    (and so collected). The walk calls Python per op visited (about 1 us):
    skipping the bodies of functions is what keeps a walk for functions
    cheap on a module of 10^5 LLVM ops."""
    found: list[ir.Operation] = []

    def visit(op):
        if predicate(op):
            found.append(op)
            if not enter_matches:
                return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    # MLIR's walk is post-order unless asked: a skip would come too late.
    order = ir.WalkOrder.POST_ORDER if enter_matches else ir.WalkOrder.PRE_ORDER
    getattr(root, "operation", root).walk(visit, order)
    return found


def count_ops(root, limit: int | None = None) -> int:
    """How many operations `root` (a module or an op) holds, itself and
    everything nested included: the size the passes that bound LLVM's work
    measure a function or a module by. With `limit`, the walk stops past
    it (the count returned is then limit + 1): a threshold's answer without
    a Python call per op of a large module."""
    count = [0]

    def visit(_):
        count[0] += 1
        return ir.WalkResult.INTERRUPT if limit is not None and count[0] > limit else ir.WalkResult.ADVANCE

    getattr(root, "operation", root).walk(visit)
    return count[0]


def replace_each(root, predicate, rewrite) -> int:
    """Replace each single-result op `predicate` picks under `root` by the
    value `rewrite(op)` builds in its place (at the op, with its location);
    `rewrite` returns None to keep the op. Returns how many were replaced.
    The common shape of a rewriting pass, in one place."""
    replaced = 0
    for op in collect_ops(root, predicate):
        with ir.InsertionPoint(op), op.location:
            value = rewrite(op)
        if value is None:
            continue
        op.results[0].replace_all_uses_with(value)
        op.erase()
        replaced += 1
    return replaced


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op that defines `value`, or None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def has_uses(value: ir.Value) -> bool:
    return any(True for _ in value.uses)


def make_context() -> ir.Context:
    ctx = ir.Context()
    torch_d.register_dialect(ctx)
    ensure_dialects(ctx)
    return ctx


def parse_module(text: "str | bytes", ctx: ir.Context | None = None) -> ir.Module:
    """`ir.Module.parse` for text that did not come from us (a file, stdin).

    MLIR's lexer, on a string literal left open at the very end of the input,
    steps past the buffer's terminating NUL; the parser of the file metadata
    (`{-# dialect_resources: ... #-}`) keeps lexing after that error, reads
    whatever memory follows and crashes the process (a segmentation fault in
    `SourceMgr::getLineAndColumn`; found by the opt fuzzer on a truncated lit
    file). A string cannot span a newline, so with one at the end an open
    string stops there and MLIR reports "expected '\"' in string literal" on
    its line. Bytecode is not lexed and is parsed as it is.
    """
    if isinstance(text, str) and not text.endswith("\n"):
        text += "\n"
    return ir.Module.parse(text, ctx) if ctx is not None else ir.Module.parse(text)


def ensure_dialects(ctx: ir.Context) -> None:
    """Load torch_c and tosa, which no public binding loads on demand."""
    if ctx.is_dialect_loaded("torch_c") and ctx.is_dialect_loaded("tosa"):
        return
    with ctx, ir.Location.unknown():
        module = ir.Module.parse("module {}")
        # This pass depends on torch_c; running it on an empty module is the
        # only way the bindings offer to load that dialect.
        passmanager.PassManager.parse(
            "builtin.module(torch-func-backend-type-conversion)"
        ).run(module.operation)
    ctx.dialects["tosa"]  # loads tosa
    if not ctx.is_dialect_loaded("torch_c"):  # pragma: no cover - wheel changed
        raise RuntimeError("could not load the torch_c dialect from torch-mlir")


def _give_torch_c_a_python_module() -> None:
    """Make `Value.owner` cheap when the owner is a torch_c op.

    To wrap an op the bindings import `torch_mlir.dialects.<dialect>` and
    remember only a success. The wheel has no Python module for torch_c, so
    each `.owner` of a torch_c op re-ran a failing import (~20 us; a third of
    our pass's time when selected ops feed each other). An empty stand-in is
    found once; torch_c ops still wrap as plain OpViews.
    """
    name = "torch_mlir.dialects.torch_c"
    if name in sys.modules:
        return
    try:
        importlib.import_module(name)
    except ModuleNotFoundError:
        sys.modules[name] = ModuleType(name, "tosa_custom: the wheel has no Python module for torch_c")


_give_torch_c_a_python_module()
