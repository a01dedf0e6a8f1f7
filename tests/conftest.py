"""Shared test settings. Hypothesis runs a small, derandomized budget by default (CI); set
GDL_HYPOTHESIS_PROFILE=fuzz for a long run on demand."""

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", max_examples=5000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("GDL_HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
DATA = Path(__file__).resolve().parent / "data"
