"""The workload suite (README.md). Collected on its own: run it with
tests/workloads/run.sh, or `ctest -L workloads`."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_report_header(config):
    who = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}"
    return f"workloads: caller {who}, C driver {os.environ.get('PATHGATE_WORKLOADS_DRIVER')}"
