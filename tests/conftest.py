"""Property tests run the same examples on every run (the issue asks for deterministic tests); set
HYPOTHESIS_PROFILE=explore to let hypothesis search afresh, as a bug hunt."""

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
