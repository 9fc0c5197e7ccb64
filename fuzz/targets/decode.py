"""Target `decode`: mutated `implementation_attrs` through `decode_attrs()`/`decode()`.

A case starts from a valid json-encoded call (drawn from the contract tests'
argument strategies) and applies mutations at the JSON level (wrong types,
missing, extra or renamed keys, other contract versions, huge or negative
numbers, bad operand references), at the text level (truncation, invalid
escapes and lone surrogates, NaN tokens, duplicate keys, deep nesting,
garbage), and to the other inputs (operator and domain names, operand count).
Half the cases go through IR: a `tosa.custom` whose attribute is written with
MLIR escapes, sometimes of bytes that are not UTF-8, read by `decode(op)`.

Oracles: the unmutated call decodes; a decoded call re-encodes to exactly the
JSON it was decoded from (so nothing is silently dropped, changed or
defaulted); a newer version is refused naming both versions.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome, clean_or_defect
from . import _common

from tosa_custom import CONTRACT_VERSION, ContractError, DOMAIN  # noqa: E402
from tosa_custom.contract.encoding import canonical_json, decode_attrs  # noqa: E402

__all__ = ["strategy", "check", "mutations"]

WEIRD_JSON = [
    None, True, False, 0, -1, 1, 2**63, -(2**63) - 1, 2**64, 10**30, -(10**30), 1.5, -0.0, 1e308, 5e-324,
    "", "x", "tanh", "\u2028", "\ud800", [], [[]], {}, [None], {"operand": 0}, {"operand": -1}, {"operand": 2**63},
    {"operand": 1.0}, {"operand": True}, {"operand": "0"}, {"operand": 0, "x": 1}, {"float": "nan"},
    {"float": "NaN"}, {"float": 1.0}, {"complex": [1.0]}, {"complex": [1.0, 2.0, 3.0]}, {"complex": "1+2j"},
    {"complex": [1, 2]}, {"dtype": "float99"}, {"dtype": "float32"}, {"dtype": 6}, {"layout": "strided"},
    {"device": "cuda:-1"}, {"device": "cpu"}, {"device": 0}, {"memory_format": "contiguous_format"},
    {"memory_format": []}, [1, 2, 3], [1.0, 2.0], [True], [{"operand": 0}, {"operand": 0}],
]

TEXT_INSERTS = [
    "\\ud800", "\\udfff", "\\x41", "\\u12", "\\", "NaN", "Infinity", "-Infinity", "\x00", "\x1f", "\n",
    "\ufeff", "é", "😀", "\u2028", '"', "{", "}", "[", "]", ",", ":", "1e999", "-1e999", "01", "0x10",
    ",\"version\":2", ",\"args\":{}", ",\"version\":1", "\"\\udc80\"",
]


@st.composite
def _json_mutation(draw):
    return draw(st.one_of(
        st.tuples(st.just("version"), st.sampled_from(
            [CONTRACT_VERSION + 1, CONTRACT_VERSION + 1000, 2**70, 0, -1, -(2**70), "1", 1.0, True, None, [1],
             "missing"])),
        st.tuples(st.just("drop-arg"), st.integers(0, 50)),
        st.tuples(st.just("extra-arg"), st.sampled_from(["extra", "", "self ", "Self", "\u00e9"]),
                  st.sampled_from(WEIRD_JSON)),
        st.tuples(st.just("rename-arg"), st.integers(0, 50), st.sampled_from(["x", "", "SELF", "input2"])),
        st.tuples(st.just("replace-value"), st.integers(0, 10**6), st.sampled_from(WEIRD_JSON)),
        st.tuples(st.just("top-key"), st.sampled_from(["extra", "dropped_results", "Args", "version "]),
                  st.sampled_from(WEIRD_JSON + [[0], [1, 2], [2, 1], [0, 0], [-1], [10**20]])),
        st.tuples(st.just("args-type"), st.sampled_from(WEIRD_JSON)),
        st.tuples(st.just("deep"), st.integers(1, 200_000)),
        st.tuples(st.just("not-object"), st.sampled_from(WEIRD_JSON)),
    ))


@st.composite
def _text_mutation(draw):
    return draw(st.one_of(
        st.tuples(st.just("truncate"), st.integers(0, 10**6)),
        st.tuples(st.just("insert"), st.integers(0, 10**6), st.sampled_from(TEXT_INSERTS)),
        st.tuples(st.just("delete"), st.integers(0, 10**6), st.integers(1, 5)),
        st.tuples(st.just("duplicate-key"),),
        st.tuples(st.just("pretty"),),
        st.tuples(st.just("ascii"),),
        st.tuples(st.just("nesting"), st.integers(1, 300_000)),
        st.tuples(st.just("garbage"), st.text(max_size=20)),
    ))


@st.composite
def _other_mutation(draw):
    return draw(st.one_of(
        st.tuples(st.just("operands"), st.integers(-3, 3)),
        st.tuples(st.just("operator"), st.sampled_from(
            ["", "torch", "torch.", "aten.gelu", "torch.aten.gelu.nope", "torch.aten.no_such_op", "torch.aten",
             "torch.a.b.c.d", "torch.__class__.x", "torch.__dict__.keys", "torch.load_library.x",
             "torch.aten.gelu.default", "torch.aten.add_.Tensor", "torch.aten.split.Tensor",
             "torch.prims.convert_element_type", "torch.aten.add.Tensor", "torch.aten.gelu\x00",
             "torch.aten.\u00e9", "torch.aten.layer_norm"])),
        st.tuples(st.just("domain"), st.sampled_from(["", "TORCH_MLIR", "torch_mlir ", "acme", "\ud800"])),
    ))


@st.composite
def strategy_(draw):
    name, text, n = draw(_common.valid_json_call())
    mutations = draw(st.lists(st.one_of(_json_mutation(), _text_mutation(), _other_mutation()),
                              min_size=0, max_size=3))
    return {"operator_name": name, "attrs": text, "num_operands": n, "mutations": [list(m) for m in mutations],
            "via_ir": draw(st.booleans()), "raw_bytes": draw(st.sampled_from([None, None, None, "FF", "C3", "ED A0 80",
                                                                               "F8 88 80 80 80", "00"]))}


def strategy():
    return strategy_()


def _pick_key(obj: dict, i: int):
    keys = sorted(obj)
    return keys[i % len(keys)] if keys else None


def _nodes(obj, path=()):
    """Every (path, value) in a JSON tree (to depth 40), in a fixed order."""
    yield path, obj
    if len(path) >= 40:
        return
    if isinstance(obj, dict):
        for k in sorted(obj):
            yield from _nodes(obj[k], path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _nodes(v, path + (i,))


def _set(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def mutations(case: dict) -> tuple[str, str, str, int]:
    """Apply the case's mutations: (operator_name, domain_name, text, operand count)."""
    name, domain, n = case["operator_name"], DOMAIN, case["num_operands"]
    obj = json.loads(case["attrs"])
    # A private copy: a mutation's value must not be shared with (and changed
    # through) the strategy's constant tables.
    muts = json.loads(json.dumps(case["mutations"]))
    text = None  # once a text mutation ran, JSON mutations act on a re-parse if possible
    for m in muts:
        kind, *p = m
        if text is not None and kind in ("version", "drop-arg", "extra-arg", "rename-arg", "replace-value",
                                          "top-key", "args-type", "deep", "not-object"):
            try:
                obj = json.loads(text)
                text = None
            except (ValueError, RecursionError):
                continue
        if kind == "version":
            if not isinstance(obj, dict):
                continue
            if p[0] == "missing":
                obj.pop("version", None)
            else:
                obj["version"] = p[0]
        elif kind in ("drop-arg", "rename-arg") and isinstance(obj, dict) and isinstance(obj.get("args"), dict):
            k = _pick_key(obj["args"], p[0])
            if k is not None:
                v = obj["args"].pop(k)
                if kind == "rename-arg":
                    obj["args"][p[1]] = v
        elif kind == "extra-arg" and isinstance(obj, dict) and isinstance(obj.get("args"), dict):
            obj["args"][p[0]] = p[1]
        elif kind == "replace-value":
            nodes = [path for path, _ in _nodes(obj) if path]
            if nodes:
                _set(obj, nodes[p[0] % len(nodes)], p[1])
        elif kind == "top-key" and isinstance(obj, dict):
            obj[p[0]] = p[1]
        elif kind == "args-type" and isinstance(obj, dict):
            obj["args"] = p[0]
        elif kind == "deep":
            nest = 0
            for _ in range(min(p[0], 5000)):  # deeper ones are built as text below
                nest = [nest]
            if isinstance(obj, dict) and isinstance(obj.get("args"), dict) and obj["args"]:
                obj["args"][_pick_key(obj["args"], p[0])] = nest
        elif kind == "not-object":
            obj = p[0]
        elif kind == "operands":
            n = max(0, n + p[0])
        elif kind == "operator":
            name = p[0]
        elif kind == "domain":
            domain = p[0]
        else:
            if text is None:
                try:
                    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
                except (ValueError, RecursionError):
                    text = case["attrs"]
            if kind == "truncate":
                text = text[: p[0] % (len(text) + 1)]
            elif kind == "insert":
                i = p[0] % (len(text) + 1)
                text = text[:i] + p[1] + text[i:]
            elif kind == "delete":
                i = p[0] % (len(text) + 1)
                text = text[:i] + text[i + p[1]:]
            elif kind == "duplicate-key":
                text = text.replace('"version":', '"version":1,"version":', 1)
            elif kind == "pretty":
                try:
                    text = json.dumps(json.loads(text), indent=2)
                except (ValueError, RecursionError):
                    pass
            elif kind == "ascii":
                try:
                    text = json.dumps(json.loads(text), ensure_ascii=True)
                except (ValueError, RecursionError):
                    pass
            elif kind == "nesting":
                text = text.replace('"args":', '"args":' + "[" * p[0], 1) + "]" * p[0]
            elif kind == "garbage":
                text = text + p[0]
    if text is None:
        try:
            text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        except (ValueError, RecursionError):
            text = case["attrs"]
    return name, domain, text, n


