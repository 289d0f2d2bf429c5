"""Where the tests find real data.

Published MTEB result files (the numbers HUME published) ship with the repository in
``examples/mteb_results``, so the regression tests against them always run; the larger source
datasets stay in ``../shared/data`` beside the repository.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
MTEB_RESULTS = REPO_ROOT / "examples" / "mteb_results"
SOURCE_DATA = SHARED_DATA / "source"
