"""Hand-written INT TOSA programs (MLIR text) and their inputs, for
test_int_tosa.py: one program per op family, each holding the variants of
that family as separate results, so that one compile per executor covers
them and a mismatch names its variant.

Parameters sit where the specification's REQUIREs allow them, and at its
ends: zero points at -128 and 127, multipliers up to 2^31 - 1, shifts from
the smallest the input's range allows to 62, negative values that land
exactly on a rounding tie.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import torch

__all__ = ["Program", "PROGRAMS", "extremes", "const", "rescale"]

_INFO = {"i8": torch.int8, "i16": torch.int16, "i32": torch.int32}


def _dense(values, shape: list[int], element: str) -> str:
    t = torch.as_tensor(values)
    flat = t.flatten().tolist()
    body = str(flat[0]) if len(set(flat)) == 1 else str(t.reshape(shape).tolist())
    return f"dense<{body}> : tensor<{'x'.join(map(str, shape))}x{element}>" if shape else \
        f"dense<{body}> : tensor<{element}>"


def _type(shape, element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>" if shape else f"tensor<{element}>"


class _Builder:
    """Writes one function's body: constants and ops, each a fresh SSA name."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0

    def name(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def const(self, values, shape, element) -> str:
        v = self.name()
        self.lines.append(f'{v} = "tosa.const"() <{{values = {_dense(values, shape, element)}}}> : () -> '
                          f'{_type(shape, element)}')
        return v

    def op(self, text: str) -> str:
        v = self.name()
        self.lines.append(f"{v} = {text}")
        return v


def const(b: _Builder, values, shape, element) -> str:
    return b.const(values, shape, element)


def rescale(b: _Builder, x: str, in_t: str, out_t: str, shape, multiplier, shift, izp=0, ozp=0, *,
            scale32=True, rounding="SINGLE_ROUND", in_unsigned=False, out_unsigned=False) -> str:
    """A tosa.rescale of `x` (of type `in_t`), per channel when `multiplier` is a list."""
    per_channel = isinstance(multiplier, list)
    n = [len(multiplier)] if per_channel else [1]
    m_t = "i32" if scale32 else "i16"
    izp_t = in_t if in_t != "i48" else "i48"
    m = b.const(multiplier, n, m_t)
    s = b.const(shift, n, "i8")
    zi = b.const(izp, [1], izp_t)
    zo = b.const(ozp, [1], out_t)
    attrs = (f"input_unsigned = {str(in_unsigned).lower()}, output_unsigned = {str(out_unsigned).lower()}, "
             f"per_channel = {str(per_channel).lower()}, rounding_mode = {rounding}, scale32 = {str(scale32).lower()}")
    return b.op(f"tosa.rescale {x}, {m}, {s}, {zi}, {zo} {{{attrs}}} : ({_type(shape, in_t)}, {_type(n, m_t)}, "
                f"{_type(n, 'i8')}, {_type([1], izp_t)}, {_type([1], out_t)}) -> {_type(shape, out_t)}")


def extremes(shape, element: str, seed: int, low: int | None = None, high: int | None = None) -> torch.Tensor:
    """Random values of `element` over [low, high] (default: its whole range),
    the two ends and zero at the first positions."""
    dtype = _INFO[element]
    info = torch.iinfo(dtype)
    low = info.min if low is None else low
    high = info.max if high is None else high
    g = torch.Generator().manual_seed(seed)
    t = torch.randint(low, high + 1, shape, generator=g, dtype=torch.int64)
    flat = t.view(-1)
    ends = [low, high, 0, low + 1, high - 1, -1 if low < 0 else 1]
    flat[: min(len(ends), flat.numel())] = torch.tensor(ends[: flat.numel()])
    return t.to(dtype)


@dataclasses.dataclass(frozen=True)
class Program:
    """A function `@main` (MLIR text), its inputs, and what each result tests."""

    name: str
    text: str
    inputs: Callable[[int], list[torch.Tensor]]  # seed -> inputs
    variants: tuple[str, ...]
    # executor -> what its refusal says, where it refuses the program (a known bug of its own)
    refused_by: dict = dataclasses.field(default_factory=dict)


def _function(args: list[tuple[str, list[int], str]], b: _Builder, results: list[tuple[str, str]]) -> str:
    params = ", ".join(f"{n}: {_type(s, e)}" for n, s, e in args)
    types = ", ".join(t for _, t in results)
    body = "\n  ".join(b.lines)
    return (f"func.func @main({params}) -> ({types}) {{\n  {body}\n  return {', '.join(v for v, _ in results)} : "
            f"{types}\n}}\n")


PROGRAMS: dict[str, Program] = {}


def program(name: str, variants: tuple[str, ...], refused_by: dict | None = None):
    """Registers `build() -> (text, inputs)` as the program `name`."""
    def register(build):
        text, inputs = build()
        assert name not in PROGRAMS
        PROGRAMS[name] = Program(name, text, inputs, variants, refused_by or {})
        return build
    return register


# --- RESCALE -----------------------------------------------------------------

_S8 = [4, 16]


@program("rescale_i8", ("single, zero points at the ends", "double round, shift 40, 2^31-1",
                        "ties: x 512 >> 10", "to i32, input zp -128", "to i16, scale32=false",
                        "per channel", "input unsigned, zp 128", "output unsigned, zp 128",
                        "to i16, scale32=false, shift 62"))
def _rescale_i8():
    b = _Builder()
    x = "%x"
    r = [
        (rescale(b, x, "i8", "i8", _S8, 1073741824, 31, -128, 127), "i8"),
        (rescale(b, x, "i8", "i8", _S8, 2147483647, 40, 127, -128, rounding="DOUBLE_ROUND"), "i8"),
        (rescale(b, x, "i8", "i8", _S8, 512, 10, 0, 0), "i8"),
        (rescale(b, x, "i8", "i32", _S8, 1 << 30, 30, -128, 0), "i32"),
        (rescale(b, x, "i8", "i16", _S8, 32767, 9, 3, 0, scale32=False), "i16"),
        (rescale(b, x, "i8", "i8", _S8, [0, 1, 2147483647, 1 << 30, 1518500250, 3, 77, 1 << 20, 999999937,
                                         2147483647, 1 << 30, 5, 1 << 29, 123456789, 1 << 28, 42],
                 [10, 10, 62, 31, 38, 10, 12, 30, 33, 40, 32, 11, 29, 36, 31, 16], -7, 9,
                 rounding="DOUBLE_ROUND"), "i8"),
        (rescale(b, x, "i8", "i8", _S8, 1 << 30, 31, -128, 0, in_unsigned=True), "i8"),
        (rescale(b, x, "i8", "i8", _S8, 1 << 30, 30, 0, -128, out_unsigned=True), "i8"),
        (rescale(b, x, "i8", "i16", _S8, 32767, 62, 0, 0, scale32=False), "i16"),
    ]
    results = [(v, f"tensor<4x16x{t}>") for v, t in r]
    return _function([("%x", _S8, "i8")], b, results), lambda seed: [extremes(_S8, "i8", seed)]


@program("rescale_i32", ("to i8, single", "to i8, double", "to i16, double, shift 45", "to i32, shift 33",
                         "per channel, double", "ties, single", "ties, double",
                         "ties to i16, scale32=false"))
def _rescale_i32():
    b = _Builder()
    shifts = [32, 33, 31 + 8, 62, 40, 34, 35, 36, 37, 38, 39, 41, 42, 43, 44, 45]
    mults = [1 << 30, 2147483647, 1518500250, 1, 1 << 20, 1073741825, 3, 99991, 1 << 31 - 1, 1234567891,
             2000000000, 7, 1 << 25, 1 << 16, 5, 1 << 30]
    r = [
        rescale(b, "%x", "i32", "i8", _S8, 1518500250, 38, 0, -5),
        rescale(b, "%x", "i32", "i8", _S8, 1518500250, 38, 0, -5, rounding="DOUBLE_ROUND"),
        rescale(b, "%x", "i32", "i16", _S8, 1999999999, 45, 0, 0, rounding="DOUBLE_ROUND"),
        rescale(b, "%x", "i32", "i32", _S8, 2147483647, 33, 0, 0),
        rescale(b, "%x", "i32", "i8", _S8, mults, shifts, 0, 127, rounding="DOUBLE_ROUND"),
        rescale(b, "%t", "i32", "i8", _S8, 1 << 30, 32, 0, 0),
        rescale(b, "%t", "i32", "i8", _S8, 1 << 30, 32, 0, 0, rounding="DOUBLE_ROUND"),
        rescale(b, "%t", "i32", "i16", _S8, 1 << 14, 16, 0, 0, scale32=False),
    ]
    types = ["i8", "i8", "i16", "i32", "i8", "i8", "i8", "i16"]
    results = [(v, f"tensor<4x16x{t}>") for v, t in zip(r, types)]
    return (_function([("%x", _S8, "i32"), ("%t", _S8, "i32")], b, results),
            lambda seed: [extremes(_S8, "i32", seed), extremes(_S8, "i32", seed + 1, -600, 600)])


@program("rescale_i16", ("to i8, single", "to i16, double, shift 17", "to i32, scale32=false",
                         "input unsigned, zp 32768", "output unsigned, zp 32768", "to i16 per channel"))
def _rescale_i16():
    b = _Builder()
    r = [
        (rescale(b, "%x", "i16", "i8", _S8, 1 << 30, 38), "i8"),
        (rescale(b, "%x", "i16", "i16", _S8, 2147483647, 17, rounding="DOUBLE_ROUND"), "i16"),
        (rescale(b, "%x", "i16", "i32", _S8, 32767, 3, scale32=False), "i32"),
        (rescale(b, "%x", "i16", "i8", _S8, 1 << 30, 38, -32768, 0, in_unsigned=True), "i8"),
        (rescale(b, "%x", "i16", "i16", _S8, 1 << 30, 31, 0, -32768, out_unsigned=True), "i16"),
        (rescale(b, "%x", "i16", "i16", _S8, [(i * 134217727) % 2147483647 for i in range(16)],
                 [17 + 2 * i for i in range(16)], rounding="DOUBLE_ROUND"), "i16"),
    ]
    results = [(v, f"tensor<4x16x{t}>") for v, t in r]
    return _function([("%x", _S8, "i16")], b, results), lambda seed: [extremes(_S8, "i16", seed)]


# --- TABLE -------------------------------------------------------------------


def _table_values(n: int, low: int, high: int, seed: int) -> list[int]:
    """A monotone-ish table (as a sigmoid's) with random wiggles, the type's ends included."""
    g = torch.Generator().manual_seed(seed)
    base = torch.sigmoid(torch.linspace(-6, 6, n)) * (high - low) + low
    wiggle = torch.randint(-3, 4, (n,), generator=g)
    values = (base.round().to(torch.int64) + wiggle).clamp(low, high)
    values[0], values[-1], values[n // 2] = low, high, 0
    return values.tolist()


@program("table", ("i8, 256 entries", "i16, 513 entries to i32", "i16 table of extreme slopes"))
def _table():
    b = _Builder()
    t8 = b.const(_table_values(256, -128, 127, 0), [256], "i8")
    t16 = b.const(_table_values(513, -32768, 32767, 1), [513], "i16")
    steep = [(-16384 if i % 2 else 16383) for i in range(513)]  # slopes of +-32767: the most TABLE allows
    t16s = b.const(steep, [513], "i16")
    r = [
        (b.op(f"tosa.table %x, {t8} : (tensor<4x16xi8>, tensor<256xi8>) -> tensor<4x16xi8>"), "i8"),
        (b.op(f"tosa.table %y, {t16} : (tensor<4x16xi16>, tensor<513xi16>) -> tensor<4x16xi32>"), "i32"),
        (b.op(f"tosa.table %y, {t16s} : (tensor<4x16xi16>, tensor<513xi16>) -> tensor<4x16xi32>"), "i32"),
    ]
    results = [(v, f"tensor<4x16x{t}>") for v, t in r]
    return (_function([("%x", _S8, "i8"), ("%y", _S8, "i16")], b, results),
            lambda seed: [extremes(_S8, "i8", seed), extremes(_S8, "i16", seed + 7)])


# --- Convolutions and matmul (i8 with zero points into i32, i16 into i48) ---

def _zp(b, value, element):
    return b.const(value, [1], element)


def _conv(b, kind, x, x_t, w, w_t, bias, bias_t, izp, wzp, out_t, acc, attrs):
    in_e, w_e = x_t.split("x")[-1][:-1], w_t.split("x")[-1][:-1]
    zi, zw = _zp(b, izp, in_e), _zp(b, wzp, w_e)
    return b.op(f"tosa.{kind} {x}, {w}, {bias}, {zi}, {zw} {{acc_type = {acc}, {attrs}}} : "
                f"({x_t}, {w_t}, {bias_t}, tensor<1x{in_e}>, tensor<1x{w_e}>) -> {out_t}")


def _weights(shape, element, seed):
    return extremes(shape, element, seed).tolist()


@program("conv_i8", ("conv2d pad 1, zps -128/5", "conv2d stride 2 dilation 2, zps 127/-128",
                     "depthwise, zps -3/127", "transpose_conv2d stride 2, zps 100/-100",
                     "conv2d then per-channel rescale to i8"))
def _conv_i8():
    b = _Builder()
    x_t = "tensor<1x7x7x3xi8>"
    w = b.const(_weights([4, 3, 3, 3], "i8", 10), [4, 3, 3, 3], "i8")
    bias = b.const([-2147483000 // 4, 0, 12345, -1], [4], "i32")
    c1 = _conv(b, "conv2d", "%x", x_t, w, "tensor<4x3x3x3xi8>", bias, "tensor<4xi32>", -128, 5,
               "tensor<1x7x7x4xi32>", "i32", "dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, "
               "stride = array<i64: 1, 1>")
    c2 = _conv(b, "conv2d", "%x", x_t, w, "tensor<4x3x3x3xi8>", bias, "tensor<4xi32>", 127, -128,
               "tensor<1x2x3x4xi32>", "i32", "dilation = array<i64: 2, 2>, pad = array<i64: 0, 0, 1, 1>, "
               "stride = array<i64: 2, 2>")
    dw = b.const(_weights([3, 3, 3, 2], "i8", 11), [3, 3, 3, 2], "i8")
    dbias = b.const([7, -7, 0, 1 << 20, -(1 << 20), 3], [6], "i32")
    c3 = _conv(b, "depthwise_conv2d", "%x", x_t, dw, "tensor<3x3x3x2xi8>", dbias, "tensor<6xi32>", -3, 127,
               "tensor<1x7x7x6xi32>", "i32", "dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, "
               "stride = array<i64: 1, 1>")
    c4 = _conv(b, "transpose_conv2d", "%x", x_t, w, "tensor<4x3x3x3xi8>", bias, "tensor<4xi32>", 100, -100,
               "tensor<1x16x15x4xi32>", "i32", "out_pad = array<i64: 0, 1, 0, 0>, stride = array<i64: 2, 2>")
    c5 = rescale(b, c1, "i32", "i8", [1, 7, 7, 4], [1518500250, 1 << 30, 2147483647, 1234567891], [38, 39, 40, 36],
                 0, -128, rounding="DOUBLE_ROUND")
    results = [(c1, "tensor<1x7x7x4xi32>"), (c2, "tensor<1x2x3x4xi32>"), (c3, "tensor<1x7x7x6xi32>"),
               (c4, "tensor<1x16x15x4xi32>"), (c5, "tensor<1x7x7x4xi8>")]
    return _function([("%x", [1, 7, 7, 3], "i8")], b, results), lambda seed: [extremes([1, 7, 7, 3], "i8", seed)]


@program("conv_i16", ("conv2d i16 x i8 into i48, rescaled to i16", "depthwise i16 into i48, to i32",
                      "transpose_conv2d i16 stride 1 into i48, to i8", "conv2d i48 accumulator as is, to i32"),
         refused_by={"iree": "zero-extends the negative entries of an i48 constant"})
def _conv_i16():
    b = _Builder()
    x_t = "tensor<1x6x6x3xi16>"
    w = b.const(_weights([4, 3, 3, 3], "i8", 20), [4, 3, 3, 3], "i8")
    bias = b.const([-(1 << 40), 0, 1 << 40, -12345], [4], "i48")
    c1 = _conv(b, "conv2d", "%x", x_t, w, "tensor<4x3x3x3xi8>", bias, "tensor<4xi48>", 0, 0,
               "tensor<1x6x6x4xi48>", "i48", "dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, "
               "stride = array<i64: 1, 1>")
    dw = b.const(_weights([3, 3, 3, 1], "i8", 21), [3, 3, 3, 1], "i8")
    dbias = b.const([1, -1, 1 << 35], [3], "i48")
    c2 = _conv(b, "depthwise_conv2d", "%x", x_t, dw, "tensor<3x3x3x1xi8>", dbias, "tensor<3xi48>", 0, 0,
               "tensor<1x4x4x3xi48>", "i48", "dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, "
               "stride = array<i64: 1, 1>")
    c3 = _conv(b, "transpose_conv2d", "%x", x_t, w, "tensor<4x3x3x3xi8>", bias, "tensor<4xi48>", 0, 0,
               "tensor<1x8x7x4xi48>", "i48", "out_pad = array<i64: 0, 0, -1, 0>, stride = array<i64: 1, 1>")
    r1 = rescale(b, c1, "i48", "i16", [1, 6, 6, 4], [32767, 16384, 1, 30000], [40, 41, 20, 45], scale32=False)
    r2 = rescale(b, c2, "i48", "i32", [1, 4, 4, 3], 32767, 20, scale32=False)
    r3 = rescale(b, c3, "i48", "i8", [1, 8, 7, 4], 12345, 44, scale32=False)
    r4 = rescale(b, c1, "i48", "i32", [1, 6, 6, 4], 1, 10, scale32=False)
    results = [(r1, "tensor<1x6x6x4xi16>"), (r2, "tensor<1x4x4x3xi32>"), (r3, "tensor<1x8x7x4xi8>"),
               (r4, "tensor<1x6x6x4xi32>")]
    return _function([("%x", [1, 6, 6, 3], "i16")], b, results), lambda seed: [extremes([1, 6, 6, 3], "i16", seed)]


@program("matmul", ("i8 zps -128/127", "i8 zps 0/0", "i16 into i48, to i32"))
def _matmul():
    b = _Builder()
    a_t, b_t = "tensor<2x5x8xi8>", "tensor<2x8x6xi8>"
    m1 = b.op(f"tosa.matmul %a, %b, {_zp(b, -128, 'i8')}, {_zp(b, 127, 'i8')} : ({a_t}, {b_t}, tensor<1xi8>, "
              f"tensor<1xi8>) -> tensor<2x5x6xi32>")
    m2 = b.op(f"tosa.matmul %a, %b, {_zp(b, 0, 'i8')}, {_zp(b, 0, 'i8')} : ({a_t}, {b_t}, tensor<1xi8>, "
              f"tensor<1xi8>) -> tensor<2x5x6xi32>")
    m3 = b.op(f"tosa.matmul %c, %d, {_zp(b, 0, 'i16')}, {_zp(b, 0, 'i16')} : (tensor<2x5x8xi16>, "
              f"tensor<2x8x6xi16>, tensor<1xi16>, tensor<1xi16>) -> tensor<2x5x6xi48>")
    r3 = rescale(b, m3, "i48", "i32", [2, 5, 6], 32767, 17, scale32=False)
    results = [(m1, "tensor<2x5x6xi32>"), (m2, "tensor<2x5x6xi32>"), (r3, "tensor<2x5x6xi32>")]
    args = [("%a", [2, 5, 8], "i8"), ("%b", [2, 8, 6], "i8"), ("%c", [2, 5, 8], "i16"), ("%d", [2, 8, 6], "i16")]
    return (_function(args, b, results),
            lambda seed: [extremes(s, e, seed + i) for i, (_, s, e) in enumerate(args)])


# --- Pooling, clamp, elementwise i32, reductions -----------------------------

def _pool(b, kind, x, x_t, out_t, zps, attrs):
    element = x_t.split("x")[-1][:-1]
    if kind == "avg_pool2d":
        zi, zo = _zp(b, zps[0], element), _zp(b, zps[1], element)
        return b.op(f"tosa.avg_pool2d {x}, {zi}, {zo} {{acc_type = i32, {attrs}}} : ({x_t}, tensor<1x{element}>, "
                    f"tensor<1x{element}>) -> {out_t}")
    return b.op(f"tosa.max_pool2d {x} {{{attrs}}} : ({x_t}) -> {out_t}")


@program("pool", ("avg i8 3x3 pad 1, zps -128/127", "avg i8 2x2 stride 2 pad bottom/right, zps 5/-5", "avg i8 3x3 stride 2 pad 1",
                  "avg i16 3x3 pad 1", "max i8 3x3 pad 1", "max i16 2x2 stride 2 pad top/left"))
def _pool_program():
    b = _Builder()
    x_t, y_t = "tensor<1x7x7x3xi8>", "tensor<1x7x7x3xi16>"
    k3p1 = "kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>"
    r = [
        (_pool(b, "avg_pool2d", "%x", x_t, "tensor<1x7x7x3xi8>", (-128, 127), k3p1), "tensor<1x7x7x3xi8>"),
        (_pool(b, "avg_pool2d", "%x", x_t, "tensor<1x4x4x3xi8>", (5, -5), "kernel = array<i64: 2, 2>, "
               "pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>"), "tensor<1x4x4x3xi8>"),
        (_pool(b, "avg_pool2d", "%x", x_t, "tensor<1x4x4x3xi8>", (0, 0), "kernel = array<i64: 3, 3>, "
               "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>"), "tensor<1x4x4x3xi8>"),
        (_pool(b, "avg_pool2d", "%y", y_t, "tensor<1x7x7x3xi16>", (0, 0), k3p1), "tensor<1x7x7x3xi16>"),
        (_pool(b, "max_pool2d", "%x", x_t, "tensor<1x7x7x3xi8>", None, k3p1), "tensor<1x7x7x3xi8>"),
        (_pool(b, "max_pool2d", "%y", y_t, "tensor<1x4x4x3xi16>", None, "kernel = array<i64: 2, 2>, "
               "pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>"), "tensor<1x4x4x3xi16>"),
    ]
    return (_function([("%x", [1, 7, 7, 3], "i8"), ("%y", [1, 7, 7, 3], "i16")], b, r),
            lambda seed: [extremes([1, 7, 7, 3], "i8", seed), extremes([1, 7, 7, 3], "i16", seed + 1)])


@program("elementwise", ("clamp i8 [-100, 90]", "clamp i8 full range", "mul i32 shift 10", "mul i32 shift 0",
                         "mul i32 shift 31", "mul i8 to i32", "add i32", "reduce_sum i32 axis 1",
                         "reduce_sum i32 axis 0"))
def _elementwise():
    b = _Builder()
    t8, t32 = "tensor<4x16xi8>", "tensor<4x16xi32>"

    def mul(x, y, shift, in_t=t32):
        s = b.const(shift, [1], "i8")
        return b.op(f"tosa.mul {x}, {y}, {s} : ({in_t}, {in_t}, tensor<1xi8>) -> {t32}")

    r = [
        (b.op(f"tosa.clamp %x {{max_val = 90 : i8, min_val = -100 : i8}} : ({t8}) -> {t8}"), t8),
        (b.op(f"tosa.clamp %x {{max_val = 127 : i8, min_val = -128 : i8}} : ({t8}) -> {t8}"), t8),
        (mul("%p", "%q", 10), t32),
        (mul("%s", "%s", 0), t32),
        (mul("%p", "%p", 31), t32),
        (mul("%x", "%x", 0, t8), t32),
        (b.op(f"tosa.add %p, %q : ({t32}, {t32}) -> {t32}"), t32),
        (b.op(f"tosa.reduce_sum %p {{axis = 1 : i32}} : ({t32}) -> tensor<4x1xi32>"), "tensor<4x1xi32>"),
        (b.op(f"tosa.reduce_sum %p {{axis = 0 : i32}} : ({t32}) -> tensor<1x16xi32>"), "tensor<1x16xi32>"),
    ]
    args = [("%x", _S8, "i8"), ("%p", _S8, "i32"), ("%q", _S8, "i32"), ("%s", _S8, "i32")]
    return (_function(args, b, r),
            lambda seed: [extremes(_S8, "i8", seed), extremes(_S8, "i32", seed + 1, -(1 << 20), 1 << 20),
                          extremes(_S8, "i32", seed + 2, -(1 << 20), 1 << 20),
                          extremes(_S8, "i32", seed + 3, -46340, 46340)])


@program("transpose_conv_i16", ("stride 2 into i48, to i16", "stride 2x3, out_pad -1/1/0/2, to i32",
                                "stride 2 i8 (stock decomposition), to i8"))
def _transpose_conv_i16():
    b = _Builder()
    x_t, w_t = "tensor<1x4x5x3xi16>", "tensor<2x3x3x3xi8>"
    w = b.const(_weights([2, 3, 3, 3], "i8", 30), [2, 3, 3, 3], "i8")
    bias = b.const([3, 1 << 35], [2], "i48")  # not negative: IREE would refuse it (conv_i16 has negative ones)
    c1 = _conv(b, "transpose_conv2d", "%x", x_t, w, w_t, bias, "tensor<2xi48>", 0, 0, "tensor<1x9x11x2xi48>",
               "i48", "out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>")
    c2 = _conv(b, "transpose_conv2d", "%x", x_t, w, w_t, bias, "tensor<2xi48>", 0, 0, "tensor<1x9x17x2xi48>",
               "i48", "out_pad = array<i64: -1, 1, 0, 2>, stride = array<i64: 2, 3>")
    bias8 = b.const([-1000, 1000], [2], "i32")
    c3 = _conv(b, "transpose_conv2d", "%y", "tensor<1x4x5x3xi8>", w, w_t, bias8, "tensor<2xi32>", -128, 3,
               "tensor<1x9x11x2xi32>", "i32", "out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>")
    r = [(rescale(b, c1, "i48", "i16", [1, 9, 11, 2], [30000, 123], [30, 20], scale32=False), "tensor<1x9x11x2xi16>"),
         (rescale(b, c2, "i48", "i32", [1, 9, 17, 2], 1, 8, scale32=False), "tensor<1x9x17x2xi32>"),
         (rescale(b, c3, "i32", "i8", [1, 9, 11, 2], 1 << 30, 40, 0, 3), "tensor<1x9x11x2xi8>")]
    return (_function([("%x", [1, 4, 5, 3], "i16"), ("%y", [1, 4, 5, 3], "i8")], b, r),
            lambda seed: [extremes([1, 4, 5, 3], "i16", seed), extremes([1, 4, 5, 3], "i8", seed + 1)])


# --- Whole programs in the shape ExecuTorch's Arm backend emits (TOSA-1.0+INT) ---
#
# Every tensor i8 or i32: an i8 convolution or matmul with the input's zero
# point and symmetric weights (zero point 0) accumulates in i32 with an i32
# bias, then a per-channel RESCALE (SINGLE_ROUND) takes it to the next i8
# tensor's scale and zero point; ReLU is the CLAMP at that zero point; an add
# rescales both i8 operands to a common i32 scale first; sigmoid is a TABLE.


def _multiplier(scale: float) -> tuple[int, int]:
    """A real scale as the 32-bit multiplier and shift RESCALE takes."""
    import math

    mantissa, exponent = math.frexp(scale)
    m = round(mantissa * (1 << 31))
    if m == 1 << 31:
        m, exponent = m // 2, exponent + 1
    return m, 31 - exponent


def _per_channel(scales) -> tuple[list[int], list[int]]:
    pairs = [_multiplier(s) for s in scales]
    return [m for m, _ in pairs], [s for _, s in pairs]


def _sigmoid_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> list[int]:
    x = (torch.arange(-128, 128, dtype=torch.float64) - in_zp) * in_scale
    return (torch.sigmoid(x) / out_scale).round().add(out_zp).clamp(-128, 127).to(torch.int64).tolist()


def _reshape(b, x, from_shape, to_shape, element="i8"):
    s = b.op(f"tosa.const_shape {{values = dense<{list(to_shape)}> : tensor<{len(to_shape)}xindex>}} : () -> "
             f"!tosa.shape<{len(to_shape)}>")
    return b.op(f"tosa.reshape {x}, {s} : ({_type(from_shape, element)}, !tosa.shape<{len(to_shape)}>) -> "
                f"{_type(to_shape, element)}")


@program("executorch_mlp", ("logits i8", "sigmoid of the logits i8"))
def _executorch_mlp():
    b = _Builder()
    g = torch.Generator().manual_seed(40)
    w1 = torch.randint(-127, 128, (32, 1, 1, 16), generator=g)
    w2 = torch.randint(-127, 128, (1, 32, 10), generator=g)
    x4 = _reshape(b, "%x", [2, 16], [2, 1, 1, 16])
    bias1 = b.const(torch.randint(-3000, 3000, (32,), generator=g).tolist(), [32], "i32")
    h = _conv(b, "conv2d", x4, "tensor<2x1x1x16xi8>", b.const(w1, [32, 1, 1, 16], "i8"), "tensor<32x1x1x16xi8>",
              bias1, "tensor<32xi32>", -5, 0, "tensor<2x1x1x32xi32>", "i32",
              "dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>")
    m1, s1 = _per_channel([0.02 * 0.004 / 0.05 * (1 + i / 64) for i in range(32)])
    h = rescale(b, h, "i32", "i8", [2, 1, 1, 32], m1, s1, 0, -128)
    h = b.op(f"tosa.clamp {h} {{max_val = 127 : i8, min_val = -128 : i8}} : (tensor<2x1x1x32xi8>) -> "
             "tensor<2x1x1x32xi8>")
    h3 = _reshape(b, h, [2, 1, 1, 32], [1, 2, 32])
    y = b.op(f"tosa.matmul {h3}, {b.const(w2, [1, 32, 10], 'i8')}, {_zp(b, -128, 'i8')}, {_zp(b, 0, 'i8')} : "
             "(tensor<1x2x32xi8>, tensor<1x32x10xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x10xi32>")
    bias2 = b.const(torch.randint(-9000, 9000, (1, 1, 10), generator=g), [1, 1, 10], "i32")
    y = b.op(f"tosa.add {y}, {bias2} : (tensor<1x2x10xi32>, tensor<1x1x10xi32>) -> tensor<1x2x10xi32>")
    m2, s2 = _multiplier(0.05 * 0.003 / 0.1)
    y = rescale(b, y, "i32", "i8", [1, 2, 10], m2, s2, 0, 3)
    logits = _reshape(b, y, [1, 2, 10], [2, 10])
    table = b.const(_sigmoid_table(0.1, 3, 1 / 256, -128), [256], "i8")
    p = b.op(f"tosa.table {logits}, {table} : (tensor<2x10xi8>, tensor<256xi8>) -> tensor<2x10xi8>")
    return (_function([("%x", [2, 16], "i8")], b, [(logits, "tensor<2x10xi8>"), (p, "tensor<2x10xi8>")]),
            lambda seed: [extremes([2, 16], "i8", seed)])


def _rescaled_conv(b, kind, x, x_shape, w_shape, out_shape, izp, ozp, seed, attrs, scales):
    """An i8 convolution with an i32 bias, rescaled per channel to i8 (ExecuTorch's conv)."""
    g = torch.Generator().manual_seed(seed)
    channels = out_shape[-1]
    w = b.const(torch.randint(-127, 128, tuple(w_shape), generator=g), w_shape, "i8")
    bias = b.const(torch.randint(-2000, 2000, (channels,), generator=g).tolist(), [channels], "i32")
    acc = _conv(b, kind, x, _type(x_shape, "i8"), w, _type(w_shape, "i8"), bias, f"tensor<{channels}xi32>", izp, 0,
                _type(out_shape, "i32"), "i32", attrs)
    m, s = _per_channel(scales)
    return rescale(b, acc, "i32", "i8", out_shape, m, s, 0, ozp)


@program("executorch_cnn", ("class scores i8", "sigmoid gate i8"))
def _executorch_cnn():
    b = _Builder()
    same = "dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>"
    c1 = _rescaled_conv(b, "conv2d", "%x", [1, 8, 8, 3], [8, 3, 3, 3], [1, 8, 8, 8], 7, -128, 50, same,
                        [0.03 * 0.01 / 0.04 * (1 + i / 16) for i in range(8)])
    c1 = b.op(f"tosa.clamp {c1} {{max_val = 127 : i8, min_val = -128 : i8}} : (tensor<1x8x8x8xi8>) -> "
              "tensor<1x8x8x8xi8>")
    d = _rescaled_conv(b, "depthwise_conv2d", c1, [1, 8, 8, 8], [3, 3, 8, 1], [1, 8, 8, 8], -128, -10, 51, same,
                       [0.04 * 0.02 / 0.05 * (1 + i / 8) for i in range(8)])
    # The residual: both operands to a common i32 scale (2^20 of it), added, back to i8.
    left = rescale(b, c1, "i8", "i32", [1, 8, 8, 8], *_multiplier(0.04 / 0.05 * (1 << 20) / (1 << 10)), -128, 0)
    right = rescale(b, d, "i8", "i32", [1, 8, 8, 8], *_multiplier((1 << 20) / (1 << 10)), -10, 0)
    s = b.op(f"tosa.add {left}, {right} : (tensor<1x8x8x8xi32>, tensor<1x8x8x8xi32>) -> tensor<1x8x8x8xi32>")
    s = rescale(b, s, "i32", "i8", [1, 8, 8, 8], *_multiplier(0.05 / 0.07 / (1 << 10)), 0, 2)
    gate = b.op(f"tosa.table {s}, {b.const(_sigmoid_table(0.07, 2, 1 / 256, -128), [256], 'i8')} : "
                "(tensor<1x8x8x8xi8>, tensor<256xi8>) -> tensor<1x8x8x8xi8>")
    pooled = b.op(f"tosa.avg_pool2d {s}, {_zp(b, 2, 'i8')}, {_zp(b, 2, 'i8')} {{acc_type = i32, "
                  "kernel = array<i64: 8, 8>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : "
                  "(tensor<1x8x8x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x8xi8>")
    flat = _reshape(b, pooled, [1, 1, 1, 8], [1, 1, 8])
    g = torch.Generator().manual_seed(52)
    w = b.const(torch.randint(-127, 128, (1, 8, 5), generator=g), [1, 8, 5], "i8")
    logits = b.op(f"tosa.matmul {flat}, {w}, {_zp(b, 2, 'i8')}, {_zp(b, 0, 'i8')} : (tensor<1x1x8xi8>, "
                  "tensor<1x8x5xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x5xi32>")
    logits = rescale(b, logits, "i32", "i8", [1, 1, 5], *_multiplier(0.07 * 0.01 / 0.3), 0, -1)
    return (_function([("%x", [1, 8, 8, 3], "i8")], b, [(logits, "tensor<1x1x5xi8>"), (gate, "tensor<1x8x8x8xi8>")]),
            lambda seed: [extremes([1, 8, 8, 3], "i8", seed)])
