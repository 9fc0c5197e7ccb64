"""Fuzzing: generated inputs for the pass, the opt tool, `decode()` and the runtime.

Every input must give a correct result or a clean error (see `outcome.py` for
the exact definitions); anything else is a defect: a crash (signal, abort), a
hang (killed by the per-case timeout), an unexpected exception type, or a
silent wrong answer (a result that differs from the target's oracle).

    python -m fuzz --cases 1000 [--target decode,opt] [--seed 0] [--timeout 20]

Cases run in a long-lived worker process (importing torch costs seconds, so
not one process per case); a supervisor restarts the worker when it dies or
hangs and saves that case's reproducer (see `supervisor.py`).
"""
