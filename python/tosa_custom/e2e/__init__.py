"""The e2e suite's machinery: case registry, runner and coverage audit."""

from .modules import Fn, randn_inputs
from .registry import COMPARISONS, MODES, NAME_PATTERN, Case, case, cases, get_case, xfail_except

__all__ = ["Fn", "randn_inputs", "COMPARISONS", "MODES", "NAME_PATTERN", "Case", "case", "cases", "get_case",
           "xfail_except"]
