"""The CPU the compiled code is planned for: ISA, vector width, register file, FMA.

The tiling planner (tiling.py) sizes register tiles and vector lengths from a
`CpuTarget`; the program (program.py) reports the one it used. By default it
is the host's: x86-64 from the `flags` line of /proc/cpuinfo (the same bits
CPUID gives), aarch64 as NEON. `TOSA_CUSTOM_CPU=sse|avx|avx2|avx512|neon` or
`load(cpu=...)` plans for another ISA, so tests and benchmarks can plan for a
CPU they do not run on. When the named ISA is narrower than the host's (AVX2
on an AVX-512 host), the JIT is also told to leave out the wider instructions
(`jit_features`, set as `target_features` on every function): the code is then
what an AVX2 host would run. A wider ISA than the host has is planned for, but
the JIT still targets the host (the code must run here).
"""

from __future__ import annotations

import dataclasses
import os
import platform

__all__ = ["Isa", "CpuTarget", "ISAS", "ENV_VAR", "host_cpu", "cpu_target", "HostInfo", "host_info"]

ENV_VAR = "TOSA_CUSTOM_CPU"


# bf16 is computed in f32 by MLIR (lowering.py's soft-bf16 passes), so that
# every x86-64 CPU gives the same bits; the host's own bf16 instructions are
# left out: with AVX512-BF16 enabled, LLVM's X86 backend aborts the process on
# some vectorized bf16 code it compiles without ("Do not know how to soft
# promote this operator's operand": a padded bf16 avg_pool, OpInfo avg_pool1d
# bfloat16/8). /proc/cpuinfo flag -> the LLVM feature left out.
_SOFT_BF16 = {"avx512_bf16": "-avx512bf16"}


@dataclasses.dataclass(frozen=True)
class Isa:
    """What the planner needs to know of one instruction set."""

    name: str
    arch: str  # platform.machine() of the hosts that have it
    vector_bits: int
    registers: int  # architectural vector registers
    fma: bool  # fused multiply-add (without, math.fma would be a libm call per lane)
    # /proc/cpuinfo flags a host needs for it (x86-64); empty: every host of the arch.
    flags: tuple[str, ...] = ()
    # LLVM target features that keep the JIT to this ISA on a host with a wider one.
    narrower_than_host: tuple[str, ...] = ()

    @property
    def lanes(self) -> int:
        """f32 lanes of one vector register."""
        return self.vector_bits // 32


# Widest last per arch: the host's ISA is the last one whose flags it has.
ISAS: dict[str, Isa] = {isa.name: isa for isa in (
    Isa("sse", "x86_64", 128, 16, False, ("sse2",), ("-avx",)),
    # Sandy / Ivy Bridge: 256-bit vectors, no FMA, no AVX2.
    Isa("avx", "x86_64", 256, 16, False, ("avx",), ("-avx2", "-fma", "-avx512f")),
    Isa("avx2", "x86_64", 256, 16, True, ("avx2", "fma"), ("-avx512f",)),
    Isa("avx512", "x86_64", 512, 32, True, ("avx512f", "avx512vl", "fma")),
    # aarch64: NEON is architectural. SVE hosts are planned as NEON too: the
    # planner makes fixed-length vectors, which LLVM emits as NEON there.
    Isa("neon", "aarch64", 128, 32, True),
)}
_ARCH_ALIASES = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}


@dataclasses.dataclass(frozen=True)
class HostInfo:
    """What /proc/cpuinfo says of the host (empty fields where it says nothing)."""

    arch: str
    flags: frozenset = frozenset()
    vendor: str = ""
    family: int | None = None
    model_name: str = ""
    mhz: float | None = None  # the current / nominal clock the kernel reports (VMs: often nominal)


def _read_cpuinfo(path: str = "/proc/cpuinfo") -> dict[str, str]:
    """The first processor's `key: value` lines."""
    fields: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    if fields:
                        break
                    continue
                key, _, value = line.partition(":")
                fields.setdefault(key.strip().lower(), value.strip())
    except OSError:
        pass
    return fields


def host_info(cpuinfo: dict[str, str] | None = None, machine: str | None = None) -> HostInfo:
    arch = (machine or platform.machine()).lower()
    arch = _ARCH_ALIASES.get(arch, arch)
    fields = _read_cpuinfo() if cpuinfo is None else cpuinfo
    flags = frozenset((fields.get("flags") or fields.get("features") or "").split())
    family = fields.get("cpu family")
    try:
        mhz = float(fields["cpu mhz"]) if "cpu mhz" in fields else None
    except ValueError:
        mhz = None
    return HostInfo(arch, flags, fields.get("vendor_id", ""), int(family) if family and family.isdigit() else None,
                    fields.get("model name", ""), mhz)


