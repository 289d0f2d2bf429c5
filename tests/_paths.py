"""Where the tests find the shared real data: ``../shared/data`` beside the repository."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
MTEB_RESULTS = SHARED_DATA / "mteb_results"
SOURCE_DATA = SHARED_DATA / "source"
