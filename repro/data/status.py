"""What ``repro data status`` and ``repro data fetch`` report for each dataset, and the workflow's
dataset status files.

The workflow records each dataset's availability in ``data/status/<name>.json`` (rule
``dataset_status``: ``repro data fetch NAME --allow-missing --status-json PATH``); every run that
needs the dataset takes that file as an input. Data availability is thereby an input of the runs:

* the file holds only the *outcome* (available or not, and which content: :attr:`DatasetStatus.content_id`),
  so it changes exactly when the runs' input changes;
* beside it, ``.<name>.json.places`` holds a fingerprint of every place the lookup searches (the
  project cache, the mirror folders, system folders, user folders; names, sizes and times of the
  files there), taken after the fetch;
* when the workflow loads, :func:`sync_status_file` compares that fingerprint with the places now. If
  they differ (a file was added, fixed, damaged or removed; another mirror was configured), the
  outcome is checked again (read-only, without network access); if it differs from the recorded one,
  the status file is rewritten with it, so Snakemake sees a changed input and reruns exactly the runs
  that need this dataset (and the figures and claims built on them). Otherwise the file is left as it
  is and nothing reruns (a cache filled from the mirror changes the places, not the outcome).

A place this user may not read (a mirror folder without read permission) is skipped, never raised: a
dataset with no copy it may read is unavailable with the reason ``permission denied on <path>`` (in the
status file, ``repro data status`` and the runs' panels), and the fingerprint records the place as
``permission denied``, so giving read access back is noticed like any other fix.

Going online does not change any place: after an offline build, ``repro data fetch NAME`` (which
downloads into the cache, a place) is what makes the next workflow run pick the data up.
"""

from __future__ import annotations

import hashlib
import json
import os
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
    content_id: str | None = None  # which content is available (same id = same arrays)
    checksums: dict | None = None  # file -> "algorithm:hex" verified (user data: none)
    checksum_source: dict | None = None  # file -> "reference" or the variable that accepted the user's copy

    def to_json(self) -> dict:
        return asdict(self)

    def record(self) -> dict:
        """What the workflow's status file holds (the outcome; no sizes, times or instructions)."""
        rec = {"dataset": self.dataset, "available": self.available, "content_id": self.content_id,
               "reason": self.reason, "where": self.where, "path": self.path, "verified": self.verified}
        if self.available and self.checksums:
            rec.update(checksums=self.checksums, checksum_source=self.checksum_source)
        return rec


def _checksums(spec) -> dict:
    """``checksums`` and ``checksum_source`` of a verified dataset (the accepted ones where the user set them)."""
    return {"checksums": {f: f"{a}:{h}" for f, (a, h) in spec.files.items()},
            "checksum_source": {f: spec.checksum_source.get(f, "reference") for f in spec.files}}


def _du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def dataset_status(name: str, download: bool = False, probe: bool = True) -> DatasetStatus:
    """Load ``name`` (from the cache, a mirror or system copy; downloading only if ``download``).

    When the dataset is missing, ``download`` is False and ``probe`` is True, the official URL is
    probed (HEAD, short timeout) so the reason says whether a download would work: "download failed:
    offline". Never raises for a dataset that cannot be had (corrupt, missing, unreadable): the
    status says why.
    """
    from repro.data.loaders import load_dataset
    from repro.data.sources import raw_dir

    spec = get_spec(name)
    try:
        ds = load_dataset(spec.name, download=download, progress=download)
    except DatasetUnavailableError as e:
        reason = e.reason
        if probe and not download and spec.urls and reason in ("not found", "download failed: offline"):
            first = next(iter(spec.files))
            stored = first + ".gz" if spec.kind == "idx" else first
            answer = dl.probe(spec.urls[0] + stored)
            reason = f"download failed: {answer}" if answer else f"not downloaded yet (run `repro data fetch {spec.name}`)"
        text = str(e)
        start = next((text.index(h) for h in ("Corrupt copies", "How to provide it:") if h in text), 0)
        how = text[start:]  # the corrupt copies (each file, both checksums, where it went) and how to provide it
        return DatasetStatus(spec.name, False, None, None, False, "-", reason, how)
    n = f"{len(ds.train_y)}/{len(ds.test_y)} samples"
    mb = _du(raw_dir(spec.name)) / 1e6
    where = ds.source.where
    if where == "cache" and ds.source.origin:
        firsts = {o.split(":", 1)[0] for k, o in ds.source.origin.items() if ":" in o and k not in ("format", "folder")}
        if firsts and firsts != {"cache"}:
            where = f"cache (from {'/'.join(sorted(firsts))})"
    return DatasetStatus(spec.name, True, where, ds.source.path, ds.source.verified, f"{n}, {mb:.1f} MB cached", None,
                         content_id=ds.source.content_id, **(_checksums(spec) if spec.files else {}))