def _decode_via_ir(name: str, domain: str, text: str, n: int, raw_bytes: str | None):
    from torch_mlir import ir

    import tosa_custom
    from _emit import mlir_string

    def escaped(s: str) -> str:
        try:
            return mlir_string(s)
        except UnicodeEncodeError:  # a lone surrogate: write its code point's bytes anyway
            return mlir_string(s.encode("utf-8", "surrogatepass").decode("latin-1"))

    attrs = escaped(text)
    if raw_bytes:
        # bytes that are not UTF-8, spliced in at the start of the attribute
        attrs = attrs[0] + "".join(f"\\{b}" for b in raw_bytes.split()) + attrs[1:]
    args = ", ".join(f"%a{i}: tensor<2xf32>" for i in range(n))
    operands = ", ".join(f"%a{i}" for i in range(n))
    types = ", ".join("tensor<2xf32>" for _ in range(n))
    module_text = (f"func.func @f({args}) -> tensor<2xf32> {{\n"
                   f"  %0 = tosa.custom {operands} {{domain_name = {escaped(domain)}, implementation_attrs = {attrs},"
                   f" operator_name = {escaped(name)}}} : ({types}) -> tensor<2xf32>\n"
                   f"  return %0 : tensor<2xf32>\n}}\n")
    with _common.context(), ir.Location.unknown():
        module = ir.Module.parse(module_text)
        (custom,) = tosa_custom.custom_ops(module)
        return tosa_custom.decode(custom)


