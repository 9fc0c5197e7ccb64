"""Native kernels behind the C ABI of `tosa_custom_kernel.h` (CONTRACT.md §11).

A kernel library is a shared object that exports `tosa_custom_kernel_abi_version`
and `tosa_custom_kernel_lookup` (and, for listings, `tosa_custom_kernel_at`).
The package ships one, the built-in kernels (lib/kernels.c: f32, and int8 for
the kept ops of quantized models, CONTRACT.md §18.6); a user adds
theirs with `load_kernel_library(path)`. Lookup is by (domain, operator, element
type of input 0), newest library first, the built-in one last.

At load, `bind()` builds one op's C structs (decoded attributes, static types,
error buffer) and calls the kernel's `prepare`; the compiled code then calls
the runtime library's trampoline for the op's arity with the address of those
structs baked in, and the trampoline calls the kernel's `run`: no Python per
call. A failure is a status word the program reads after the compiled code
returns (`ProgramStatus`), and becomes a KernelError naming the op.

ABI version 2 (CONTRACT.md 11.1) adds what running a kernel on slices needs:
`prepare` declares the op's parallel dims (`tck_split`, read back here as
`NativeBinding.split`), `run` is re-entrant and takes sizes from the
descriptors. Libraries built for version 1 still load: their `tck_call` is
the same up to `error_capacity`, they see `abi_version` 1, and declare no
split (they run whole).

Dynamic shapes (CONTRACT.md 15): a site dim known only at run time (None in
`CustomCallSite` shapes) is TCK_DYNAMIC at prepare; each call's sizes are in
its descriptors, so one prepare serves every size, and a failed call's
outputs are zeroed by those sizes (lib/runtime.c), not by sizes fixed at load.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, Sequence

import torch

from ...core import dtypes as _dtypes
from ...contract.encoding import Operand

__all__ = [
    "ABI_VERSION", "KernelLibrary", "KernelLibraryError", "NativeBinding", "ProgramStatus",
    "builtin_library", "compile_kernel_library", "include_dir", "kernel_libraries", "load_kernel_library",
    "unload_kernel_library", "bind", "describe_call", "libcalls", "runtime_library_path", "status_name",
    "Split", "ABI_VERSION_MIN", "MAX_PARALLEL", "DYNAMIC",
]

ABI_VERSION = 2
ABI_VERSION_MIN = 1  # the oldest library version still loaded (TCK_ABI_VERSION_MIN)
MAX_PARALLEL = 3  # TCK_MAX_PARALLEL
DYNAMIC = -1  # TCK_DYNAMIC: a dim of tck_tensor_type.shape known only at run time

# Status codes (TCK_*).
OK, ERROR, INVALID_ARGUMENT, UNSUPPORTED, DECLINE = 0, 1, 2, 3, 4
_STATUS_NAMES = {ERROR: "error", INVALID_ARGUMENT: "invalid argument", UNSUPPORTED: "unsupported",
                 DECLINE: "declined"}

# Element types (TCK_F32, ...), by MLIR element type name.
# The C ABI's element codes (tosa_custom_kernel.h), by builtin element spelling.
ELEMENT_TYPES = {d.builtin: d.native for d in _dtypes.DTYPES if d.native is not None}

# Attribute kinds (TCK_ATTR_*).
(A_NONE, A_BOOL, A_INT, A_FLOAT, A_STRING, A_INT_LIST, A_FLOAT_LIST, A_BOOL_LIST, A_OPERAND, A_OPERAND_LIST,
 A_COMPLEX, A_DTYPE, A_LAYOUT, A_DEVICE, A_MEMORY_FORMAT, A_OTHER) = range(16)

_ERROR_CAPACITY = 1024


class KernelLibraryError(RuntimeError):
    """A kernel library cannot be used: not found, not loadable, wrong ABI."""


def status_name(status: int) -> str:
    return f"{_STATUS_NAMES.get(status, 'unknown status')} (status {status})"


# --- The ABI's structs, mirrored. lib/runtime.c's tck_runtime_sizes checks them.


class TensorType(ctypes.Structure):
    _fields_ = [("element_type", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class Attr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32), ("count", ctypes.c_int32),
                ("i", ctypes.c_int64), ("f", ctypes.c_double), ("s", ctypes.c_char_p),
                ("ints", ctypes.POINTER(ctypes.c_int64)), ("floats", ctypes.POINTER(ctypes.c_double))]


class SplitStruct(ctypes.Structure):
    _fields_ = [("num_parallel", ctypes.c_int32), ("num_operands", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int32))]


class Call(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("struct_size", ctypes.c_uint32),
                ("domain_name", ctypes.c_char_p), ("operator_name", ctypes.c_char_p),
                ("implementation_attrs", ctypes.c_char_p), ("location", ctypes.c_char_p),
                ("num_inputs", ctypes.c_int32), ("num_outputs", ctypes.c_int32),
                ("inputs", ctypes.POINTER(TensorType)), ("outputs", ctypes.POINTER(TensorType)),
                ("num_attrs", ctypes.c_int32), ("attrs", ctypes.POINTER(Attr)),
                ("state", ctypes.c_void_p), ("error", ctypes.c_void_p), ("error_capacity", ctypes.c_size_t),
                ("split", SplitStruct)]


class Kernel(ctypes.Structure):
    _fields_ = [("domain_name", ctypes.c_char_p), ("operator_name", ctypes.c_char_p),
                ("element_type", ctypes.c_int32), ("prepare", ctypes.c_void_p), ("run", ctypes.c_void_p),
                ("release", ctypes.c_void_p), ("description", ctypes.c_char_p)]


class ProgramStatus(ctypes.Structure):
    """One per program: the first failing native kernel's status and site index."""

    _fields_ = [("status", ctypes.c_int32), ("site", ctypes.c_int32)]


