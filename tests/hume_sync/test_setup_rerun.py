"""How a setup rerun tells, without reading a project's tasks, that they are all there: the
runs of consecutive recorded task ids it counts (one request each)."""

from __future__ import annotations

import pytest

from hume_sync.workflow.setup import _id_runs


@pytest.mark.parametrize(
    ("ids", "runs"),
    [
        ([], []),
        ([7], [(7, 7)]),
        ([3, 1, 2], [(1, 3)]),  # one import: consecutive ids, in any order
        ([1, 2, 4, 5, 9], [(1, 2), (4, 5), (9, 9)]),
        ([5, 5, 6], [(5, 6)]),  # a repeated id counts once
    ],
)
def test_id_runs_are_the_runs_of_consecutive_ids(ids, runs):
    assert _id_runs(ids) == runs