def status_table(rows: list[DatasetStatus]) -> str:
    head = ("dataset", "where found", "verified", "size")
    body = []
    for r in rows:
        if r.available:
            accepted = sorted({v for v in (r.checksum_source or {}).values() if v != "reference"})
            verified = f"yes (accepted checksum: {', '.join(accepted)})" if accepted else "yes"
            body.append((r.dataset, f"{r.where}: {r.path}", verified if r.verified else "no (user data, no reference checksum)", r.size))
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


def readonly_status(name: str, probe: bool = True) -> DatasetStatus:
    """What ``repro data status`` shows for ``name``. Nothing is copied into the cache, nothing is
    decoded and nothing is downloaded; the one change it makes is the one every lookup makes: a copy in
    the project's own cache that fails its checksum is renamed to ``*.corrupt`` (a mirror or system
    copy is only reported). A verified dataset is found in the first place that holds a copy matching
    each reference checksum (an intact decoded cache counts as the cache); the size is that of the
    verified source files where they lie. A missing dataset may cost one HEAD request to its official
    URL (``probe``) so the reason says whether ``repro data fetch`` could download it."""
    from repro.data.integrity import checked_digest, move_aside
    from repro.data.loaders import content_id, decoded_cache_intact
    from repro.data.sources import (CorruptFile, _candidates, _describe_places, _how_to_provide, corrupt_reason,
                                    denied_reason, places, raw_dir, readable_file)

    spec = get_spec(name)
    if spec.kind == "user":
        st = local_status(spec.name)
        if not st.available:
            from repro.data.femnist import load_femnist

            try:  # the FEMNIST loader's message says where it looked and how to provide it (it copies nothing)
                load_femnist()
            except DatasetUnavailableError as e:
                st.reason, st.instructions = e.reason, str(e)
        return st
    cid = content_id({f: f"{a}:{h}" for f, (a, h) in spec.files.items()})
    if decoded_cache_intact(spec):
        return DatasetStatus(spec.name, True, "cache", str(raw_dir(spec.name)), True,
                             f"{_du(raw_dir(spec.name)) / 1e6:.1f} MB in the cache", None, content_id=cid, **_checksums(spec))
    plist = places(spec)
    found, corrupt, denied = {}, [], []
    for file, (algorithm, expected) in spec.files.items():
        for place in plist:
            for cand in _candidates(spec, file):
                path = place.path / cand
                if not readable_file(path, denied):  # missing, or this user may not read it (noted in denied)
                    continue
                actual = checked_digest(path, algorithm, decompress=spec.kind == "idx" and cand.endswith(".gz"))
                if actual == expected:
                    found[file] = (place.kind, path)
                    break
                moved = move_aside(path) if place.kind == "cache" else None
                corrupt.append(CorruptFile(str(path), algorithm, expected, actual, str(moved) if moved else None,
                                           spec.checksum_source.get(file, "reference")))
            if file in found:
                break
    if len(found) == len(spec.files):
        kinds = sorted({k for k, _ in found.values()})
        dirs = sorted({str(p.parent) for _, p in found.values()})
        size = sum(p.stat().st_size for _, p in found.values())
        note = "" if kinds == ["cache"] else "; not copied into the cache (`repro data fetch` copies it there)"
        return DatasetStatus(spec.name, True, "/".join(kinds), "; ".join(dirs), True,
                             f"{size / 1e6:.1f} MB of source files{note}", None, content_id=cid, **_checksums(spec))
    offline = False
    if corrupt:
        reason = corrupt_reason(corrupt)
    elif denied:
        reason = denied_reason(denied)
    elif probe and spec.urls:
        first = next(iter(spec.files))
        answer = dl.probe(spec.urls[0] + (first + ".gz" if spec.kind == "idx" else first))
        offline = answer == "offline"
        reason = f"download failed: {answer}" if answer else f"not downloaded yet (run `repro data fetch {spec.name}`)"
    else:
        reason = "not found"
    missing = [f for f in spec.files if f not in found]
    lines = ["Searched:"] + [f"  - {line}" for line in _describe_places(spec, plist, download=False)]
    if corrupt:
        lines += ["Corrupt copies (never used):"] + [f"  - {c.describe()}" for c in corrupt]
    lines += _how_to_provide(spec, missing, offline, corrupt=corrupt)
    return DatasetStatus(spec.name, False, None, None, False, "-", reason, "\n".join(lines))


