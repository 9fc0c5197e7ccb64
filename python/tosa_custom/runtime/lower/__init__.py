"""The passes from TOSA with tosa.custom ops to IR the ExecutionEngine runs,
and the pipeline that orders them (`lowering`): fixes of TOSA that
tosa-to-linalg lowers wrongly, the outlining of custom ops as kernel calls,
tiling and vectorization, `?` dims' sizes, masks and remainders, math as
polynomials, results into offered buffers, functions cut to a bounded size.

Each is a registered pass (`tosa-custom-*`), registered when its module is
imported. It sits on the kernels (the TOSA ops run as kernels are outlined
here) and the CPU facts it plans for; it knows no Program.
"""

__all__ = ["broadcasts", "constants", "copies", "exact_sizes", "extreme_inits", "half_rounding", "integer_contractions",
           "loop_hints", "lowering", "masks", "outline", "polymath", "prologues", "remainders", "result_buffers",
           "shape_ops", "split_functions", "tiling", "tosa_fixes", "transform_scripts"]
