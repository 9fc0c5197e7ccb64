"""From a torch-dialect op name to its ATen schema, and back.

The FX importer names every op `torch.<namespace>.<name>[.<overload>]` (the
default overload has no suffix) and passes every schema argument as an operand,
in schema order. So the schema PyTorch already has is the single source of
truth for argument names, kinds and defaults: nothing here is per-op.
"""

from __future__ import annotations

import difflib
import functools
from typing import Iterable

import torch
from torch_mlir import ir

__all__ = [
    "AUTO",
    "OpSelection",
    "op_identifier",
    "overload_for",
    "overload_name",
    "DTYPES",
    "LAYOUTS",
    "MEMORY_FORMATS",
]

# c10 enum numbers as the FX importer emits them (torch.constant.int), by name.
# The contract carries names, never these numbers.
DTYPES: dict[int, torch.dtype] = {
    0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
    5: torch.float16, 6: torch.float32, 7: torch.float64, 8: torch.complex32,
    9: torch.complex64, 10: torch.complex128, 11: torch.bool, 12: torch.qint8,
    13: torch.quint8, 14: torch.qint32, 15: torch.bfloat16, 23: torch.float8_e5m2,
    24: torch.float8_e4m3fn, 25: torch.float8_e5m2fnuz, 26: torch.float8_e4m3fnuz,
    27: torch.uint16, 28: torch.uint32, 29: torch.uint64,
}
LAYOUTS: dict[int, torch.layout] = {
    0: torch.strided, 1: torch.sparse_coo, 2: torch.sparse_csr,
    3: torch.sparse_csc, 4: torch.sparse_bsr, 5: torch.sparse_bsc,
}
MEMORY_FORMATS: dict[int, torch.memory_format] = {
    0: torch.contiguous_format, 1: torch.preserve_format,
    2: torch.channels_last, 3: torch.channels_last_3d,
}


def op_identifier(op: ir.Operation) -> str:
    """The dialect spelling of an op: `torch.aten.add.Tensor`, also for
    `torch.operator "torch.mylib.foo"` (user ops the dialect does not define)."""
    if op.name == "torch.operator" and "name" in op.attributes:
        return ir.StringAttr(op.attributes["name"]).value
    return op.name


def _split(identifier: str) -> tuple[str, str, str] | None:
    parts = identifier.split(".")
    if parts[0] == "torch":
        parts = parts[1:]
    if len(parts) == 2:
        return parts[0], parts[1], "default"
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    return None


@functools.lru_cache(maxsize=None)
def overload_for(identifier: str) -> torch._ops.OpOverload | None:
    """`torch.aten.softmax.int` -> `torch.ops.aten.softmax.int`, or None."""
    split = _split(identifier)
    if split is None:
        return None
    ns, name, overload = split
    try:
        packet = getattr(getattr(torch.ops, ns), name)
        result = getattr(packet, overload)
    except (AttributeError, RuntimeError):
        return None
    return result if isinstance(result, torch._ops.OpOverload) else None


def overload_name(overload: torch._ops.OpOverload) -> str:
    """The dialect spelling for an overload: the inverse of `overload_for`."""
    ns, _, name = overload._schema.name.partition("::")
    suffix = overload._schema.overload_name
    return f"torch.{ns}.{name}" + (f".{suffix}" if suffix else "")


def _packet(ns: str, name: str):
    try:
        packet = getattr(getattr(torch.ops, ns), name)
    except (AttributeError, RuntimeError):
        return None
    return packet if isinstance(packet, torch._ops.OpOverloadPacket) else None


def _known_names(ns: str) -> tuple[str, ...]:
    """Every op of namespace `ns` the dispatcher knows; `dir(torch.ops.aten)`
    lists only the packets touched so far. Not cached: libraries add ops."""
    prefix = f"{ns}::"
    names = {n[len(prefix):].split(".")[0] for n in torch._C._dispatch_get_all_op_names() if n.startswith(prefix)}
    return tuple(sorted(f"{ns}.{n}" for n in names))


def _squash(name: str) -> str:
    """The spelling without case and underscores: `layernorm` is `layer_norm`."""
    return name.lower().replace("_", "")


def _suggestions(ns: str, name: str) -> list[str]:
    """Close names in the same namespace, nearest first: a name that differs
    only in case or underscores, then the closest by difflib; a namespace that
    does not exist (or `torch.`, a misplaced prefix) is compared with aten."""
    candidates = _known_names(ns) if ns != "torch" else ()
    candidates = candidates or _known_names("aten")
    typed = (f"{ns}.{name}" if ns != "torch" else f"aten.{name}").lower()
    wanted = _squash(typed)
    squashed: dict[str, str] = {}
    for c in sorted(candidates, key=len):  # the shortest spelling speaks for a squashed name
        squashed.setdefault(_squash(c), c)
    close = [squashed[c] for c in difflib.get_close_matches(wanted, list(squashed), n=3)]
    same = sorted((c for c in candidates if _squash(c) == wanted), key=lambda c: (c.lower() != typed, len(c)))
    return list(dict.fromkeys(same + close))[:3]