def all_readonly_status(probe: bool = True) -> list[DatasetStatus]:
    """:func:`readonly_status` of every registered dataset (``repro data status``)."""
    return [readonly_status(n, probe=probe) for n in NAMES]


# ---- the workflow's status files -------------------------------------------------------------------

def _places(name: str) -> list[Path]:
    from repro.data.femnist import candidate_dirs
    from repro.data.sources import places, raw_dir

    spec = get_spec(name)
    if spec.kind == "user":
        return [raw_dir(spec.name)] + [d for _, d in candidate_dirs()]
    return [p.path for p in places(spec)]


def places_fingerprint(name: str) -> str:
    """Digest of what the lookup of ``name`` would search: each place's path and the names, sizes and
    modification times of the files in it (two levels deep; hidden temporary files left out), the
    mirror setting and whether downloads are disabled. Costs a few ``stat`` calls."""
    from repro.data.sources import mirror_roots

    spec = get_spec(name)  # with the user's overrides: accepting a checksum or a mirror URL is noticed
    lines = [f"mirrors={os.pathsep.join(map(str, mirror_roots()))}", f"offline={dl.downloads_disabled()}",
             f"checksums={sorted(spec.files.items())}", f"urls={spec.urls}"]
    for place in _places(name):
        try:
            if not place.is_dir():
                lines.append(f"{place}: absent")
                continue
            os.scandir(place).close()
        except PermissionError:  # recorded: giving read access later changes the fingerprint
            lines.append(f"{place}: permission denied")
            continue
        for f in sorted([*place.glob("*"), *place.glob("*/*")]):
            if f.name.startswith(".") or not f.is_file():
                continue
            st = f.stat()
            lines.append(f"{f}|{st.st_size}|{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:20]


def local_status(name: str) -> DatasetStatus:
    """Status of ``name`` from what is on this machine now: read-only (nothing copied, nothing moved
    aside) and no network. Verified datasets: the decoded cache if intact, else every source file
    verified in some place (hashing only what is needed). User data (FEMNIST): files of a known
    format in a user folder."""
    from repro.data.integrity import checked_digest
    from repro.data.loaders import content_id, decoded_cache_intact
    from repro.data.sources import candidate_paths, denied_reason, raw_dir

    spec = get_spec(name)
    denied: list[str] = []  # places this user may not read: the dataset is unavailable, and says why
    missing = DatasetStatus(spec.name, False, None, None, False, "-",
                            f"not found on this machine (`repro data fetch {spec.name}` says where it was looked for)")
    if spec.kind == "user":
        from repro.data.femnist import find_user_files, user_content_id

        found = find_user_files(denied=denied)
        if not found:
            if denied:
                missing.reason = denied_reason(denied)
            return missing
        return DatasetStatus(spec.name, True, "user", str(found[0]), False, "-", None, content_id=user_content_id(found[1]))
    cid = content_id({f: f"{a}:{h}" for f, (a, h) in spec.files.items()})
    if decoded_cache_intact(spec):
        return DatasetStatus(spec.name, True, "cache", str(raw_dir(spec.name)), True, "-", None, content_id=cid,
                             **_checksums(spec))
    where = set()
    for file, (algorithm, expected) in spec.files.items():
        good = next((p for p in candidate_paths(spec, file, denied)
                     if checked_digest(p, algorithm, decompress=spec.kind == "idx" and p.name.endswith(".gz")) == expected), None)
        if good is None:
            if denied:
                missing.reason = denied_reason(denied)
            return missing
        where.add(str(good.parent))
    return DatasetStatus(spec.name, True, "local", "; ".join(sorted(where)), True, "-", None, content_id=cid,
                         **_checksums(spec))


def local_outcome(name: str) -> tuple[bool, str | None]:
    """``(available, content_id)`` of :func:`local_status`."""
    st = local_status(name)
    return st.available, st.content_id if st.available else None


def _places_file(status_path: Path) -> Path:
    return status_path.with_name(f".{status_path.name}.places")


def write_status_file(path: str | os.PathLike, st: DatasetStatus) -> None:
    """Write the workflow's status file for ``st`` (unless it already holds that record: its time is kept) and,
    beside it, the fingerprint of the places now."""
    from repro.results import write_json, write_text

    path = Path(path)
    record = st.record()
    try:  # the same record again: the file is left as it is (a newer file would rerun every run that reads it)
        same = json.loads(path.read_text()) == json.loads(json.dumps(record))
    except (OSError, ValueError):
        same = False
    if not same:
        write_json(path, record)
    write_text(_places_file(path), places_fingerprint(st.dataset) + "\n")


def _outcome(record: dict) -> tuple:
    return (bool(record.get("available")), record.get("content_id") if record.get("available") else None)


def sync_status_file(path: str | os.PathLike, name: str, write: bool = True) -> str:
    """Make sure the status file ``path`` of dataset ``name`` still tells the truth (see the module doc).

    Returns ``"missing"`` (nothing recorded yet: the workflow's rule fetches), ``"fresh"`` (places
    unchanged, or changed without changing the outcome: the file is left as it is) or ``"updated: ..."``
    (the recorded outcome is no longer true: the file now records the local one, so the runs that take it
    as input see a changed input and rerun). The status file is written only when the outcome it records
    changes. With ``write=False`` (a dry run) nothing is written at all: ``"stale: ..."`` says what would
    be rewritten, and the file (and the fingerprint beside it) stays as it is, so a dataset that comes back
    unchanged before the next real run reruns nothing.
    """
    from repro.results import write_text

    path = Path(path)
    if not path.exists():
        return "missing"
    try:
        stored = json.loads(path.read_text())
        if not isinstance(stored, dict) or "available" not in stored:
            raise ValueError("not a dataset status record")
    except (OSError, ValueError):
        stored = None
    places_file = _places_file(path)
    now = places_fingerprint(name)
    if stored is not None:
        try:
            if places_file.read_text().strip() == now:
                return "fresh"
        except OSError:
            pass
    st = local_status(name)
    if stored is not None and (st.available, st.content_id if st.available else None) == _outcome(stored):
        if write:
            write_text(places_file, now + "\n")  # same outcome: remember the places, rerun nothing
        return "fresh"
    if write:
        write_status_file(path, st)
    if stored is None:
        was = "an unreadable record"
    else:
        was = "available" if stored.get("available") else f"unavailable ({stored.get('reason')})"
    return f"{'updated' if write else 'stale'}: recorded {was}, now {'available' if st.available else 'unavailable'}"


def _verified_checksums(name: str, rec: dict) -> dict:
    """The ``checksums`` / ``checksum_source`` of an available dataset's status record; a record written before
    they were kept gets them from the spec when its content id is theirs (user data has none: ``{}``)."""
    if rec.get("checksums"):
        return {"checksums": rec["checksums"], "checksum_source": rec.get("checksum_source")}
    from repro.data.loaders import content_id

    try:
        spec = get_spec(name)
    except ValueError:
        return {}
    sums = _checksums(spec) if spec.files else {}
    return sums if sums and content_id(sums["checksums"]) == rec.get("content_id") else {}


def status_file(name: str) -> Path:
    """The workflow's status file of dataset ``name`` (``data/status/<name>.json`` in the project)."""
    from repro.paths import project_root

    return project_root() / "data" / "status" / f"{name}.json"


def datasets_seen(names) -> dict:
    """``{name: {"available", "content_id"}}`` of each dataset, as a run records it: from the workflow's
    status file (the run's input) where there is one, else from what is on this machine now."""
    out = {}
    for name in names:
        try:
            rec = json.loads(status_file(name).read_text())
            out[name] = {"available": bool(rec["available"]), "content_id": rec.get("content_id")}
            if rec["available"]:  # the checksums verified (an accepted copy's, where the user set one)
                out[name].update(_verified_checksums(name, rec))
            continue
        except (OSError, ValueError, KeyError, TypeError):
            pass
        try:
            st = local_status(name)
        except ValueError:  # an unknown name in a figure's datasets: recorded, never fatal
            out[name] = {"available": False, "content_id": None}
            continue
        out[name] = {"available": st.available, "content_id": st.content_id}
        if st.available and st.checksums:
            out[name].update(checksums=st.checksums, checksum_source=st.checksum_source)
    return out
