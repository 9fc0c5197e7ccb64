"""The TOSA flatbuffer (`.tosa`), written and read by TOSA's own toolchain.

The flatbuffer is what TOSA's tools (the reference model, Vela-like
compilers, `tosa_verify`) read, so it is written by tosa-tools' `tosa-opt
--tosa-serialize` from our MLIR bytecode, never by a serializer of ours, and
read back by its `--tosa-deserialize`. It holds one function of tosa ops
(func and builtin around them) and tensor names; it cannot hold MLIR
attributes. Measured, a round trip keeps: every op, `tosa.custom`'s operator
name, domain and implementation attrs, constants (a `dense_resource` becomes
a `dense`), `?` dims and the shape ops, and each op's location as text. It
loses: the function's name (`main`), the module's attributes
(`tosa_custom.tosa_target`; every file says version 1.1.0d) and every
argument, result and function attribute (weight names and input markers,
output roles and tree, boundary dtypes, dynamic-dim symbols).

So `write` names the graph's tensors (a weight argument by its weight name,
the others `TosaInput_N`/`TosaOutput_N` as tosa-tools would) and keeps what the
flatbuffer cannot hold beside it, in `<name>.tosa_custom.json` (`sidecar`):
the entry's name and the attribute dictionaries as MLIR text. `read` puts them
back when that file is there and fits the flatbuffer's signature, so
`runtime.load("x.tosa")` calls the program as it would the module; without it
(a flatbuffer from elsewhere) the program has the plain convention:
positional inputs, a tuple of results.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from torch_mlir import ir

from . import ir as _ir
from . import tosa_tools
from .diagnostics import CompileError

__all__ = ["SUFFIX", "SIDECAR_SUFFIX", "sidecar", "check_serializable", "write", "read"]

SUFFIX = ".tosa"
SIDECAR_SUFFIX = ".tosa_custom.json"
_SIDECAR_FORMAT = "tosa_custom.flatbuffer-attributes"
# The dialects tosa-tools' tosa-opt registers: anything else cannot be serialized.
_DIALECTS = ("builtin", "func", "tosa")
# A weight argument's name (CONTRACT.md §10.2); weights/manifest.py's WEIGHT_ATTR,
# which this layer cannot import (test_flatbuffer checks they agree).
_WEIGHT = "tosa_custom.weight"
_TENSOR_NAME = "tosa.tensor_name"  # what tosa-opt reads and writes as a graph tensor's name
# A function's attributes the flatbuffer holds itself (its type) or the sidecar holds apart.
_FUNC_OWN = ("function_type", "arg_attrs", "res_attrs", "sym_name")


def sidecar(path: "str | os.PathLike") -> Path:
    """The attributes file beside a flatbuffer: `model.tosa` -> `model.tosa_custom.json`."""
    path = Path(path)
    stem = path.name[:-len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name
    return path.with_name(stem + SIDECAR_SUFFIX)


def _functions(module: ir.Operation) -> list[ir.Operation]:
    return [op.operation for op in module.regions[0].blocks[0].operations
            if op.operation.name == "func.func" and len(op.operation.regions[0].blocks)]


def check_serializable(module: "ir.Module | ir.Operation") -> ir.Operation:
    """The one function the flatbuffer will hold; a CompileError (category
    `not-tosa`) naming the problem when the module is not one function of TOSA."""
    functions = _functions(module.operation)
    if len(functions) != 1:
        names = ", ".join("@" + ir.StringAttr(f.attributes["sym_name"]).value for f in functions)
        raise CompileError(f"a TOSA flatbuffer holds one function; the module has {len(functions)}"
                           f"{': ' + names if names else ''} (inline calls first)", category="not-tosa")
    foreign, tosa = {}, [0]

    def visit(op):
        dialect = op.name.split(".", 1)[0]
        tosa[0] += dialect == "tosa"
        if dialect not in _DIALECTS:
            foreign.setdefault(op.name, str(op.location))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if foreign:
        raise CompileError("a TOSA flatbuffer holds only tosa ops (and func/builtin), not: "
                           + "; ".join(f"{name} at {loc}" for name, loc in foreign.items())
                           + " (compile with output_type=\"tosa\")", category="not-tosa", ops=foreign)
    if not tosa[0]:
        raise CompileError("the module has no tosa op: nothing to write as a TOSA flatbuffer",
                           category="not-tosa")
    return functions[0]


def _entries(attrs, leave: tuple = ()) -> dict:
    """name -> attribute of an op's attributes or an attribute dictionary, but those in `leave`."""
    found = (attrs[i] for i in range(len(attrs)))
    return {a.name: a.attr for a in found if a.name not in leave}


def _attr_dicts(func: ir.Operation, key: str, count: int) -> list[ir.DictAttr]:
    if key not in func.attributes:
        return [ir.DictAttr.get({}, func.context) for _ in range(count)]
    return [ir.DictAttr(a) for a in ir.ArrayAttr(func.attributes[key])]


def _dict_text(attrs: ir.DictAttr, leave: tuple = ()) -> str:
    """An attribute dictionary as MLIR text; a value that names a resource
    blob (`dense_resource<...>`) is left out: its bytes are not in the text."""
    kept = {name: a for name, a in _entries(attrs, leave).items() if "dense_resource<" not in str(a)}
    return str(ir.DictAttr.get(kept, attrs.context))


def _arity(func: ir.Operation) -> tuple[int, int]:
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    return len(ftype.inputs), len(ftype.results)