def _host_isa(info: HostInfo) -> Isa | None:
    found = None
    for isa in ISAS.values():
        if isa.arch == info.arch and all(f in info.flags for f in isa.flags):
            found = isa
    if found is None and info.arch == "x86_64":
        found = ISAS["sse"]  # SSE2 is part of x86-64
    return found


@dataclasses.dataclass(frozen=True)
class CpuTarget:
    """The ISA a program is planned for, and the host it runs on."""

    isa: Isa
    host: HostInfo
    host_isa: Isa | None
    source: str  # "host", the env var's name, or "load(cpu=...)"

    @property
    def name(self) -> str:
        return self.isa.name

    @property
    def vector_bits(self) -> int:
        return self.isa.vector_bits

    @property
    def registers(self) -> int:
        return self.isa.registers

    @property
    def lanes(self) -> int:
        return self.isa.lanes

    @property
    def fma(self) -> bool:
        return self.isa.fma

    @property
    def jit_features(self) -> tuple[str, ...]:
        """LLVM features the JIT is told to leave out: those of the host's that
        this ISA lacks when it is a narrower one of the host's own arch (never
        add what the host lacks), and AVX512-BF16 always (`_SOFT_BF16`)."""
        return self._narrowing + tuple(f for flag, f in _SOFT_BF16.items() if flag in self.host.flags)

    @property
    def _narrowing(self) -> tuple[str, ...]:
        host = self.host_isa
        if host is None or host.arch != self.isa.arch or host is self.isa:
            return ()
        order = [i for i in ISAS.values() if i.arch == host.arch]
        return self.isa.narrower_than_host if order.index(self.isa) < order.index(host) else ()

    @property
    def runs_natively(self) -> bool:
        """The code is what a host of this ISA runs (the host has it, or is kept to it)."""
        return self.host_isa is self.isa or bool(self._narrowing)

    def peak_flops_per_cycle(self) -> int:
        """f32 FLOP per cycle at the ISA's width: pipes x lanes x 2.

        Assumes two pipes: two FMA pipes (x86-64 cores with FMA since Haswell
        and Zen 1; Neoverse N1), or, without FMA, two multiply and two add
        pipes (what a modern core running SSE-only code has; Sandy Bridge had
        one of each, half this). AMD Zen 4 runs AVX-512 on its two 256-bit
        pipes: counted at 256 bits (family 25 = Zen 3 / Zen 4). A measured
        peak (benchmarks/runtime.py) is the better number where it can run."""
        bits = self.isa.vector_bits
        if self.isa.name == "avx512" and self.host.vendor == "AuthenticAMD" and self.host.family == 25:
            bits = 256
        return 2 * (bits // 32) * 2

    def describe(self) -> str:
        host = self.host_isa.name if self.host_isa else self.host.arch
        jit = f", JIT without {' '.join(self.jit_features)}" if self.jit_features else ""
        return (f"{self.isa.name} ({self.isa.vector_bits}-bit vectors, {self.isa.registers} registers, "
                f"{'FMA' if self.isa.fma else 'no FMA'}; from {self.source}; host {host}{jit})")


def cpu_target(name: "str | CpuTarget | None" = None, *, info: HostInfo | None = None) -> CpuTarget:
    """The target for `name` (an ISA name), else `$TOSA_CUSTOM_CPU`, else the host's."""
    if isinstance(name, CpuTarget):
        return name
    info = info or _host()
    host_isa = _host_isa(info)
    source = "load(cpu=...)"
    if not name:
        name, source = os.environ.get(ENV_VAR, "").strip().lower(), ENV_VAR
    if not name or name == "host":
        if host_isa is None:
            raise ValueError(f"no ISA known for a {info.arch} host (known: {', '.join(ISAS)}); set {ENV_VAR}")
        return CpuTarget(host_isa, info, host_isa, "host")
    if name not in ISAS:
        raise ValueError(f"{source}: unknown CPU {name!r}: expected host or one of {', '.join(ISAS)}")
    return CpuTarget(ISAS[name], info, host_isa, source)


_HOST: list[HostInfo] = []


def _host() -> HostInfo:
    if not _HOST:
        _HOST.append(host_info())
    return _HOST[0]


def host_cpu() -> CpuTarget:
    """The host's own ISA (the environment variable not consulted)."""
    return cpu_target("host")
