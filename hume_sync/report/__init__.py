"""The score report: gathered from the store, computed by :mod:`scoring`, written as Markdown,
HTML, CSV, JSON and MTEB result files; and the leaderboard of MTEB result folders."""
