"""Where the tests find real data: all of it inside the repository.

Published MTEB result files (the numbers HUME published) ship in ``examples/mteb_results``; the
small real source datasets (STS Benchmark, SICK, STS12, SIB-200) in ``tests/data/source``, their
origins and licences in ``tests/data/SOURCES.md``. A lone clone runs every test with nothing
beside it (``tests/test_repo_confined.py`` checks that no test or benchmark reads outside).
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
MTEB_RESULTS = REPO_ROOT / "examples" / "mteb_results"
SOURCE_DATA = REPO_ROOT / "tests" / "data" / "source"
