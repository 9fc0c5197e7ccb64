"""The e2e suite's machinery: case registry, runner and coverage audit."""

from .registry import COMPARISONS, MODES, NAME_PATTERN, Case, case, cases, get_case

__all__ = ["COMPARISONS", "MODES", "NAME_PATTERN", "Case", "case", "cases", "get_case"]