def _lost(module: ir.Operation, func: ir.Operation) -> dict | None:
    """What the flatbuffer cannot hold, as the sidecar's JSON; None when nothing would be lost."""
    n_in, n_out = _arity(func)
    module_attrs = ir.DictAttr.get(_entries(module.attributes), module.context)
    func_attrs = ir.DictAttr.get(_entries(func.attributes, _FUNC_OWN), module.context)
    entry = ir.StringAttr(func.attributes["sym_name"]).value
    data = {"format": _SIDECAR_FORMAT, "version": 1, "entry": entry,
            "signature": str(ir.TypeAttr(func.attributes["function_type"]).value),
            "module": _dict_text(module_attrs), "function": _dict_text(func_attrs),
            "arguments": [_dict_text(d) for d in _attr_dicts(func, "arg_attrs", n_in)],
            "results": [_dict_text(d) for d in _attr_dicts(func, "res_attrs", n_out)]}
    empty = all(t == "{}" for t in [data["module"], data["function"], *data["arguments"], *data["results"]])
    return None if empty and entry == "main" else data


def _tensor_names(func: ir.Operation) -> None:
    """Name every graph input and output, so tosa-opt keeps the names
    (`retain-graph-input-output-names`): a weight by its name, the rest as
    tosa-tools' defaults; a `tosa.tensor_name` already there is kept."""
    n_in, n_out = _arity(func)
    for key, count, default in (("arg_attrs", n_in, "TosaInput_{}"), ("res_attrs", n_out, "TosaOutput_{}")):
        named = []
        for i, attrs in enumerate(_attr_dicts(func, key, count)):
            entries = _entries(attrs)
            if _TENSOR_NAME not in entries:
                weight = entries.get(_WEIGHT)
                name = ir.StringAttr(weight).value if weight is not None else default.format(i)
                entries[_TENSOR_NAME] = ir.StringAttr.get(name, func.context)
            named.append(ir.DictAttr.get(entries, func.context))
        func.attributes[key] = ir.ArrayAttr.get(named, func.context)


def write(module: "ir.Module | ir.Operation", path: "str | os.PathLike") -> None:
    """Write `module` (one function of TOSA) as a TOSA flatbuffer at `path`
    with tosa-tools' tosa-opt, and what the flatbuffer cannot hold beside it."""
    lost = _lost(module.operation, check_serializable(module))
    copy = module.operation.clone()  # names go on a copy: the caller's module stays as it was
    _tensor_names(_functions(copy)[0])
    path = Path(path)
    # tosa-opt writes into a directory beside `path`, so the rename is atomic:
    # a reader never sees half a file, and a failure keeps the old one.
    with tempfile.TemporaryDirectory(prefix=f".{path.name}.", dir=path.parent) as tmp:
        source, target = Path(tmp) / "in.mlirbc", Path(tmp) / "out.tosa"
        with open(source, "wb") as f:  # bytecode: tosa-opt's LLVM may print TOSA's assembly differently
            copy.write_bytecode(f)
        tosa_tools.run_tool("tosa-opt", [str(source), "--tosa-serialize=tosa-flatbuffer-filename="
                                         f"{target} retain-graph-input-output-names=true", "-o", os.devnull],
                            f"writing {path}")
        os.replace(target, path)
    if lost is None:
        sidecar(path).unlink(missing_ok=True)  # one from an earlier save would not fit
    else:
        sidecar(path).write_text(json.dumps(lost, indent=1) + "\n", encoding="utf-8")


def read(path: "str | os.PathLike", ctx: "ir.Context | None" = None) -> ir.Module:
    """The flatbuffer at `path` as a module of `ctx` (a new context by
    default), deserialized by tosa-tools' tosa-opt, with the attributes of its
    sidecar put back when there is one."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such TOSA flatbuffer: '{path}'")
    with tempfile.TemporaryDirectory(prefix="tosa-custom-") as tmp:
        empty, out = Path(tmp) / "empty.mlir", Path(tmp) / "out.mlirbc"
        empty.write_text("")
        tosa_tools.run_tool("tosa-opt", [str(empty), "--tosa-deserialize=tosa-flatbuffer-filename="
                                         f"{path.resolve()}", "--emit-bytecode", "-o", str(out)],
                            f"reading {path}")
        module = _ir.parse_module(out.read_bytes(), ctx or _ir.make_context())
    if sidecar(path).is_file():
        _restore(module, path)
    return module


def _restore(module: ir.Module, path: Path) -> None:
    """Put the sidecar's attributes back on the module read from `path`."""
    data = json.loads(sidecar(path).read_text(encoding="utf-8"))
    if data.get("format") != _SIDECAR_FORMAT or data.get("version") != 1:
        raise CompileError(f"{sidecar(path)} is not a tosa_custom flatbuffer-attributes file (version 1)",
                           category="not-tosa")
    func = _functions(module.operation)[0]
    found = str(ir.TypeAttr(func.attributes["function_type"]).value)
    if found != data["signature"]:
        raise CompileError(f"{sidecar(path)} was written for a function {data['signature']}, but {path} holds "
                           f"{found}: remove the stale attributes file, or save the module again",
                           category="not-tosa")
    with module.context:
        for target, text in ((module.operation, data["module"]), (func, data["function"])):
            for name, value in _entries(ir.DictAttr(ir.Attribute.parse(text))).items():
                target.attributes[name] = value
        func.attributes["sym_name"] = ir.StringAttr.get(data["entry"])
        for key, attr in (("arguments", "arg_attrs"), ("results", "res_attrs")):
            if any(t != "{}" for t in data[key]):
                func.attributes[attr] = ir.ArrayAttr.get([ir.Attribute.parse(t) for t in data[key]])
            elif attr in func.attributes:  # only the names tosa-opt gave them
                del func.attributes[attr]
