"""The IR helpers every pass uses (python/tosa_custom/core/ir.py)."""

from __future__ import annotations

from torch_mlir import ir

from tosa_custom.core import ir as _ir

_NESTED = """
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
    }
  }
  return
}"""


def test_collect_ops_post_order_or_skipping_what_matched():
    with _ir.make_context():
        module = ir.Module.parse(_NESTED)
        every = _ir.collect_ops(module, lambda op: op.name in ("scf.for", "func.func"))
        # Post-order: an op after the ops nested in it.
        assert [op.name for op in every] == ["scf.for", "scf.for", "func.func"]
        assert every[0].parent == every[1]
        # Skipping the bodies of matches: the outer op alone, nothing nested visited.
        visited = []
        outer = _ir.collect_ops(module, lambda op: visited.append(op.name) or op.name == "scf.for",
                                enter_matches=False)
        assert len(outer) == 1 and outer[0] == every[1]
        assert visited == ["builtin.module", "func.func", "arith.constant", "arith.constant", "scf.for", "func.return"]
