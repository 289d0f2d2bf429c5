"""Rules the commands and the report share: when an answer is late, where model scores are kept,
how a file is named, how a duration is shown.

Below :mod:`hume_sync.workflow` and :mod:`hume_sync.report` in the import layers
(``tests/test_import_graph.py``), so the report reads what a command wrote without importing it.
"""