def _spec_text(raw) -> str:
    """A name as typed, or the name of a `torch.ops` object given instead
    (`torch.ops.aten.layer_norm` is every overload, `.default` only that one)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, torch._ops.OpOverload):
        return raw._schema.name.replace("::", ".") + "." + (raw._overloadname or "default")
    if isinstance(raw, torch._ops.OpOverloadPacket):
        return raw._qualified_op_name.replace("::", ".")
    raise TypeError(
        f"cannot select ops by a {type(raw).__name__} ({raw!r}): give op names such as 'aten.layer_norm' "
        "or torch.ops objects such as torch.ops.aten.layer_norm"
    )


# The namespaces whose ops `*` selects; other torch-dialect ops (constants,
# lists, literals, ...) are structure, not computation.
EVERYTHING_NAMESPACES = ("aten", "prims", "quantized_decomposed")
AUTO = "auto"  # the op-list word for auto mode


class OpSelection:
    """The ops a user asked for, in any of the spellings users type.

    `aten.layer_norm`, `torch.aten.layer_norm` and `aten.softmax.int` name
    overloads as torch-mlir does; `torch.ops.aten.layer_norm` (every overload)
    and `torch.ops.aten.layer_norm.default` are accepted too, as a convenience; a name without an overload means every
    overload of it (`aten.softmax` is `aten.softmax.int` and `aten.softmax.int_out`). `*` selects every
    op (the audit's dummy mode); `auto` asks the pass to add, per instance, what
    torch-mlir's TOSA lowering cannot take (auto.py). Unknown names are refused with suggestions,
    because a typo would otherwise silently select nothing.
    """

    def __init__(self, specs=(), *, allow_unknown: bool = False):
        if isinstance(specs, str):
            specs = [s for s in specs.split(",")]
        elif isinstance(specs, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            specs = [specs]
        self.everything = False
        self.auto = False
        self._packets: set[tuple[str, str]] = set()
        self._overloads: set[tuple[str, str, str]] = set()
        self.specs: list[str] = []
        for raw in specs:
            spec = _spec_text(raw).strip().strip('"').strip("'")
            if not spec:
                continue
            self.specs.append(spec)
            if spec in ("*", "all"):
                self.everything = True
                continue
            if spec == AUTO:
                self.auto = True
                continue
            parts = spec.split(".")
            if parts[0] == "torch" and len(parts) > 2:
                parts = parts[1:]
            if len(parts) not in (2, 3) or not all(parts):
                raise ValueError(
                    f"cannot read op name '{spec}': expected 'aten.NAME' or "
                    f"'aten.NAME.OVERLOAD' (optionally prefixed with 'torch.')"
                )
            ns, name = parts[0], parts[1]
            packet = _packet(ns, name)
            if packet is None and not allow_unknown:
                close = _suggestions(ns, name)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise ValueError(f"unknown op '{spec}': PyTorch has no torch.ops.{ns}.{name}{hint}")
            if len(parts) == 2:
                self._packets.add((ns, name))
            else:
                overload = parts[2]
                if packet is not None and overload not in packet.overloads():
                    if not allow_unknown:
                        raise ValueError(
                            f"unknown overload '{spec}': torch.ops.{ns}.{name} has overloads "
                            f"{', '.join(sorted(packet.overloads()))}"
                        )
                self._overloads.add((ns, name, overload))

    def __bool__(self) -> bool:
        return self.everything or self.auto or bool(self._packets or self._overloads)

    def listed(self) -> "OpSelection":
        """The ops named (or `*`), without `auto`: what is tunneled before auto mode decides."""
        return OpSelection([s for s in self.specs if s != AUTO])

    def __repr__(self) -> str:
        return f"OpSelection({self.specs!r})"

    def matches(self, identifier: str, *, user_op: bool = False) -> bool:
        """`user_op`: the op is a `torch.operator` (any namespace is an op)."""
        split = _split(identifier)
        if split is None:
            return False
        if self.everything and (user_op or split[0] in EVERYTHING_NAMESPACES):
            return True
        return split[:2] in self._packets or split in self._overloads

    def unmatched(self, identifiers: Iterable[str]) -> list[str]:
        """The names given that select none of `identifiers` (ops as
        `op_identifier` spells them): a listed op the input does not have."""
        identifiers = list(identifiers)
        return [spec for spec in self.specs if spec not in ("*", "all", AUTO)
                and not any(OpSelection([spec], allow_unknown=True).matches(i) for i in identifiers)]

    def overloads(self) -> list[torch._ops.OpOverload]:
        """Every OpOverload selected (for the decomposition tables)."""
        result = []
        for ns, name in sorted(self._packets):
            packet = _packet(ns, name)
            if packet is not None:
                result.extend(getattr(packet, o) for o in packet.overloads())
        for ns, name, overload in sorted(self._overloads):
            ov = overload_for(f"{ns}.{name}.{overload}")
            if ov is not None:
                result.append(ov)
        return result

    def torch_mlir_names(self) -> list[str]:
        """Spellings for torch-mlir's `backend-legal-ops` (exact overloads only)."""
        return sorted({overload_name(o)[len("torch."):] for o in self.overloads()})
