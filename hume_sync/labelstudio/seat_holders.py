"""Which annotator slots hold each subset's seats, once people leave.

A slot that has a project for a subset holds that seat. A retired slot (``hume-sync annotators
remove``) keeps the seats it finished, where every instance has a valid answer of theirs (those
answers stay in the store and count), and gives up every other one: that seat goes to the next
annotator who speaks the language (``annotators.plan_seats``), who answers the whole subset in a
project of their own. A seat is never split between two people: a human's score on a subset is
one person's answers. The retired slot's partial answers still stay in the store and count.
"""

from __future__ import annotations

from hume_sync.store import AnnotatorRow, Store


def finished_subsets(store: Store, slot: int, subsets: list[str]) -> set[str]:
    """Those of ``subsets`` where ``slot`` has a valid answer for every instance (as pulled)."""
    out = set()
    for key in subsets:
        answered = {
            a.hume_id for a in store.annotations(key) if a.slot == slot and a.status == "valid"
        }
        if len(answered) >= store.instance_count(key):
            out.add(key)
    return out


def seat_holders(
    store: Store, annotators: list[AnnotatorRow] | None = None
) -> dict[str, list[int]]:
    """subset → the slots that hold one of its seats (see the module docstring), slot order."""
    retired = {a.slot for a in annotators or store.annotators() if a.retired_at is not None}
    projects = store.slot_projects()
    kept: dict[int, set[str]] = {
        slot: finished_subsets(store, slot, [p.subset_key for p in projects if p.slot == slot])
        for slot in retired
    }
    taken: dict[str, list[int]] = {}
    for p in projects:
        if p.slot not in retired or p.subset_key in kept[p.slot]:
            taken.setdefault(p.subset_key, []).append(p.slot)
    return taken
