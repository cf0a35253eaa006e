"""What ``repro data status`` and ``repro data fetch`` report for each dataset."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from repro.data import download as dl
from repro.data.errors import DatasetUnavailableError
from repro.data.registry import NAMES, get_spec


@dataclass
class DatasetStatus:
    dataset: str
    available: bool
    where: str | None  # cache | mirror | system | download | user
    path: str | None
    verified: bool
    size: str
    reason: str | None  # why not available
    instructions: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


def _du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def dataset_status(name: str, download: bool = False) -> DatasetStatus:
    """Load ``name`` (from the cache, a mirror or system copy; downloading only if ``download``).

    When the dataset is missing and ``download`` is False, the official URL is probed (HEAD, short
    timeout) so the reason says whether a download would work: "download failed: offline".
    """
    from repro.data.loaders import load_dataset
    from repro.data.sources import raw_dir

    spec = get_spec(name)
    try:
        ds = load_dataset(spec.name, download=download, progress=download)
    except DatasetUnavailableError as e:
        reason = e.reason
        if not download and spec.urls and reason in ("not found", "download failed: offline"):
            first = next(iter(spec.files))
            stored = first + ".gz" if spec.kind == "idx" else first
            probe = dl.probe(spec.urls[0] + stored)
            reason = f"download failed: {probe}" if probe else f"not downloaded yet (run `repro data fetch {spec.name}`)"
        text = str(e)
        how = text[text.index("How to provide it:"):] if "How to provide it:" in text else text
        return DatasetStatus(spec.name, False, None, None, False, "-", reason, how)
    n = f"{len(ds.train_y)}/{len(ds.test_y)} samples"
    mb = _du(raw_dir(spec.name)) / 1e6
    where = ds.source.where
    if where == "cache" and ds.source.origin:
        firsts = {o.split(":", 1)[0] for k, o in ds.source.origin.items() if ":" in o and k not in ("format", "folder")}
        if firsts and firsts != {"cache"}:
            where = f"cache (from {'/'.join(sorted(firsts))})"
    return DatasetStatus(spec.name, True, where, ds.source.path, ds.source.verified, f"{n}, {mb:.1f} MB cached", None)


def status_table(rows: list[DatasetStatus]) -> str:
    head = ("dataset", "where found", "verified", "size")
    body = []
    for r in rows:
        if r.available:
            body.append((r.dataset, f"{r.where}: {r.path}", "yes" if r.verified else "no (user data, no reference checksum)", r.size))
        else:
            body.append((r.dataset, f"not available ({r.reason})", "-", "-"))
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    out = [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]
    for r in rows:
        if not r.available and r.instructions:
            out += ["", f"{r.dataset}: {r.instructions}"]
    return "\n".join(out)


def all_status(download: bool = False) -> list[DatasetStatus]:
    return [dataset_status(n, download=download) for n in NAMES]
