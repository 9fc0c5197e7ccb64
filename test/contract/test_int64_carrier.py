"""Contract version 4 (CONTRACT.md 3.5): an int64 constant operand carried
as int32. Decoders hand kernels the int64 tensor; older versions and
results cannot say it."""

from __future__ import annotations

import pytest
import torch

from tosa_custom import ContractError
from tosa_custom.contract.encoding import canonical_json, carry_operand, decode_attrs

_SLICE = canonical_json({"args": {"dim": 1, "end": 3, "self": {"operand": 0}, "start": 1, "step": 1}, "version": 1})


def test_carried_operand_reaches_the_kernel_as_int64():
    text = carry_operand(_SLICE, 0, "int64")
    assert '"operand_dtypes":{"0":"int64"}' in text and '"version":4' in text
    call = decode_attrs("torch.aten.slice.Tensor", text, 1)
    carried = torch.tensor([[0, 1, 2, 2 ** 31 - 1]], dtype=torch.int32)
    out = call(carried)
    assert out.dtype == torch.int64
    assert out.tolist() == [[1, 2]]


def test_int64_needs_version_4_and_is_for_operands_only():
    older = _SLICE.replace('"version":1', '"version":3').replace('"args"', '"operand_dtypes":{"0":"int64"},"args"')
    with pytest.raises(ContractError, match="int64 operand carried as int32 needs contract version 4"):
        decode_attrs("torch.aten.slice.Tensor", canonical_json(__import__("json").loads(older)), 1)
    result = canonical_json({"args": {"dim": 1, "end": 3, "self": {"operand": 0}, "start": 1, "step": 1},
                             "result_dtypes": {"0": "int64"}, "version": 4})
    with pytest.raises(ContractError, match="'result_dtypes' must map indices"):
        decode_attrs("torch.aten.slice.Tensor", result, 1)
