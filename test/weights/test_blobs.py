"""weights/blobs.py: reading a module's resource blobs and kept values, and
turning tensors into the attributes bind makes (one reader for the weights
passes, the runtime and the TOSA narrowing pass)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_mlir import ir

from tosa_custom.core.ir import make_context
from tosa_custom.weights.blobs import (
    ResourceBlobs,
    builtin_type,
    dense_value,
    module_values,
    resource_array,
    resource_attr,
    resource_blobs,
    resource_key,
    set_module_values,
    tensor_value,
    weight_value,
)
from tosa_custom.weights.manifest import VALUES_ATTR

_MODULE = """
module {
  func.func @main() -> tensor<2xi64> {
    %0 = "tosa.const"() {values = dense_resource<"w.0"> : tensor<2xi64>} : () -> tensor<2xi64>
    return %0 : tensor<2xi64>
  }
}
{-#
  dialect_resources: {
    builtin: {
      "w.0": "0x{blob}"
    }
  }
#-}
"""


@pytest.fixture
def ctx():
    with make_context() as c, ir.Location.unknown():
        yield c


def _blob_module() -> ir.Module:
    # 4 bytes of alignment, then 7 and 9 as little-endian int64.
    hexdata = "08000000" + np.array([7, 9], dtype=np.int64).tobytes().hex()
    return ir.Module.parse(_MODULE.replace("{blob}", hexdata))


def _const_attr(module: ir.Module) -> ir.Attribute:
    func = module.body.operations[0]
    return func.regions[0].blocks[0].operations[0].attributes["values"]


def test_a_resource_blob_is_read_from_the_printed_module(ctx):
    module = _blob_module()
    attr = _const_attr(module)
    assert resource_key(attr) == "w.0"
    blobs = resource_blobs(module.operation)
    assert np.frombuffer(blobs["w.0"], dtype=np.int64).tolist() == [7, 9]
    t = tensor_value(attr, (2,), "int64", ResourceBlobs(module.operation))
    assert t.tolist() == [7, 9] and t.dtype == torch.int64


def test_a_missing_blob_is_named(ctx):
    attr = _const_attr(_blob_module())
    empty = ir.Module.parse("module {}")
    with pytest.raises(ValueError, match="the module has no blob 'w.0'"):
        tensor_value(attr, (2,), "int64", ResourceBlobs(empty.operation))


def test_a_dense_attribute_has_no_resource_key(ctx):
    t = torch.tensor([1.5, 2.5])
    attr = dense_value(t, ir.Type.parse("!torch.vtensor<[2],f32>"))
    assert resource_key(attr) is None
    assert tensor_value(attr, (2,), "float32", ResourceBlobs(None)).tolist() == [1.5, 2.5]


def test_bfloat16_dense_values_keep_their_bits(ctx):
    t = torch.tensor([1.0, -2.0], dtype=torch.bfloat16)
    attr = dense_value(t, ir.RankedTensorType.get([2], ir.BF16Type.get()))
    assert str(attr) == "dense<[1.000000e+00, -2.000000e+00]> : tensor<2xbf16>"


def test_weight_value_is_a_resource_unless_scalar_or_bool(ctx):
    ty = builtin_type(ir.Type.parse("!torch.vtensor<[3],si64>"))
    assert str(ty) == "tensor<3xsi64>"  # a torch.vtensor.literal keeps the signed element
    assert resource_key(weight_value(torch.arange(3), ty, "a.b")) == "a.b"
    flags = weight_value(torch.tensor([True, False, True]), ir.Type.parse("tensor<3xi1>"), "f")
    assert resource_key(flags) is None


def test_module_values_round_trip(ctx):
    module = ir.Module.parse("module {}")
    assert module_values(module.operation) == {}
    value = dense_value(torch.tensor([1, 2]), ir.Type.parse("tensor<2xi64>"))
    set_module_values(module.operation, {"w": value})
    assert module_values(module.operation) == {"w": value}
    set_module_values(module.operation, {})
    assert VALUES_ATTR not in module.operation.attributes


def test_a_blob_made_here_is_read_back_without_printing_the_module(ctx, monkeypatch):
    import tosa_custom.weights.blobs as blobs

    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    ty = ir.RankedTensorType.get([2, 3], ir.F32Type.get())
    first, second = resource_attr(array, "w", ty), resource_attr(array * 2, "w", ty)
    assert resource_key(first) == "w" and resource_key(second) != "w"  # the context renames the second
    assert resource_array(first).tolist() == array.tolist()
    assert resource_array(second).tolist() == (array * 2).tolist()
    assert resource_array(first).shape == (2, 3)
    monkeypatch.setattr(blobs, "resource_blobs", lambda module_op: pytest.fail("printed the module"))
    module = ir.Module.parse("module {}")
    read = ResourceBlobs(module.operation).get(resource_key(second))
    assert np.frombuffer(read, dtype=np.float32).tolist() == (array * 2).reshape(-1).tolist()


def test_a_parsed_blob_is_not_one_made_here(ctx):
    attr = _const_attr(_blob_module())
    assert resource_array(attr) is None
    assert resource_array(dense_value(torch.tensor([1.5, 2.5]), ir.Type.parse("tensor<2xf32>"))) is None


def test_the_made_blobs_table_keeps_no_context_alive():
    import gc
    import weakref

    from tosa_custom.weights.blobs import _MADE

    context = make_context()
    with context, ir.Location.unknown():
        resource_attr(np.ones(4, np.float32), "w", ir.RankedTensorType.get([4], ir.F32Type.get()))
    alive = weakref.ref(context)
    assert context in _MADE
    del context
    gc.collect()
    assert alive() is None