def _strict_version(text: str):
    """The integer `version` of text that is strictly valid JSON (no repeated
    keys, no NaN tokens) holding an object, else None."""
    def no_dups(pairs):
        if len({k for k, _ in pairs}) != len(pairs):
            raise ValueError("repeated key")
        return dict(pairs)

    def no_constants(token):
        raise ValueError(token)

    try:
        obj = json.loads(text, object_pairs_hook=no_dups, parse_constant=no_constants)
    except (ValueError, RecursionError):
        return None
    version = obj.get("version") if isinstance(obj, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def check(case: dict) -> Outcome:
    # The unmutated call must decode (and re-encode to itself).
    base = decode_attrs(case["operator_name"], case["attrs"], case["num_operands"])
    if _common.encode_call(base) != json.loads(case["attrs"])["args"]:
        raise Defect("wrong", f"valid attrs {case['attrs']} decode to {base}")
    name, domain, text, n = mutations(case)
    try:
        if case["via_ir"]:
            call = _decode_via_ir(name, domain, text, n, case.get("raw_bytes"))
        else:
            call = decode_attrs(name, text, n, domain_name=domain)
    except ContractError as e:
        outcome = clean_or_defect(e, (ContractError,))
        version = _strict_version(text) if not (case["via_ir"] and case.get("raw_bytes")) else None
        if version is not None and version > CONTRACT_VERSION and not (
                f"version {version}" in str(e) and f"version {CONTRACT_VERSION}" in str(e)):
            raise Defect("wrong", f"a newer version ({version}) is refused without naming both versions: {e}")
        return outcome
    except Exception as e:
        return clean_or_defect(e, (ContractError,))
    # Decoded: it must say exactly what the JSON says.
    if case.get("raw_bytes") and case["via_ir"]:
        raise Defect("wrong", f"attribute bytes that are not UTF-8 ({case['raw_bytes']}) decoded to {call}")
    parsed = json.loads(text)
    if parsed.get("version", 0) > CONTRACT_VERSION:
        raise Defect("wrong", f"version {parsed['version']} accepted")
    again = _common.encode_call(call)
    if canonical_json(again) != canonical_json(parsed["args"]):
        raise Defect("wrong", f"{text} decoded to {call}, which re-encodes to {canonical_json(again)}")
    return Outcome(CORRECT, name)
