"""A module of TOSA (kept ops already shaders) as a VGF with its scenario, and
the scenario run in this process.

The SDK's tools do each step: `model-converter` writes the VGF (from MLIR
bytecode: the custom assembly of TOSA ops differs between MLIR versions),
`vgf_dump --scenario-template` the scenario (a resource per input and
output, `.npy` files by path, and a shader resource per compute segment,
whose source `vgf_dump --dump-glsl/--dump-spirv` takes out of the VGF). The
template's placeholders become files of the directory: `inputs/input_<i>.npy`,
`outputs/output_<j>.npy`, `shaders/shader_<n>.comp` (or `.spv`), so the
directory runs as it is with `scenario-runner --scenario scenario.json`.

In this process the runner's Python extension loads the scenario once
(about 1.5 s: the Vulkan device, the graph pipelines, the shaders) and each
call uploads the inputs, runs and downloads the outputs. An input or
output bound to a shader directly is a buffer, which the runner gives back
as bytes: it is viewed as its type here.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from pathlib import Path

import numpy as np

from ..core import ml_sdk
from ..core.diagnostics import CompileError
from ..core.mlir_files import serialize

__all__ = ["Resource", "write_directory", "ScenarioRunner", "runner_line"]

_PLACEHOLDER = re.compile(r"TEMPLATE_PATH_(TENSOR|BUFFER)_(INPUT|OUTPUT)_(\d+)")
_SHADER = re.compile(r"TEMPLATE_PATH_SHADER_([A-Z_-]+?)_(\d+)")
_SHADER_DUMP = {"GLSL": ("--dump-glsl", "comp"), "SPIRV": ("--dump-spirv", "spv"), "SPIR-V": ("--dump-spirv", "spv"),
                "HLSL": ("--dump-hlsl", "hlsl")}
_LOCK = threading.Lock()  # the Vulkan environment is the process's while a scenario is made


@dataclasses.dataclass(frozen=True)
class Resource:
    """An input or output of the scenario: its uid, kind (tensor or buffer) and file."""

    uid: str
    kind: str
    path: str


def _fill(template: dict, directory: Path, what: str) -> tuple[dict, dict[str, list[Resource]]]:
    """The template with its placeholders made files of `directory`, and the inputs and outputs in order."""
    found: dict[str, dict[int, Resource]] = {"INPUT": {}, "OUTPUT": {}}
    for entry in template["resources"]:
        (kind, body), = entry.items()
        for key in ("src", "dst"):
            text = body.get(key, "")
            m = _PLACEHOLDER.fullmatch(text)
            if m:
                folder = "inputs" if m[2] == "INPUT" else "outputs"
                body[key] = f"{folder}/{m[2].lower()}_{m[3]}.npy"
                found[m[2]][int(m[3])] = Resource(body["uid"], kind, body[key])
            m = _SHADER.fullmatch(text)
            if m:
                flag, ext = _SHADER_DUMP[m[1]]
                body[key] = f"shaders/shader_{m[2]}.{ext}"
                ml_sdk.run_tool("vgf_dump", ["-i", str(directory / "model.vgf"), flag, m[2], "-o",
                                             str(directory / body[key])], what)
    ordered = {k.lower() + "s": [v[i] for i in sorted(v)] for k, v in found.items()}
    return template, ordered


def write_directory(module, directory: Path, inputs: list[np.ndarray], what: str) -> dict[str, list[Resource]]:
    """`module` (TOSA, kept ops as shaders) as model.mlirbc, model.vgf,
    scenario.json, shaders/, and `inputs` as inputs/input_<i>.npy; the
    scenario's inputs and outputs in the order of the entry's arguments and results."""
    for sub in ("inputs", "outputs", "shaders"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    (directory / "model.mlirbc").write_bytes(serialize(module, "bytecode"))
    ml_sdk.run_tool("model-converter", ["-i", str(directory / "model.mlirbc"), "-o", str(directory / "model.vgf")],
                    what)
    ml_sdk.run_tool("vgf_dump", ["-i", str(directory / "model.vgf"), "--scenario-template", "-o",
                                 str(directory / "template.json")], what)
    template = json.loads((directory / "template.json").read_text())
    (directory / "template.json").unlink()
    scenario, resources = _fill(template, directory, what)
    for entry in scenario["resources"]:
        if "graph" in entry:
            entry["graph"]["src"] = "model.vgf"
    if len(resources["inputs"]) != len(inputs):
        raise CompileError(f"{what}: the VGF takes {len(resources['inputs'])} inputs, the program {len(inputs)}",
                           category="runtime-lowering-failed")
    for resource, array in zip(resources["inputs"], inputs):
        np.save(directory / resource.path, array)
    (directory / "scenario.json").write_text(json.dumps(scenario, indent=2))
    return resources


def runner_line(directory: Path) -> str:
    """The shell line that runs the directory's scenario without Python."""
    env = " ".join(f"{k}={v}" for k, v in ml_sdk.vulkan_environment().items())
    return (f"cd {directory} && {env} {ml_sdk.program('scenario-runner', 'The scenario runner')} "
            "--scenario scenario.json")


class ScenarioRunner:
    """A directory's scenario loaded in this process: `run(arrays)` gives the outputs."""

    def __init__(self, directory: Path, resources: dict[str, list[Resource]],
                 outputs: list[tuple[tuple[int, ...], np.dtype]], what: str):
        module = ml_sdk.scenario_module()
        with _LOCK, ml_sdk.vulkan_env(what):
            try:
                self.scenario = module.load_scenario(str(directory / "scenario.json"), work_dir=str(directory),
                                                     output_dir=str(directory))
            except Exception as e:  # the runner raises RuntimeError with its message
                raise CompileError(f"{what}: the scenario runner could not load the VGF: {e}",
                                   category="runtime-lowering-failed") from None
        self._inputs = [self._id(r) for r in resources["inputs"]]
        self._outputs = [(self._id(r), r.kind, shape, dtype) for r, (shape, dtype) in zip(resources["outputs"], outputs)]
        self._lock = threading.Lock()

    def _id(self, resource: Resource):
        get = self.scenario.get_buffer_id if resource.kind == "buffer" else self.scenario.get_tensor_id
        return get(resource.uid)

    def run(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        with self._lock:
            for rid, array in zip(self._inputs, arrays):
                self.scenario.upload(rid, np.ascontiguousarray(array))
            self.scenario.run()
            out = []
            for rid, kind, shape, dtype in self._outputs:
                data = np.asarray(self.scenario.download(rid))
                out.append(np.ascontiguousarray(data).view(np.uint8).view(dtype).reshape(shape).copy())
            return out
