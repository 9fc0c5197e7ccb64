"""Why a case failed, or why an op was not converted: one fixed, documented set.

This is the single table the runner classifies into and the report (and the
README) explains: every failure the audit records carries exactly one of these
names, so two runs can be compared category by category and a reviewer can
look a name up here. The pass's own reasons for leaving an op unconverted
(`tosa_custom.SKIP_CATEGORIES`) are included as they are, under stage
"conversion".
"""

from __future__ import annotations

import dataclasses
from typing import Iterator

from ..core.registry import Registry
from ..tunnel.options import SKIP_CATEGORIES

__all__ = ["Category", "CATEGORIES", "STAGES", "category", "categories", "describe"]

# Where in the pipeline a category arises, in pipeline order (the report
# groups and orders by it).
STAGES = ("case", "export", "conversion", "lowering", "runtime", "comparison", "harness", "selection")


@dataclasses.dataclass(frozen=True)
class Category:
    name: str
    stage: str
    description: str


CATEGORIES: Registry[Category] = Registry("failure category")


def _add(name: str, stage: str, description: str) -> None:
    assert stage in STAGES, stage
    CATEGORIES.add(name, Category(name, stage, description))


# -- the case itself -------------------------------------------------------
_add("case-error", "case", "building the case's module or inputs raised: a bug in the case, not in the compiler")
_add("eager-failed", "case", "eager PyTorch itself failed on the case, so there is no reference to compare with")

# -- torch.export and PyTorch's decompositions -----------------------------
_add("export-failed", "export", "torch.export could not capture the model (strict nor non-strict)")
_add("decomposition-failed", "export", "PyTorch's decompositions failed on the exported program")
_add("decomposed-before-import", "export",
     "PyTorch decomposed the op during export, so torch-mlir never saw it")

# -- our conversion pass (tosa_custom.SKIP_CATEGORIES, verbatim) -----------
for _name, _text in SKIP_CATEGORIES.items():
    _add(_name, "conversion", f"conversion skipped: {_text}")

# -- torch-mlir and the runtime's lowering ---------------------------------
_add("rewritten-by-torch-mlir", "lowering",
     "torch-mlir turned a listed op into another: its FX importer (a Tensor overload called with a Python "
     "number becomes the Scalar one) or its lowering to the backend contract, although the op was backend-legal")
_add("lowering-failed", "lowering",
     "torch-mlir could not lower the model to the backend contract or to TOSA")
_add("not-conformant", "lowering",
     "the TOSA does not conform to the declared target: tosa-validate rejected ops (f64 or i64 types no "
     "profile allows, after compile()'s narrowing passes); the error names each op, its location and rule")
_add("no-tosa-profile", "lowering",
     "an input, result or weight (or a tosa.custom operand) has a type no TOSA profile or extension has "
     "(float64, complex128, uint16/32/64): said before lowering, naming each by its user-facing name")
_add("compile-failed", "lowering", "compile() raised an error outside the categories above")
_add("runtime-lowering-failed", "lowering",
     "the runtime could not lower the TOSA to CPU code (tosa-to-linalg, LLVM translation)")

# -- running the program ---------------------------------------------------
_add("non-tensor-interface", "runtime",
     "the compiled function takes or returns a non-tensor (a Python number compile() could not make a 0-d "
     "tensor), which the runtime cannot pass")
_add("dynamic-shape", "runtime",
     "an input or result has a dynamic (data-dependent) shape, and the runtime runs static shapes only")
_add("executor-limit", "runtime",
     "the executor cannot take a program the target allows: the ML SDK for Vulkan has no 64-bit integer tensors "
     "(a program declaring EXT-INT64 that takes or returns int64) and no zero-size tensors; IREE removes a "
     "dispatch nobody reads, so a kept op without results (other than a metadata check) cannot run there")
_add("no-kernel", "runtime", "no kernel is registered for a tosa.custom, and the generic torch kernel does not apply")
_add("decode-failed", "runtime", "the runtime could not decode a tosa.custom's implementation_attrs")
_add("kernel-error", "runtime", "a kernel raised, or returned a result of the wrong shape or dtype")
_add("runtime-error", "runtime", "running the compiled program failed outside any kernel (e.g. its inputs)")

# -- comparing with eager PyTorch ------------------------------------------
_add("result-mismatch", "comparison", "the results differ from eager in number, shape or dtype")
_add("numeric-mismatch", "comparison",
     "the results differ from eager beyond the case's tolerance (or, for random ops, in mean/std)")

# -- the audit harness -----------------------------------------------------
_add("crash", "harness", "the worker process died while running the case (signal or exit code)")
_add("timeout", "harness", "the case ran longer than the per-case timeout and its worker was killed")

# -- per-op only: the op was not a candidate ----------------------------------
_add("not-selected", "selection", "the mode did not ask for the op to be kept (stock mode, or not in --ops)")
_add("lowered-to-integer", "selection",
     "a PT2E quantize/dequantize op (or a function the quantized lowering tabulates), carried by the tunnel only "
     "for that lowering, which made it integer TOSA (tosa.rescale, tosa.table): handled, not kept")
_add("not-reached", "selection",
     "compilation stopped (for another reason, see the case) before the op could be converted")
_add("unaccounted", "selection",
     "the op was asked for and seen at import, compile() succeeded, yet the op was not converted and "
     "compile()'s report gives no reason (a gap to fix in the report)")


def category(name: str) -> Category:
    return CATEGORIES[name]


def categories() -> Iterator[Category]:
    """Every category, in pipeline (stage) order."""
    entries = [CATEGORIES[k] for k in CATEGORIES]
    return iter(sorted(entries, key=lambda c: STAGES.index(c.stage)))


def describe(name: str) -> str:
    entry = CATEGORIES.get(name)
    return entry.description if entry else "unknown category"
