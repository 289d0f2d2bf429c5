"""The study model: its spec (YAML), its presets, its sources, how instances are sampled and
in which order models see them."""
