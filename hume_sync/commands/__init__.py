"""The study commands, one module per step: setup, pull, status, predict (models and LLMs),
close and reveal, the demo."""
