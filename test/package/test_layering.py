"""The package's folders are its layers: each imports only the layers below
it, function-level imports included, and no module imports itself back
through others. A reader can tell from a path what a file may depend on."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from _source import PACKAGE, imports, modules

# Each layer and the layers it may import. runtime sits beside the compiler,
# not on it: a program runs without compile()'s code, and compile() loads no
# runtime. The audit (e2e) drives both; the tools sit on everything.
_BELOW = {
    "core": set(),
    "contract": {"core"},
    "weights": {"core", "contract"},
    "tosa": {"core", "contract", "weights"},
    # Quantized models as integer TOSA: passes on the TOSA that TorchToTosa made.
    "quant": {"core", "contract", "weights", "tosa"},
    "tunnel": {"core", "contract", "weights", "tosa", "quant"},
    "frontend": {"core", "contract", "weights", "tosa", "quant", "tunnel"},
    "runtime": {"core", "contract", "weights"},
    "e2e": {"core", "contract", "weights", "tosa", "quant", "tunnel", "frontend", "runtime", "iree", "refmodel", "vgf", ""},
    # IREE as an engine: the reference runtime's boundary, weights and native binding, reused.
    "iree": {"core", "contract", "weights", "runtime"},
    # TOSA's reference model as an engine: the same boundary and weights, the runtime's kernels for kept ops.
    "refmodel": {"core", "contract", "weights", "runtime"},
    # Vulkan through Arm's ML SDK as an engine: the same boundary and weights; kept ops as shaders.
    "vgf": {"core", "contract", "weights", "runtime"},
    "tools": {"core", "contract", "weights", "tosa", "quant", "tunnel", "frontend", "runtime", "iree", "refmodel", "vgf", ""},
}
# The package's own modules (the public API and `python -m tosa_custom`) sit
# above the compiler layers; "" stands for them.
_TOP = {"core", "contract", "weights", "tosa", "quant", "tunnel", "frontend", ""}

# Inside runtime, the stages a module passes through, each importing only
# those before it: the kernels (registry, native ABI, built-in kernels) at the
# bottom, the compiled code and its CPU on them (a shared object's imports
# are the native trampolines), the lowering on both (it plans for the CPU and
# outlines the TOSA ops run as kernels), the Program on everything.
# runtime/__init__.py, the public names, sits on all four.
_RUNTIME_BELOW = {
    "kernels": set(),
    "compiled": {"kernels"},
    "lower": {"kernels", "compiled"},
    "execute": {"kernels", "compiled", "lower"},
}
MODULES = modules()
# Installed by CMake beside the modules (the native kernel libraries), not in the source tree.
_INSTALLED = {f"{PACKAGE}._native": "runtime"}


def _layer(module: str) -> str:
    if module in _INSTALLED:
        return _INSTALLED[module]
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in _BELOW) else ""


def _edges() -> dict[str, list[tuple[str, int]]]:
    known = set(MODULES) | set(_INSTALLED)
    return {name: imports(name, path, known) for name, path in MODULES.items()}


def test_every_module_is_in_a_layer():
    loose = [m for m in MODULES if _layer(m) == "" and m not in (PACKAGE, f"{PACKAGE}.__main__")]
    assert not loose, f"modules outside every layer (put each in the package of its layer): {loose}"


def test_each_layer_imports_only_layers_below_it():
    wrong = []
    for module, targets in _edges().items():
        layer = _layer(module)
        allowed = (_BELOW[layer] if layer else _TOP) | {layer}
        for target, line in targets:
            if _layer(target) not in allowed:
                wrong.append(f"{MODULES[module].name}:{line}: {module} ({layer or 'top'}) imports {target} "
                             f"({_layer(target) or 'top'})")
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def _stage(module: str) -> str | None:
    """The runtime subpackage of a module, "" for runtime's own __init__, None outside runtime."""
    parts = module.split(".")
    if parts[:2] != [PACKAGE, "runtime"]:
        return None
    return parts[2] if len(parts) > 2 else ""


def test_every_runtime_module_is_in_a_stage():
    loose = [m for m in MODULES if _stage(m) not in (None, "") and _stage(m) not in _RUNTIME_BELOW]
    assert not loose, f"runtime modules outside its subpackages (put each in the stage of its role): {loose}"


def test_runtime_stages_import_only_stages_below_them():
    wrong = []
    for module, targets in _edges().items():
        stage = _stage(module)
        if not stage:
            continue
        allowed = _RUNTIME_BELOW[stage] | {stage}
        for target, line in targets:
            if _stage(target) is not None and _stage(target) not in allowed:
                wrong.append(f"{MODULES[module].name}:{line}: {module} ({stage}) imports {target} "
                             f"({_stage(target) or 'runtime/__init__'})")
    assert not wrong, "imports against the runtime's stages:\n" + "\n".join(wrong)


def test_no_import_cycles():
    graph = {m: {t for t, _ in targets if t != m} for m, targets in _edges().items()}
    cycles, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_checker_sees_function_level_and_relative_imports(tmp_path):
    """The rules above would pass vacuously if imports were missed."""
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent("""
        from ..core import passes
        def f():
            from ..runtime.execute import program
            import tosa_custom.tunnel.auto
    """))
    known = {f"{PACKAGE}.core.passes", f"{PACKAGE}.runtime.execute.program", f"{PACKAGE}.tunnel.auto"}
    found = {t for t, _ in imports(f"{PACKAGE}.frontend.m", path, known)}
    assert found == known


@pytest.mark.parametrize("call", [
    "tosa_custom.compile(M().eval(), (torch.randn(2, 3),), backend_legal_ops=['aten.gelu'])",
    "tosa_custom.compile(M().eval(), (torch.randn(2, 3),), backend_legal_ops=['auto', 'aten.gelu'])",
])
def test_compile_loads_no_runtime(call):
    """compile() needs neither the runtime nor MLIR's ExecutionEngine; the
    runtime is imported when a program is loaded."""
    script = textwrap.dedent(f"""
        import sys, torch, tosa_custom
        class M(torch.nn.Module):
            def forward(self, x):
                return torch.nn.functional.gelu(x) + 1
        module = {call}
        assert "tosa.custom" in str(module)
        print(sorted(m for m in sys.modules if m.startswith("tosa_custom.runtime") or "execution_engine" in m))
        tosa_custom.runtime.load(module)
        print("tosa_custom.runtime.execute.program" in sys.modules, "torch_mlir.execution_engine" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[]", "True True"], out.stdout
