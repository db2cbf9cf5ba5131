"""Puts the build tree's cclx_torch first on sys.path (CCLX_TORCH_PATH, else build/python)."""

import os
import pathlib
import sys

_default = pathlib.Path(__file__).resolve().parents[2] / "build" / "python"
sys.path.insert(0, os.environ.get("CCLX_TORCH_PATH", str(_default)))
