"""Where an in-process model runs: the GPU when there is one, else the CPU, and a batch size.

Why a module: the device decides the batch size (a GPU is only busy with many texts per step,
a CPU gains nothing from more than mteb's default), and both must appear in a score's
``method`` so a reader knows how a number was made. The choice is asked of torch once per load;
tests patch ``torch.cuda.is_available`` (a GPU is a fault they cannot cause).
"""

from __future__ import annotations

from dataclasses import dataclass

#: mteb.evaluate's default encode batch size, kept on the CPU (more gains nothing there).
CPU_BATCH_SIZE = 32
#: On a GPU: enough texts per step to keep it busy; a 7B model at 512 tokens still fits in
#: 40 GB at this size in float16.
GPU_BATCH_SIZE = 128
#: Below this much GPU memory (GiB) the GPU batch is halved (small or shared cards).
SMALL_GPU_GIB = 16

__all__ = ["CPU_BATCH_SIZE", "GPU_BATCH_SIZE", "SMALL_GPU_GIB", "DeviceChoice", "choose_device"]


@dataclass(frozen=True)
class DeviceChoice:
    """A device for torch (``"cuda"``, ``"mps"``, ``"cpu"``), a batch size, and why.

    Args:
        device: the torch device name, ``"cuda"``, ``"cuda:1"``, ``"mps"`` or ``"cpu"``.
        batch_size: how many texts the model encodes per step on it.
        why: the device as a score's ``method`` names it (with the card's name and memory).
    """

    device: str
    batch_size: int
    why: str

    def describe(self) -> str:
        """What a score's ``method`` says: ``"cuda (NVIDIA H200, 139 GiB), batch 128"``.

        Returns:
            The device with the reason it was chosen, and the batch size.
        """
        return f"{self.why}, batch {self.batch_size}"


def choose_device(device: str | None = None, batch_size: int | None = None) -> DeviceChoice:
    """Choose the device to run on and the batch size for it.

    Args:
        device: the torch device to use; None picks a GPU (CUDA, then MPS) when torch sees one,
            else the CPU (also the CPU when torch is not installed: only remote models run then).
        batch_size: the batch size to use; None takes the device's default (halved on a GPU
            with less than :data:`SMALL_GPU_GIB` GiB).

    Returns:
        The device, its batch size, and how a score's ``method`` names them.
    """
    try:
        import torch
    except ImportError:  # no torch: only remote models can run, and they ignore this
        return DeviceChoice("cpu", batch_size or CPU_BATCH_SIZE, "cpu")
    if device is None:
        if torch.cuda.is_available():
            device = "cuda"
        elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            device = "mps"
        else:
            device = "cpu"
    if device.startswith("cuda"):
        index = torch.device(device).index or 0
        props = torch.cuda.get_device_properties(index)
        gib = props.total_memory / 2**30
        size = GPU_BATCH_SIZE if gib >= SMALL_GPU_GIB else GPU_BATCH_SIZE // 2
        return DeviceChoice(device, batch_size or size, f"{device} ({props.name}, {gib:.0f} GiB)")
    if device == "mps":
        return DeviceChoice(device, batch_size or GPU_BATCH_SIZE // 2, "mps")
    return DeviceChoice(device, batch_size or CPU_BATCH_SIZE, device)