class Site(ctypes.Structure):
    _fields_ = [("call", Call), ("run", ctypes.c_void_p), ("program", ctypes.POINTER(ProgramStatus)),
                ("index", ctypes.c_int32), ("reserved", ctypes.c_int32)]


_PREPARE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(Call))
_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(Call))


# --- Where the package's native files are.


def _native_dir() -> Path:
    """The directory CMake installed the libraries and the header into."""
    override = os.environ.get("TOSA_CUSTOM_NATIVE_DIR")
    if override:
        return Path(override)
    try:
        from ... import _native  # installed by CMakeLists.txt (editable installs too)
    except ImportError:
        raise KernelLibraryError(
            "the native libraries are not installed (no tosa_custom._native): reinstall the package with "
            "`pip install -e .` so that CMake builds lib/, or set TOSA_CUSTOM_NATIVE_DIR"
        ) from None
    return Path(_native.__file__).parent


def include_dir() -> Path:
    """The directory holding `tosa_custom_kernel.h`, for building kernel libraries."""
    return _native_dir() / "include"


def _library_file(stem: str) -> Path:
    path = _native_dir() / f"lib{stem}.so"
    if not path.exists():
        raise KernelLibraryError(f"{path} is missing: reinstall the package (`pip install -e .`) to rebuild lib/")
    return path


@functools.lru_cache(maxsize=None)
def _runtime() -> ctypes.CDLL:
    """The runtime library (trampolines), loaded once and checked against the mirrors above."""
    dll = ctypes.CDLL(str(_library_file("tosa_custom_runtime")))
    if dll.tck_runtime_abi_version() != ABI_VERSION:
        raise KernelLibraryError(f"libtosa_custom_runtime.so implements ABI {dll.tck_runtime_abi_version()}, "
                                 f"this package {ABI_VERSION}: reinstall the package")
    sizes = (ctypes.c_int64 * 5)()
    dll.tck_runtime_sizes(sizes)
    mine = [ctypes.sizeof(c) for c in (Call, Attr, TensorType, Site, ProgramStatus)]
    if list(sizes) != mine:
        raise KernelLibraryError(f"the C structs ({list(sizes)} bytes) and their ctypes mirrors ({mine}) differ")
    dll.tck_runtime_trampoline.restype = ctypes.c_void_p
    dll.tck_runtime_trampoline.argtypes = [ctypes.c_int32]
    return dll


def max_arity() -> int:
    """The most memrefs (inputs + outputs) a native op may have."""
    return _runtime().tck_runtime_max_arity()


def trampoline(arity: int) -> int:
    return _runtime().tck_runtime_trampoline(arity)


# compiler-rt builtins LLVM calls for conversions no x86-64 instruction does,
# which the JIT finds only in some hosts' libgcc: lib/runtime.c has them.
_LIBCALLS = {"__truncdfhf2": "tck_truncdfhf2", "__truncdfbf2": "tck_truncdfbf2", "__truncsfbf2": "tck_truncsfbf2",
             "__truncsfhf2": "tck_truncsfhf2"}


