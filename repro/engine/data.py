"""Per-client data for the vectorised engine: all clients' samples in one tensor, with offsets.

Client ``n`` owns rows ``offsets[n] .. offsets[n] + sizes[n] - 1`` of ``x``/``y``. A minibatch for
all clients is one gather ``x[offsets[:, None] + positions]`` with ``positions`` ``[N, B]``, so
uneven client sizes cost no padding memory; ``padded()`` gives the ``[N, M_max, ...]`` view with a
mask when a caller wants it.

Example
-------
>>> import numpy as np, torch
>>> x = np.random.rand(10, 28, 28).astype(np.float32); y = np.arange(10) % 3
>>> data = ClientData.from_indices(x, y, [np.array([0, 1, 2]), np.array([5, 6])])
>>> data.sizes.tolist(), data.num_clients
([3, 2], 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


def normalize_images(x: np.ndarray | torch.Tensor) -> torch.Tensor:
    """uint8 images -> float32 in [-1, 1]: (x/255 - 0.5)/0.5 (TsingZ0/PFLlib convention).
    ``[M, H, W]`` stays, ``[M, H, W, C]`` becomes channels-first ``[M, C, H, W]``."""
    t = torch.as_tensor(np.asarray(x)).float().div_(255.0).sub_(0.5).div_(0.5)
    if t.dim() == 4 and t.shape[-1] in (1, 3):
        t = t.permute(0, 3, 1, 2).contiguous()
    return t


@dataclass
class ClientData:
    """Samples of N clients stored back to back.

    ``x`` ``[M_total, ...]`` float, ``y`` ``[M_total]`` int64, ``offsets``/``sizes`` ``[N]`` int64 (on
    the same device as ``x``). Every client must have at least one sample.
    """

    x: torch.Tensor
    y: torch.Tensor
    offsets: torch.Tensor
    sizes: torch.Tensor

    def __post_init__(self):
        if self.sizes.dim() != 1 or self.offsets.shape != self.sizes.shape:
            raise ValueError(f"offsets {tuple(self.offsets.shape)} and sizes {tuple(self.sizes.shape)} must be equal 1-D shapes")
        if len(self.sizes) and int(self.sizes.min()) < 1:
            bad = (self.sizes < 1).nonzero().flatten().tolist()
            raise ValueError(f"every client needs >= 1 sample; clients {bad} have none")
        if self.x.shape[0] != self.y.shape[0]:
            raise ValueError(f"x has {self.x.shape[0]} rows but y has {self.y.shape[0]}")

    # ---- construction ---------------------------------------------------------------------------
    @classmethod
    def from_indices(cls, x, y, indices_per_client, device="cpu", transform=None) -> "ClientData":
        """Gather each client's samples ``x[idx]`` (numpy or torch) in client order.

        ``transform`` (e.g. ``normalize_images``) is applied to the gathered numpy array; by default
        uint8 inputs are normalised with ``normalize_images`` and float inputs are kept.
        """
        idx = [np.asarray(i, dtype=np.int64) for i in indices_per_client]
        sizes = np.array([len(i) for i in idx], dtype=np.int64)
        allidx = np.concatenate(idx) if idx else np.zeros(0, np.int64)
        xs = np.asarray(x)[allidx]
        if transform is None:
            transform = normalize_images if xs.dtype == np.uint8 else (lambda a: torch.as_tensor(a).float())
        xt = transform(xs)
        yt = torch.as_tensor(np.asarray(y)[allidx], dtype=torch.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(sizes) else sizes
        return cls(xt.to(device), yt.to(device), torch.as_tensor(offsets, device=device), torch.as_tensor(sizes, device=device))

    @classmethod
    def from_client_arrays(cls, xs: list, ys: list, device="cpu") -> "ClientData":
        """From per-client arrays (already float / normalised as wanted)."""
        x = torch.cat([torch.as_tensor(np.asarray(a)).float() for a in xs])
        y = torch.cat([torch.as_tensor(np.asarray(b), dtype=torch.int64) for b in ys])
        sizes = torch.tensor([len(b) for b in ys], dtype=torch.int64)
        offsets = torch.cumsum(sizes, 0) - sizes
        return cls(x.to(device), y.to(device), offsets.to(device), sizes.to(device))

    # ---- access ---------------------------------------------------------------------------------
    @property
    def num_clients(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def max_size(self) -> int:
        return int(self.sizes.max())

    @property
    def device(self):
        return self.x.device

    def to(self, device) -> "ClientData":
        return ClientData(self.x.to(device), self.y.to(device), self.offsets.to(device), self.sizes.to(device))

    def gather(self, clients: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Samples ``positions`` ``[R, B]`` (within each client, < its size) of clients ``clients`` ``[R]``
        -> ``x`` ``[R, B, ...]``, ``y`` ``[R, B]``."""
        rows = self.offsets[clients].unsqueeze(1) + positions
        return self.take(rows)

    def take(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Samples at absolute row indices ``rows`` (any shape S) -> ``x`` ``[*S, ...]``, ``y`` ``[*S]``
        (``index_select``: several times faster than advanced indexing on CPU)."""
        flat = rows.reshape(-1)
        x = torch.index_select(self.x, 0, flat).view(*rows.shape, *self.x.shape[1:])
        return x, torch.index_select(self.y, 0, flat).view(rows.shape)

    def subset(self, clients) -> "ClientData":
        """The data of some clients only (a copy), in the order given."""
        clients = torch.as_tensor(clients, dtype=torch.int64)
        idx = torch.cat([torch.arange(int(self.offsets[c]), int(self.offsets[c] + self.sizes[c])) for c in clients.tolist()])
        idx = idx.to(self.device)
        sizes = self.sizes[clients.to(self.device)]
        return ClientData(self.x[idx], self.y[idx], torch.cumsum(sizes, 0) - sizes, sizes)

    def padded(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``x`` ``[N, M_max, ...]``, ``y`` ``[N, M_max]``, ``mask`` ``[N, M_max]`` (padding repeats sample 0)."""
        pos = torch.arange(self.max_size, device=self.device).unsqueeze(0).expand(self.num_clients, -1)
        mask = pos < self.sizes.unsqueeze(1)
        x, y = self.gather(torch.arange(self.num_clients, device=self.device), torch.where(mask, pos, 0))
        return x, y, mask
