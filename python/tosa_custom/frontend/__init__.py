"""`compile()`: torch.export capture, FX import, then the pipelines of the
layers below (tunnel, TOSA checks, weights) as recorded pass text. Loads no
runtime: a program is run by `tosa_custom.runtime`, which imports nothing
from here."""
