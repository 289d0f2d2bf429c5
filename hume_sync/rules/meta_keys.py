"""Store ``meta`` keys a command writes and the report reads (the keys of model scores and facts
are in :mod:`hume_sync.rules.model_scores`, with their reader)."""

#: The store ``meta`` key of the last pull's time (written by ``pull``, shown by the dashboard).
PULLED_AT = "pulled_at"
