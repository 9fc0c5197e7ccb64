"""CONTRACT.md's examples, run: the document cannot drift from the code."""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from torch_mlir import ir

import tosa_custom
from tosa_custom.core import ir as _ir
from tosa_custom.tunnel.conversion import convert_module
from tosa_custom.tunnel.options import PassOptions
from tosa_custom.contract.decode import custom_op_strings

CONTRACT = pathlib.Path(__file__).resolve().parents[2] / "CONTRACT.md"
_EXAMPLE = re.compile(
    r"<!-- contract-example: (?P<options>[^>]*?) -->\s*"
    r"```mlir\n(?P<mlir>.*?)```\s*"
    r"```json\n(?P<json>.*?)\n```\s*"
    r"Type: `(?P<type>[^`]*)`"
    r"(?:\s*\nConstants: (?P<constants>[^\n]*))?",
    re.DOTALL,
)


def _examples():
    text = CONTRACT.read_text()
    found = list(_EXAMPLE.finditer(text))
    # Every marked example must be parsed, or a malformed one would be skipped.
    assert len(found) == text.count("<!-- contract-example:")
    return found


EXAMPLES = _examples()


def test_doc_has_examples_of_both_encodings():
    encodings = {re.search(r"encoding=(\w+)", m["options"])[1] for m in EXAMPLES}
    assert encodings == {"json", "const"}
    assert f"version {tosa_custom.CONTRACT_VERSION}" in CONTRACT.read_text().splitlines()[0]


def _find_custom(module):
    found = tosa_custom.custom_ops(module)
    assert len(found) == 1, f"expected one tosa.custom, got {len(found)}"
    return found[0]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda m: m["options"].replace(" ", ","))
def test_example(example):
    options = dict(item.split("=", 1) for item in example["options"].split())
    ctx = _ir.make_context()
    with ctx:
        module = ir.Module.parse(example["mlir"])
        result = convert_module(module.operation, PassOptions(options["ops"], encoding=options["encoding"]))
        assert not result.skipped
        custom = _find_custom(module)
        _, domain, attrs = custom_op_strings(custom)
        assert domain == tosa_custom.DOMAIN
        assert attrs == example["json"].strip()
        operand_types = ", ".join(str(v.type) for v in custom.operands)
        result_types = [str(r.type) for r in custom.results]
        results = result_types[0] if len(result_types) == 1 else "(" + ", ".join(result_types) + ")"
        assert f"({operand_types}) -> {results}" == example["type"]
        constants = {}
        for i, v in enumerate(custom.operands):
            owner = v.owner
            if not isinstance(owner, ir.Block) and owner.operation.name == "tosa.const":
                constants[i] = str(owner.operation.attributes["values"])
        if options["encoding"] == "json":
            literal_free = {i: c for i, c in constants.items() if "dense_resource" not in c}
            assert not literal_free or example["constants"] is None
        expected = {}
        for item in re.findall(r"`(\d+) = ([^`]*)`", example["constants"] or ""):
            expected[int(item[0])] = item[1]
        assert constants == expected
        # The decoded call is the same, whichever encoding wrote it.
        decoded = tosa_custom.decode(custom)
        assert decoded.overload is tosa_custom.core.schema.overload_for(
            custom_op_strings(custom)[0]
        )
        # §15.2: the shapes read back as they are written (canonical text).
        written = json.loads(attrs).get("result_shapes")
        read = None if decoded.result_shapes is None else \
            [[d if isinstance(d, int) else str(d) for d in dims] for dims in decoded.result_shapes]
        assert read == written
