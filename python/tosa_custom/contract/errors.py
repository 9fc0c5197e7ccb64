"""The contract's one error type, in a module of its own so that every part
of the contract (the encoding, shape expressions) raises it without importing
the others."""

__all__ = ["ContractError"]


class ContractError(ValueError):
    """An `implementation_attrs` (or a call) that the contract cannot represent."""
