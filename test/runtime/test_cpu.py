"""cpu.py: the ISA read from the host's CPU flags, named ones, and what the JIT is kept to."""

from __future__ import annotations

import pytest

from tosa_custom.runtime.compiled import cpu

ZEN3 = ("fpu sse sse2 ssse3 fma cx16 sse4_1 sse4_2 avx f16c avx2 bmi2")
ZEN4 = ZEN3 + " avx512f avx512dq avx512cd avx512bw avx512vl"
SANDY_BRIDGE = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx"
CORE2 = "fpu sse sse2 ssse3"


def _info(flags: str, arch: str = "x86_64", family: str = "25") -> cpu.HostInfo:
    return cpu.host_info({"flags": flags, "vendor_id": "AuthenticAMD", "cpu family": family, "cpu mhz": "3000.0"},
                         machine=arch)


@pytest.mark.parametrize("flags,isa", [(ZEN3, "avx2"), (ZEN4, "avx512"), (SANDY_BRIDGE, "avx"), (CORE2, "sse"),
                                       ("", "sse")])
def test_host_isa_from_cpu_flags(flags, isa):
    target = cpu.cpu_target("host", info=_info(flags))
    assert target.name == isa and target.source == "host" and target.jit_features == ()


def test_aarch64_is_neon():
    target = cpu.cpu_target("host", info=_info("fp asimd evtstrm sve", arch="arm64"))
    assert (target.name, target.vector_bits, target.registers, target.fma) == ("neon", 128, 32, True)


@pytest.mark.parametrize("isa,host,features", [
    ("avx2", ZEN4, ("-avx512f",)),  # the code an AVX2 host runs
    ("sse", ZEN4, ("-avx",)),
    ("avx", ZEN3, ("-avx2", "-fma", "-avx512f")),
    ("avx512", ZEN3, ()),  # never more than the host has: planned for, not JIT'd for
    ("avx2", ZEN3, ()),
    ("neon", ZEN4, ()),  # another arch: planned for only
])
def test_jit_is_kept_to_a_narrower_isa_only(isa, host, features):
    target = cpu.cpu_target(isa, info=_info(host))
    assert target.jit_features == features


def test_jit_leaves_out_the_hosts_bf16_instructions():
    """bf16 is computed in f32 by MLIR on every x86-64 CPU; with AVX512-BF16
    left on, LLVM aborted on a vectorized bf16 avg_pool."""
    bf16_host = _info(ZEN4 + " avx512_bf16")
    assert cpu.cpu_target("host", info=bf16_host).jit_features == ("-avx512bf16",)
    assert cpu.cpu_target("avx2", info=bf16_host).jit_features == ("-avx512f", "-avx512bf16")
    assert cpu.cpu_target("host", info=bf16_host).runs_natively
    assert not cpu.cpu_target("avx512", info=_info(ZEN3 + " avx512_bf16")).runs_natively  # planned for only


def test_peak_assumes_two_pipes_and_zen4_runs_avx512_at_256_bits():
    assert cpu.cpu_target("avx2", info=_info(ZEN3)).peak_flops_per_cycle() == 32
    assert cpu.cpu_target("host", info=_info(ZEN4)).peak_flops_per_cycle() == 32  # Zen 4: 2 x 256-bit pipes
    assert cpu.cpu_target("host", info=_info(ZEN4, family="26")).peak_flops_per_cycle() == 64
    assert cpu.cpu_target("sse", info=_info(CORE2)).peak_flops_per_cycle() == 16  # 2 mul + 2 add pipes


def test_environment_variable_and_unknown_names(monkeypatch):
    monkeypatch.setenv(cpu.ENV_VAR, "AVX2")
    target = cpu.cpu_target(info=_info(ZEN4))
    assert target.name == "avx2" and target.source == cpu.ENV_VAR
    assert cpu.cpu_target("sse", info=_info(ZEN4)).source == "load(cpu=...)"  # the argument wins
    with pytest.raises(ValueError, match="unknown CPU 'avx1024'.*sse, avx, avx2, avx512, neon"):
        cpu.cpu_target("avx1024", info=_info(ZEN4))


def test_the_real_host_is_known():
    target = cpu.host_cpu()
    assert target.name in cpu.ISAS and target.vector_bits in (128, 256, 512)
    assert "host" in target.describe()
