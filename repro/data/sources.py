"""Where a dataset's files are looked for, in order, and how a verified copy reaches the cache.

Order: project cache ``data/raw/<name>/`` -> mirror folder(s) (given by :func:`use_mirrors`, i.e.
``repro --data-mirror`` or the workflow's ``data_mirror`` setting; else ``$REPRO_DATA_MIRROR``, several
separated by ``os.pathsep``; else ``data_mirror`` in ``config/config.yaml``) -> system locations
(Debian's ``/usr/share/datasets/...``) -> the official download. Every copy is verified against the
reference checksum before it is used. A copy that fails is never used and the search goes on: in the
project cache it is renamed ``*.corrupt``; in a mirror or system folder (not the project's to change,
possibly shared) it is reported and left in place. A verified copy from elsewhere is copied into the
cache first and verified there, so what is verified is exactly what is kept.
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from repro.data import download as dl
from repro.data.errors import DatasetCorruptError, DatasetUnavailableError, DownloadError
from repro.data.integrity import checked_digest, move_aside
from repro.data.registry import DatasetSpec
from repro.paths import data_dir, project_root
from repro.results import publish_mode

log = logging.getLogger("repro.data")


@dataclass(frozen=True)
class Place:
    kind: str  # cache | mirror | system
    path: Path


@dataclass
class CorruptFile:
    path: str
    algorithm: str
    expected: str
    actual: str
    moved_to: str | None
    source: str = "reference"  # where the expected checksum comes from: "reference" or the variable that set it

    def expected_from(self) -> str:
        return "the package's reference checksum" if self.source == "reference" else f"set by {self.source}"

    def describe(self) -> str:
        where = f"moved aside to {self.moved_to}" if self.moved_to else "left in place (not in the project cache), not used"
        return (f"{self.path}: {self.algorithm} expected {self.expected} ({self.expected_from()}), actual {self.actual}; "
                f"{where}")


def corrupt_reason(corrupt: list) -> str:
    """The short reason of a dataset whose copies failed their checksum: the first file, what was expected (and who
    set it: the reference or a REPRO_<NAME>_MD5 / _SHA256 override) and what it is."""
    c = corrupt[0]
    name = str(c.path).rstrip("/").rsplit("/", 1)[-1]
    more = f" (and {len(corrupt) - 1} more)" if len(corrupt) > 1 else ""
    if c.actual.startswith("unreadable"):
        return f"corrupt copy: {name}: {c.actual}{more}"
    cut = lambda h: h if len(h) <= 16 else h[:12] + "..."  # noqa: E731
    return (f"corrupt copy: checksum mismatch, {name} has {c.algorithm} {cut(c.actual)}, expected {cut(c.expected)} "
            f"({c.expected_from()}){more}")


def download_reason(errors: list) -> str:
    """The short reason of a dataset whose downloads all failed: ``download failed: offline`` when no source could
    be reached, else the concrete failures (truncated transfer, HTTP status), each with its URL."""
    if all(e.offline for e in errors):
        return "download failed: offline"
    concrete = list(dict.fromkeys(e.short() for e in errors if not e.offline))
    shown = "; ".join(concrete[:2]) + (f" (and {len(concrete) - 2} more)" if len(concrete) > 2 else "")
    unreachable = sum(e.offline for e in errors)
    return f"download failed: {shown}" + (f"; {unreachable} other source(s) unreachable" if unreachable else "")


@dataclass
class Resolution:
    """Outcome of looking for every file of one dataset."""

    files: dict = field(default_factory=dict)  # file name -> verified path in the cache
    origin: dict = field(default_factory=dict)  # file name -> "kind: path or URL" of the copy used
    searched: list = field(default_factory=list)  # human-readable lines
    corrupt: list = field(default_factory=list)  # CorruptFile
    download_errors: list = field(default_factory=list)  # DownloadError
    denied: list = field(default_factory=list)  # folders or files this user may not read (permission denied)


def raw_dir(name: str) -> Path:
    return data_dir() / "raw" / name


_MIRRORS: list[Path] | None = None  # set by use_mirrors: wins over the environment and config.yaml


def use_mirrors(value: str | None) -> None:
    """Mirror folder(s) for this process (``os.pathsep``-separated; relative to the project root);
    None or "" goes back to ``$REPRO_DATA_MIRROR`` / ``config/config.yaml``."""
    global _MIRRORS
    if not value:
        _MIRRORS = None
        return
    roots = [Path(p).expanduser() for p in str(value).split(os.pathsep) if p]
    _MIRRORS = [p if p.is_absolute() else project_root() / p for p in roots]


def mirror_roots() -> list[Path]:
    if _MIRRORS is not None:
        return list(_MIRRORS)
    env = os.environ.get("REPRO_DATA_MIRROR")
    if env is not None:
        return [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    cfg = project_root() / "config" / "config.yaml"
    if cfg.is_file():
        from repro.config_files import load_yaml_file
        from repro.errors import ConfigError

        try:  # bounded (repro.config_files): an oversized file or an alias bomb is refused, not walked
            data = load_yaml_file(cfg)
        except ConfigError as e:
            if "is not valid YAML" not in str(e):
                raise
            data = None  # a file that is not YAML at all is reported by the workflow's own config check
        value = (data.get("data_mirror") if isinstance(data, dict) else "") or ""
        if not isinstance(value, str):
            raise ConfigError(f"data_mirror = {value!r} in {cfg} is not allowed; allowed: a folder path (text)")
        if value:
            p = Path(value).expanduser()
            return [p if p.is_absolute() else project_root() / p]
    return []


def places(spec: DatasetSpec) -> list[Place]:
    out = [Place("cache", raw_dir(spec.name))]
    for root in mirror_roots():
        out += [Place("mirror", root / sub if sub else root) for sub in spec.mirror_dirs]
    out += [Place("system", Path(d)) for d in spec.system_dirs]
    return out


def candidate_paths(spec: DatasetSpec, file: str, denied: list | None = None) -> list[Path]:
    """Every existing copy of ``file`` in the places of ``spec`` this user may read, in lookup order; a copy
    or folder that may not be read is skipped and added to ``denied``."""
    return [p.path / c for p in places(spec) for c in _candidates(spec, file) if readable_file(p.path / c, denied)]


def readable_file(path: Path, denied: list | None = None) -> bool:
    """``path`` is a file this user may read. Permission denied (on the file or on its folder) is never
    raised: it is False, and the file (or the folder) is added to ``denied`` for the message."""
    try:
        if not path.is_file():
            return False
    except PermissionError:  # the folder may not be searched
        _note(denied, str(path.parent))
        return False
    try:
        with open(path, "rb"):
            pass
    except PermissionError:
        _note(denied, str(path))
        return False
    except OSError:
        return False
    return True


def _note(denied: list | None, what: str) -> None:
    if denied is not None and what not in denied:
        denied.append(what)


def denied_reason(denied: list) -> str:
    """The short reason of a dataset that cannot be read: ``permission denied on <path>[ (and N more)]``."""
    more = f" (and {len(denied) - 1} more)" if len(denied) > 1 else ""
    return f"permission denied on {denied[0]}{more}"


def _candidates(spec: DatasetSpec, file: str) -> list[str]:
    # IDX files are stored gzip-compressed by the official sources; a plain copy is accepted too
    return [file + ".gz", file] if spec.kind == "idx" else [file]


def _digest(spec: DatasetSpec, path: Path, algorithm: str, stored_name: str) -> str:
    # the decision to decompress follows the file's *stored* name: temporary copies have other suffixes;
    # a damaged gzip stream (flipped byte, truncation) gives "unreadable ...", which fails like a mismatch
    return checked_digest(path, algorithm, decompress=spec.kind == "idx" and stored_name.endswith(".gz"))


def _download_urls(spec: DatasetSpec, file: str) -> list[tuple[str, str]]:
    stored = file + ".gz" if spec.kind == "idx" else file
    # a base URL (a folder holding the official names) or, for a one-file dataset, the file's own URL (a mirror)
    full = lambda base: base if base.rsplit("/", 1)[-1] == stored or (len(spec.files) == 1 and not base.endswith("/")) \
        else base.rstrip("/") + "/" + stored  # noqa: E731
    return [(full(base), stored) for base in spec.urls]


def resolve(spec: DatasetSpec, download: bool = True, progress: bool = True) -> Resolution:
    """Find a verified copy of every file of ``spec``, copying it into the cache.

    Files missing afterwards are absent from ``Resolution.files``; the caller raises.
    """
    res = Resolution()
    cache = raw_dir(spec.name)
    plist = places(spec)
    for file, (algorithm, expected) in spec.files.items():
        for place in plist:
            for cand in _candidates(spec, file):
                src = place.path / cand
                if not readable_file(src, res.denied):
                    continue
                got = _verify_into_cache(spec, src, cache / cand, algorithm, expected, place.kind == "cache", res)
                if got is not None:
                    res.files[file], res.origin[file] = got, f"{place.kind}: {src}"
                    break
            if file in res.files:
                break
        if file not in res.files and download:
            for url, stored in _download_urls(spec, file):
                try:
                    tmp = cache / f".{stored}.download"
                    dl.download_file(url, tmp, progress=progress)
                except DownloadError as e:
                    res.download_errors.append(e)
                    continue
                got = _verify_into_cache(spec, tmp, cache / stored, algorithm, expected, True, res, shown=url)
                if got is not None:
                    res.files[file], res.origin[file] = got, f"download: {url}"
                    break
    res.searched = _describe_places(spec, plist, download)
    return res


def _expected_source(spec: DatasetSpec, stored_name: str) -> str:
    """Where the expected checksum of the file stored as ``stored_name`` comes from (see CorruptFile.source)."""
    file = stored_name.removesuffix(".gz") if spec.kind == "idx" else stored_name
    return spec.checksum_source.get(file, "reference")


def _verify_into_cache(spec, src: Path, dest: Path, algorithm, expected, in_cache: bool, res: Resolution, shown=None):
    """Verify ``src``; if it is good, make sure a verified copy is at ``dest`` and return ``dest``."""
    if in_cache:
        actual = _digest(spec, src, algorithm, dest.name)
        if actual == expected:
            if src != dest:
                os.replace(src, dest)
            return dest
        if src != dest:  # a fresh download: keep it under its own name + ".corrupt" for inspection
            os.replace(src, dest)
            src = dest
        moved = move_aside(src)
        res.corrupt.append(CorruptFile(str(shown or src), algorithm, expected, actual, str(moved) if moved else None,
                                       _expected_source(spec, dest.name)))
        log.warning("corrupt: %s", res.corrupt[-1].describe())
        return None
    # copy first, verify the copy (what we verify is exactly what we keep)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    os.close(fd)
    tmp = Path(tmp)
    try:
        try:
            dl.copy_atomic(src, tmp)
        except PermissionError:  # readable a moment ago: skipped like any copy this user may not read
            _note(res.denied, str(src))
            return None
        actual = _digest(spec, tmp, algorithm, dest.name)
        if actual == expected:
            publish_mode(tmp)
            os.replace(tmp, dest)
            return dest
        # a mirror or system folder is not ours: its bad copy is reported and skipped, never renamed
        res.corrupt.append(CorruptFile(str(src), algorithm, expected, actual, None, _expected_source(spec, dest.name)))
        log.warning("corrupt: %s", res.corrupt[-1].describe())
        return None
    finally:
        if tmp.exists():
            tmp.unlink()


def _describe_places(spec: DatasetSpec, plist: list[Place], download: bool) -> list[str]:
    lines = [f"{p.kind}: {p.path}{_folder_note(p.path)}" for p in plist]
    if not any(p.kind == "mirror" for p in plist):
        lines.append("mirror: none configured ($REPRO_DATA_MIRROR unset, no data_mirror in config/config.yaml)")
    if spec.urls:
        if not download:
            lines.append("download: not attempted")
        elif dl.downloads_disabled():
            lines.append("download: disabled ($REPRO_OFFLINE is set)")
        else:
            lines.append("download: " + ", ".join(spec.urls))
    return lines


def _folder_note(path: Path) -> str:
    try:
        return "" if path.is_dir() else " (no such folder)"
    except PermissionError:
        return " (permission denied)"


def unavailable_error(spec: DatasetSpec, res: Resolution) -> DatasetUnavailableError:
    """The error for a dataset whose files could not all be had: what, where searched, how to fix."""
    missing = [f for f in spec.files if f not in res.files]
    lines = [f"dataset {spec.name!r} ({spec.description}) is not available: missing {', '.join(missing)}.", "Searched:"]
    lines += [f"  - {s}" for s in res.searched]
    offline = bool(res.download_errors) and all(e.offline for e in res.download_errors)
    for e in res.download_errors:
        lines.append(f"  - download failed: {e}")
    if res.corrupt:
        lines.append("Corrupt copies (never used):")
        lines += [f"  - {c.describe()}" for c in res.corrupt]
    if res.denied:
        lines.append("Not readable by this user (permission denied, skipped):")
        lines += [f"  - {d}" for d in res.denied]
    lines += _how_to_provide(spec, missing, offline, res.denied, res.corrupt)
    msg = "\n".join(lines)
    if res.corrupt:
        return DatasetCorruptError(msg, res.corrupt, reason=corrupt_reason(res.corrupt))
    if res.denied:
        reason = denied_reason(res.denied)
    elif res.download_errors:
        reason = download_reason(res.download_errors)
    elif dl.downloads_disabled():
        reason = "download disabled (REPRO_OFFLINE)"
    else:
        reason = "not found"
    return DatasetUnavailableError(msg, reason=reason)


def _how_to_provide(spec: DatasetSpec, missing: list[str], offline: bool, denied: list | None = None,
                    corrupt: list | None = None) -> list[str]:
    from repro.data.registry import override_vars

    stored = [m + ".gz" if spec.kind == "idx" else m for m in missing]
    urls = [u for f in missing for u, _ in _download_urls(spec, f)[:1]]
    var = override_vars(spec.name)
    out = ["How to provide it:"]
    if corrupt:  # a checksum failure: fetching the same copy again fails again; say how to accept a legitimate one
        c = corrupt[0]
        pair = c.actual if len(spec.files) == 1 else f"{Path(c.path).name.removesuffix('.gz')}={c.actual}"
        back = f" and move {c.moved_to} back to {c.path}" if c.moved_to and not str(c.path).startswith(("http:", "https:")) else ""
        digest = "of the decompressed file " if spec.kind == "idx" else ""
        out.append(f"  * if that copy is damaged: delete it and provide an intact one (below); a download that fails "
                   f"again means the source itself differs")
        out.append(f"  * if it is a legitimate copy you trust (a repacked archive, a mirror's build): accept it with its "
                   f"checksum {digest}(`export {var[c.algorithm] if c.algorithm in var else var['sha256']}={pair}`)"
                   + (f"{back}" if back else f", then `repro data fetch {spec.name}` verifies it against that checksum")
                   + f"; the accepted checksum is what is verified from then on and it is recorded in every run that "
                   f"reads {spec.name}")
    if denied:
        out.append(f"  * give this user read access to {denied[0]} (its owner: `chmod -R u+rX` or `a+rX`), or point "
                   f"REPRO_DATA_MIRROR at a copy it can read")
    if offline:
        out.append("  The network is unreachable from this machine.")
    if not corrupt:
        out.append(f"  * with internet access: run `repro data fetch {spec.name}` (downloads and verifies)")
    if spec.urls:
        out.append(f"  * from a mirror server: `export {var['url']}=<folder URL holding {', '.join(stored)}>`, then "
                   f"`repro data fetch {spec.name}`")
    out.append(
        f"  * offline: fetch {', '.join(stored)} elsewhere ({', '.join(urls) or spec.homepage}), put them in "
        f"<mirror>/{spec.mirror_dirs[0]}/ and set REPRO_DATA_MIRROR=<mirror> (or data_mirror in config/config.yaml), "
        f"or copy them into {raw_dir(spec.name)}/"
    )
    return out
