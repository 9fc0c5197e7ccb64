"""The runtime target's families that compile a PyTorch function and run it:
one home for compiling in a case's mode and what a failure there means."""

from __future__ import annotations

from ..outcome import Defect, Outcome, clean_or_defect

__all__ = ["run_compiled"]


def run_compiled(fn, args: tuple, mode: str, what: str, *, stock_may_refuse: bool = False):
    """`fn(*args)` compiled with compile() in `mode` ("stock" or "auto") and
    run by the reference runtime. Any failure is a defect (a supported op of
    a supported type), except that with `stock_may_refuse` stock mode may
    refuse with a clean CompileError: then the `Outcome(CLEAN)` is returned
    instead of the results. Auto mode must compile: it tunnels what TOSA
    cannot take."""
    import torch

    import tosa_custom
    from tosa_custom import runtime

    class Model(torch.nn.Module):
        def forward(self, *xs):
            return fn(*xs)

    try:
        compiled = tosa_custom.compile(Model().eval(), args, output_type="tosa",
                                       backend_legal_ops="auto" if mode == "auto" else None)
    except tosa_custom.CompileError as e:
        if mode == "auto" or not stock_may_refuse:
            raise Defect("exception", f"{what}: {type(e).__name__}: {e}") from e
        return clean_or_defect(e, (tosa_custom.CompileError,))
    except Exception as e:
        raise Defect("exception", f"{what}: {type(e).__name__}: {e}") from e
    try:
        return runtime.load(compiled)(*args)
    except Exception as e:
        raise Defect("exception", f"{what}: {type(e).__name__}: {e}") from e