def libcalls() -> dict[str, int]:
    """The builtins' addresses in the runtime library, by the symbol LLVM calls."""
    dll = _runtime()
    return {name: ctypes.cast(getattr(dll, ours), ctypes.c_void_p).value for name, ours in _LIBCALLS.items()}


def runtime_library_path() -> Path:
    """The runtime library (trampolines, builtins) compiled code calls into."""
    return _library_file("tosa_custom_runtime")


# --- Libraries.


class KernelLibrary:
    """A loaded kernel library: ABI checked, kernels found by (domain, operator, element type)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).resolve()
        if not self.path.exists():
            raise KernelLibraryError(f"kernel library {path} does not exist")
        try:
            self._dll = ctypes.CDLL(str(self.path))
        except OSError as e:
            raise KernelLibraryError(f"cannot load kernel library {path}: {e}") from None
        for symbol in ("tosa_custom_kernel_abi_version", "tosa_custom_kernel_lookup"):
            if not hasattr(self._dll, symbol):
                raise KernelLibraryError(
                    f"{path} does not export {symbol}(): not a tosa.custom kernel library "
                    "(TCK_DEFINE_LIBRARY in tosa_custom_kernel.h defines the exports)"
                )
        version = self._dll.tosa_custom_kernel_abi_version
        version.restype = ctypes.c_uint32
        self.version = version()
        if not ABI_VERSION_MIN <= self.version <= ABI_VERSION:
            raise KernelLibraryError(
                f"{path} was built for kernel ABI version {self.version}; this runtime implements versions "
                f"{ABI_VERSION_MIN} to {ABI_VERSION}: rebuild it against {include_dir() / 'tosa_custom_kernel.h'}"
            )
        self._lookup = self._dll.tosa_custom_kernel_lookup
        self._lookup.restype = ctypes.POINTER(Kernel)
        self._lookup.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int32]
        self._at = getattr(self._dll, "tosa_custom_kernel_at", None)
        if self._at is not None:
            self._at.restype = ctypes.POINTER(Kernel)
            self._at.argtypes = [ctypes.c_size_t]

    def lookup(self, domain_name: str, operator_name: str, element_type: str) -> Kernel | None:
        code = ELEMENT_TYPES.get(element_type)
        if code is None:
            return None
        found = self._lookup(domain_name.encode(), operator_name.encode(), code)
        if not found:
            return None
        kernel = found.contents
        if not kernel.run:
            raise KernelLibraryError(f"{self.path}: the kernel for {domain_name}::{operator_name} has no run function")
        return kernel

    def kernels(self) -> list[str]:
        """`domain::operator [element type]` for each kernel, if the library lists them."""
        if self._at is None:
            return []
        names = {v: k for k, v in ELEMENT_TYPES.items()}
        out, i = [], 0
        while (k := self._at(i)):
            k = k.contents
            out.append(f"{k.domain_name.decode()}::{k.operator_name.decode()} "
                       f"[{names.get(k.element_type, k.element_type)}]")
            i += 1
        return out

    def __repr__(self) -> str:
        return f"KernelLibrary({str(self.path)!r})"


_LOCK = threading.Lock()
_USER_LIBRARIES: list[KernelLibrary] = []  # newest first


@functools.lru_cache(maxsize=None)
def builtin_library() -> KernelLibrary:
    """The package's own kernels (lib/kernels.c: f32, and int8 kept ops)."""
    return KernelLibrary(_library_file("tosa_custom_kernels"))


def load_kernel_library(path: str | os.PathLike) -> KernelLibrary:
    """Load a kernel library implementing the C ABI (CONTRACT.md §11); its
    kernels are preferred, from now on, to those of libraries loaded before
    and to the built-in and Python reference kernels (a kernel registered
    with `register_kernel` for a domain of your own still wins). Loading the
    same file again makes it the newest; programs already loaded keep theirs."""
    library = KernelLibrary(path)
    with _LOCK:
        for old in list(_USER_LIBRARIES):
            if old.path == library.path:
                _USER_LIBRARIES.remove(old)
                library = old
        _USER_LIBRARIES.insert(0, library)
    return library


def unload_kernel_library(library: KernelLibrary) -> None:
    """Stop looking kernels up in `library` (programs using it keep working)."""
    with _LOCK:
        if library in _USER_LIBRARIES:
            _USER_LIBRARIES.remove(library)


def kernel_libraries(builtin: bool = True) -> list[KernelLibrary]:
    """Where kernels are looked up, in order: user libraries newest first, then
    the built-in one (unless `builtin=False`)."""
    with _LOCK:
        libraries = list(_USER_LIBRARIES)
    if not builtin:
        return libraries
    try:
        libraries.append(builtin_library())
    except KernelLibraryError:
        pass  # not built: the Python kernels serve
    return libraries


def compile_kernel_library(sources: Sequence[str | os.PathLike], output: str | os.PathLike,
                           extra_args: Sequence[str] = ()) -> Path:
    """Build a kernel library from C sources with the system C compiler
    ($CC, else cc/gcc/clang), against the installed header. Returns its path."""
    compiler = os.environ.get("CC") or next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    if compiler is None:
        raise KernelLibraryError("no C compiler found (set CC)")
    cmd = [compiler, "-shared", "-fPIC", "-O2", "-std=c11", f"-I{include_dir()}", *map(str, sources),
           "-o", str(output), *extra_args, "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise KernelLibraryError(f"compiling the kernel library failed:\n{' '.join(cmd)}\n{done.stderr}")
    return Path(output)


# --- Attributes in C form.


class _Attrs:
    """tck_attr entries for named values; keeps every buffer they point to alive."""

    def __init__(self, named: list[tuple[str, Any]]):
        self.keep: list[Any] = []
        self.array = (Attr * max(len(named), 1))()
        self.count = len(named)
        for entry, (name, value) in zip(self.array, named):
            entry.name = self._bytes(name)
            self._fill(entry, value)

    def _bytes(self, text: str) -> bytes:
        b = text.encode()
        self.keep.append(b)
        return b

    def _string(self, entry: Attr, kind: int, text: str) -> None:
        entry.kind, entry.s = kind, self._bytes(text)
        entry.count = len(entry.s)

    def _ints(self, entry: Attr, kind: int, values: list[int]) -> None:
        array = (ctypes.c_int64 * max(len(values), 1))(*values)
        self.keep.append(array)
        entry.kind, entry.count, entry.ints = kind, len(values), array

    def _floats(self, entry: Attr, kind: int, values: list[float]) -> None:
        array = (ctypes.c_double * max(len(values), 1))(*values)
        self.keep.append(array)
        entry.kind, entry.count, entry.floats = kind, len(values), array

    def _fill(self, entry: Attr, v: Any) -> None:
        if v is None:
            entry.kind, entry.count = A_NONE, 0
        elif isinstance(v, Operand):
            entry.kind, entry.count, entry.i = A_OPERAND, 1, v.index
        elif isinstance(v, bool):
            entry.kind, entry.count, entry.i = A_BOOL, 1, int(v)
        elif isinstance(v, int):
            if not -2**63 <= v < 2**63:
                self._string(entry, A_OTHER, str(v))
            else:
                entry.kind, entry.count, entry.i = A_INT, 1, v
        elif isinstance(v, float):
            entry.kind, entry.count, entry.f = A_FLOAT, 1, v
        elif isinstance(v, str):
            self._string(entry, A_STRING, v)
        elif isinstance(v, complex):
            self._floats(entry, A_COMPLEX, [v.real, v.imag])
        elif isinstance(v, torch.dtype):
            self._string(entry, A_DTYPE, str(v).removeprefix("torch."))
        elif isinstance(v, torch.layout):
            self._string(entry, A_LAYOUT, str(v).removeprefix("torch."))
        elif isinstance(v, torch.device):
            self._string(entry, A_DEVICE, str(v))
        elif isinstance(v, torch.memory_format):
            self._string(entry, A_MEMORY_FORMAT, str(v).removeprefix("torch."))
        elif isinstance(v, (list, tuple)):
            self._list(entry, list(v))
        else:
            self._string(entry, A_OTHER, json.dumps(v, default=str, sort_keys=True))

    def _list(self, entry: Attr, v: list) -> None:
        if all(isinstance(x, bool) for x in v) and v:
            self._ints(entry, A_BOOL_LIST, [int(x) for x in v])
        elif all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            self._ints(entry, A_INT_LIST, v)
        elif all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            self._floats(entry, A_FLOAT_LIST, [float(x) for x in v])
        elif all(x is None or isinstance(x, Operand) for x in v):
            self._ints(entry, A_OPERAND_LIST, [-1 if x is None else x.index for x in v])
        else:
            text = json.dumps([{"operand": x.index} if isinstance(x, Operand) else x for x in v], default=str)
            self._string(entry, A_OTHER, text)


def _json_attrs(text: str) -> list[tuple[str, Any]]:
    """Another domain's implementation_attrs, if a JSON object: its entries
    ({"operand": k} as an operand, {"float": "inf"} as a float)."""
    try:
        obj = json.loads(text, parse_constant=float) if text else None
    except ValueError:
        return []
    if not isinstance(obj, dict):
        return []

    def value(v):
        if isinstance(v, dict):
            if set(v) == {"operand"} and isinstance(v["operand"], int):
                return Operand(v["operand"])
            if set(v) == {"float"} and v["float"] in ("inf", "-inf", "nan"):
                return float(v["float"])
        if isinstance(v, list):
            return [value(x) for x in v]
        return v

    return [(k, value(obj[k])) for k in sorted(obj)]


# --- One op bound to a native kernel.


@dataclasses.dataclass(frozen=True)
class Split:
    """How a prepared op may be split (CONTRACT.md 11.6): `parallel` dims;
    `dims[k][p]` is the dim of operand k (inputs, then outputs) sliced along
    parallel dim p, or -1 (passed whole). No parallel dim: the op runs whole."""

    parallel: int
    dims: tuple[tuple[int, ...], ...]


def _read_split(call: Call, site, make_error) -> Split:
    """The split `prepare` declared, checked against the op's types: every
    output sliced along every parallel dim, dims in range, sliced dims of
    one parallel dim of equal static size."""
    shapes = list(site.input_shapes) + list(site.output_shapes)
    n = call.split.num_parallel
    if n == 0:
        return Split(0, tuple(() for _ in shapes))
    if not 0 < n <= MAX_PARALLEL:
        raise make_error(f"prepare declared {n} parallel dims; at most {MAX_PARALLEL}")
    dims = tuple(tuple(call.split.dims[k * MAX_PARALLEL + p] for p in range(n)) for k in range(len(shapes)))
    n_in = len(site.input_shapes)
    for p in range(n):
        sizes = set()
        for k, shape in enumerate(shapes):
            d = dims[k][p]
            if d < 0 and k >= n_in:
                raise make_error(f"prepare left output {k - n_in} whole along parallel dim {p}; every output "
                                 "must be sliced along every parallel dim")
            if d >= len(shape):
                raise make_error(f"prepare sliced dim {d} of operand {k}, which has rank {len(shape)}")
            if d >= 0 and _static(shape[d]) != DYNAMIC:
                sizes.add(shape[d])
        if len(sizes) > 1:
            raise make_error(f"parallel dim {p} slices dims of different sizes {sorted(sizes)}")
    return Split(n, dims)


class NativeBinding:
    """The C structs of one op bound to a native kernel, prepared."""

    def __init__(self, site, library: KernelLibrary, kernel: Kernel, site_struct: Site, keep: list,
                 split: "Split | None" = None):
        self.site = site
        # How the op may be split; None for a version-1 library (runs whole).
        self.split = split
        self.library = library
        self.kernel = kernel
        self.struct = site_struct
        self.keep = keep
        self.address = ctypes.addressof(site_struct)
        self.trampoline = trampoline(len(site.input_types) + len(site.output_types))
        desc = kernel.description.decode() if kernel.description else kernel.operator_name.decode()
        self.description = f"native ({self.library.path.name}: {desc})"

    @property
    def error_message(self) -> str:
        return ctypes.string_at(self.struct.call.error).decode(errors="replace") or "(no message)"

    def release(self) -> None:
        """Call the kernel's release (once)."""
        if self.kernel.release and self.struct is not None:
            _RELEASE(self.kernel.release)(ctypes.byref(self.struct.call))
        self.struct = None


def _types(element_types: Sequence[str], shapes: Sequence[tuple[int | None, ...]], keep: list):
    """tck_tensor_type entries; a dim the site knows only at run time (None,
    or MLIR's negative dynamic size) is TCK_DYNAMIC (CONTRACT.md 11.1)."""
    array = (TensorType * max(len(shapes), 1))()
    for entry, t, shape in zip(array, element_types, shapes):
        dims = (ctypes.c_int64 * max(len(shape), 1))(*[_static(d) for d in shape])
        keep.append(dims)
        entry.element_type, entry.rank, entry.shape = ELEMENT_TYPES[t], len(shape), dims
    return array


def _static(d: int | None) -> int:
    return DYNAMIC if d is None or d < 0 else d


def describe_call(c: Call, site, input_types: Sequence[str], keep: list) -> None:
    """Fill what every kernel of `site` reads of its tck_call: the ABI
    version and size, the op's names, attributes and location, and its
    operands' element types (`input_types`, as the kernel is to see them)
    and shapes. The C data it points to is appended to `keep`, which must
    live as long as `c`."""
    strings = [x.encode() for x in (site.domain_name, site.operator_name, site.implementation_attrs, site.location)]
    inputs = _types(input_types, site.input_shapes, keep)
    outputs = _types(site.output_types, site.output_shapes, keep)
    keep += [strings, inputs, outputs]
    c.abi_version, c.struct_size = ABI_VERSION, ctypes.sizeof(Call)
    c.domain_name, c.operator_name, c.implementation_attrs, c.location = strings
    c.num_inputs, c.num_outputs = len(site.input_types), len(site.output_types)
    c.inputs, c.outputs = inputs, outputs


def bind(site, decoded, status: ProgramStatus, make_error, builtin: bool = True) -> NativeBinding | None:
    """The first kernel library's kernel that takes `site` (prepared), or None.

    `decoded` is the op's DecodedCall (None outside the torch_mlir domain).
    A kernel's prepare may decline (the next library is asked, then Python);
    any other failure raises `make_error(message)` (a CompileError naming the op).
    `builtin=False` asks the user's libraries only (runtime.load's kernels="user").
    """
    types = list(site.input_types) + list(site.output_types)
    if any(t not in ELEMENT_TYPES for t in types):
        return None
    carried = getattr(decoded, "operand_dtypes", {})
    if torch.int64 in carried.values():
        return None  # an int64 operand carried as int32 (CONTRACT.md 3.5): the kernel would read other values
    # A float32 constant carried as int32 of the same bits (CONTRACT.md §18.4) is f32 to the kernel.
    input_types = [("f32" if carried.get(i) == torch.float32 else t) for i, t in enumerate(site.input_types)]
    element_type = input_types[0] if input_types else (site.output_types[0] if site.output_types else None)
    if element_type is None:
        return None
    libraries = [(lib, k) for lib in kernel_libraries(builtin)
                 if (k := lib.lookup(site.domain_name, site.operator_name, element_type)) is not None]
    if not libraries:
        return None
    if len(types) > max_arity():
        return None  # too many operands for a trampoline: the Python kernel serves
    named = list(decoded.arguments.items()) if decoded is not None else _json_attrs(site.implementation_attrs)
    for library, kernel in libraries:
        keep: list[Any] = [library]
        attrs = _Attrs(named)
        keep.append(attrs)
        error = ctypes.create_string_buffer(_ERROR_CAPACITY)
        keep.append(error)
        s = Site()
        c = s.call
        describe_call(c, site, input_types, keep)
        c.num_attrs, c.attrs = attrs.count, attrs.array
        c.error, c.error_capacity = ctypes.addressof(error), _ERROR_CAPACITY
        c.abi_version = library.version  # a version-1 kernel sees the call it was built for
        if library.version >= 2:
            split_dims = (ctypes.c_int32 * max(len(types) * MAX_PARALLEL, 1))(*([-1] * (len(types) * MAX_PARALLEL)))
            keep.append(split_dims)
            c.split.num_operands, c.split.dims = len(types), split_dims
        s.run = kernel.run
        s.program = ctypes.pointer(status)
        s.index = site.index
        code = _PREPARE(kernel.prepare)(ctypes.byref(c)) if kernel.prepare else OK
        if code == DECLINE:
            continue
        binding = NativeBinding(site, library, kernel, s, keep)
        if code != OK:
            raise make_error(f"native kernel in {library.path.name} refused it: {status_name(code)}: "
                             f"{binding.error_message}")
        if library.version >= 2:
            try:
                binding.split = _read_split(c, site, make_error)
            except BaseException:
                binding.release()
                raise
        return binding
    return None
