"""The contract between a paper's code and the workflow.

A paper is a sub-package ``repro.papers.<slug>`` (found by :mod:`repro.registry`, never listed by
hand) with this shape::

    __init__.py      PAPER = PaperInfo(slug, title, ...)            light: no torch, no numpy
    params/          paper.yaml (every parameter, paper values), quick.yaml, smoke.yaml (overrides),
                     schema.yaml (JSON schema of the parameters: types, ranges, choices)
    experiments.py   figures(params) -> list[FigureSpec]             the figures and the runs they need
                     TASKS = {task: Task("module:function", gpu=..., trains=...)}  what each run task calls
    runs.py          the task functions: fn(spec: RunSpec, ctx: RunContext) -> dict (JSON-able)
    figures.py       RENDERERS = {fig_id: fn(fig, results, ctx) -> Rendered}
    claims.py        CLAIMS = ClaimSet(slug): every claim a small named function (repro.claims)
    README.md        what the paper claims, decisions where it is silent, substitutes, plan, cost, verdicts

``experiments.py`` must stay cheap and must not import torch at module level (Snakemake imports it
while it builds the DAG). A run whose dataset cannot be had returns :func:`unavailable_result`.

Parameters of a profile: the package's ``params/paper.yaml``, then ``params/<profile>.yaml``, then
a project's own ``config/profiles/<profile>/<slug>.yaml`` if present, then overrides from the
command line. A key not in ``paper.yaml`` is an error naming the allowed keys; every value is checked
against ``params/schema.yaml`` when the profile loads (one paragraph naming the key, the value and what
is allowed), and by the paper's optional ``experiments.validate(params)`` for rules across keys.
The common key ``profile_note`` says what a profile reduces against the paper; every figure shows it.

Jobs: a run is what a figure reads; a *job* is what the workflow executes, one process each. By default
one job is one run. A paper whose ``experiments.BATCH_TASKS`` names tasks and whose parameter
``runs_per_job`` is above 1 has those runs packed into batch jobs of that many runs (task ``batch``, one
process, the runs one after the other; each run's result is exactly what it would be alone): a process
start costs a few CPU-seconds, more than many small runs. ``FigureSpec.run_ids`` are the runs,
``FigureSpec.job_ids`` the result files the workflow makes; :func:`job_specs` maps job ids to specs.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from repro import registry
from repro.config_files import load_yaml_file
from repro.errors import ConfigError, check_choice
from repro.registry import PaperInfo
from repro.run_id import canonical_json, run_id_of  # canonical_json re-exported here

__all__ = ["ConfigError", "check_choice", "PaperInfo", "Task", "RunSpec", "FigureSpec", "RunContext", "RenderContext",
           "Rendered", "PROFILES", "FIGURE_KINDS", "load_params", "figure_specs", "figure_spec", "run_specs", "tasks",
           "run_resources", "job_specs", "job_datasets", "batch_members", "unavailable_result", "is_unavailable", "BATCH_TASK"]

PROFILES = ("smoke", "quick", "paper")
BATCH_TASK = "batch"  # a job that executes several runs in one process (see the module docstring)
FIGURE_KINDS = ("figure", "table", "diagram")
FIG_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Task:
    """A run task: ``target`` is ``"module:function"`` (imported only when a run executes);
    ``gpu`` says the task trains torch models (on a cluster with device=cuda it asks for a GPU);
    ``trains`` says it trains a model without torch (numpy). The losses of every training task (:attr:`training`)
    are checked for divergence (repro.divergence)."""

    target: str
    gpu: bool = False
    trains: bool = False

    @property
    def training(self) -> bool:
        """Whether the task trains a model (torch or not): its results are checked for divergence."""
        return self.gpu or self.trains

    def resolve(self) -> Callable:
        mod, _, fn = self.target.partition(":")
        if not fn:
            raise ValueError(f"task target {self.target!r} must be 'module:function'")
        return getattr(importlib.import_module(mod), fn)


@dataclass(frozen=True)
class RunSpec:
    """One training or analytic computation with a fixed seed.

    ``task`` names what to execute (a key of the paper's ``TASKS``), ``params`` are plain JSON
    values. The run id is ``<task>-<hash>`` of (paper, task, params, seed), so the same computation is
    shared by every figure that needs it and any change of a parameter gives a new id.
    """

    paper: str
    task: str
    params: dict
    seed: int = 0

    @property
    def run_id(self) -> str:
        return run_id_of(self.paper, self.task, self.params, self.seed)

    def to_dict(self) -> dict:
        return {"paper": self.paper, "task": self.task, "params": self.params, "seed": self.seed, "run_id": self.run_id}


@dataclass
class FigureSpec:
    """A figure or table of a paper: its id (``fig3``, ``table2``, ``privacy``), what it shows, its runs.

    ``description`` says neutrally what is plotted (captions add the measured verdicts, never the
    paper's claim). ``datasets`` lists the datasets the figure's runs read (whose absence makes (part of) the
    figure unavailable); a paper whose ``experiments.run_datasets(spec)`` says what each run reads gets it filled
    in by :func:`figure_specs` as the union over the figure's runs.
    ``threads`` is a per-run hint for the workflow. ``rows_per_configuration``: a table whose rows are independent
    configurations (each row reads only its own runs), so ``repro figure --no-run --partial`` may render it from the
    runs that exist, the others counted "not run at this scale" (:func:`repro.pipeline.render_figure`).
    """

    paper: str
    fig_id: str
    title: str
    description: str = ""
    runs: list[RunSpec] = field(default_factory=list)
    kind: str = "figure"
    paper_ref: str = ""  # e.g. "Fig. 3" or "Table II"; "" or "supplementary" for the package's own additions
    datasets: tuple[str, ...] = ()
    threads: int = 1
    jobs: list[RunSpec] | None = None  # set by figure_specs when runs are packed into batch jobs
    rows_per_configuration: bool = False

    def __post_init__(self):
        check_choice("figure kind", self.kind, FIGURE_KINDS)
        if not FIG_ID.match(self.fig_id):
            raise ConfigError(f"figure id {self.fig_id!r} of {self.paper}: must match {FIG_ID.pattern}")

    @property
    def run_ids(self) -> list[str]:
        """The runs the figure reads (renderers index results by these)."""
        return sorted({r.run_id for r in self.runs})

    @property
    def job_specs(self) -> list[RunSpec]:
        """What the workflow executes for this figure: its runs, or the batch jobs holding them."""
        return self.runs if self.jobs is None else self.jobs

    @property
    def job_ids(self) -> list[str]:
        """The result files the workflow makes for this figure."""
        return sorted({j.run_id for j in self.job_specs})


def prepare_device(device: str) -> None:
    """Full float32 arithmetic on a CUDA device: cuDNN's convolutions would otherwise run in TF32 (10-bit mantissa)
    on Ampere and later GPUs, and a run would not give the CPU's numbers to float tolerance (the GPU check)."""
    if str(device).startswith("cuda"):
        import torch

        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False

@dataclass
class RunContext:
    """What a run gets besides its spec: device, threads, progress reporting."""

    profile: str
    run_id: str
    device: str = "cpu"
    threads: int = 1
    log: Callable[[str], None] = print
    started: float = field(default_factory=time.monotonic)
    #: where a task may keep its finished sub-jobs while it runs (:meth:`resumable`); set by the pipeline
    parts_dir: "Path | None" = None
    #: skip the sub-jobs another process has claimed (:data:`PENDING`) instead of waiting for them: a helper
    #: (``repro run --helper``), and the run's own process in its first pass
    skip_claimed: bool = False
    #: sub-jobs skipped so far because another process computes them
    skipped: int = 0
    #: per sub-job of :meth:`resumable`: where and how it was computed (device, torch, seconds), or that it was
    #: kept from an earlier execution (with the provenance stored then); the pipeline writes it into the result
    sub_jobs: dict = field(default_factory=dict)
    # progress bookkeeping: work reported since a kept sub-job came back counts as kept (no time spent on it)
    _kept_work: float = field(default=0.0, repr=False)
    _last_done: float = field(default=0.0, repr=False)
    _last_kept: bool = field(default=False, repr=False)

    def streams(self, spec: RunSpec):
        from repro.engine.rng import RngStreams

        return RngStreams(spec.seed)

    def resumable(self, key: str, fingerprint: dict, compute: Callable[[], dict]) -> dict:
        """``compute()`` once: a task made of independent sub-jobs (each restarting its seed's streams) calls this
        per sub-job, so that an interrupted run resumes with the sub-jobs not yet done. A finished sub-job's
        result (status "ok") is kept atomically under ``parts_dir`` with its ``key`` and ``fingerprint`` (the
        sub-job's parameters); it is reused only when both match, else recomputed. Without ``parts_dir`` (a task
        called outside the pipeline) it simply computes.

        Several processes may work on one run's sub-jobs (``repro run --helper``): a sub-job is claimed before it is
        computed (``<part>.claim``, created exclusively, holding the claimant's host and pid). A sub-job claimed by
        a live process is waited for, or, with ``skip_claimed``, skipped: the caller gets ``PENDING`` and goes on to
        the next sub-job. A claim holds while its claimant's heartbeat (the claim file's time, refreshed while it
        computes) is younger than its lease (:func:`claim_lease_s`) and, on this host, its process runs; a stale
        claim (a claimant that died here or on another host) is taken over."""
        if self.parts_dir is None:
            return compute()
        doc = {"key": key, "fingerprint": fingerprint}
        name = hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:20]
        path = Path(self.parts_dir) / f"{name}.json"
        while True:
            kept = self._kept_part(path, key, fingerprint)
            if kept is not None:
                return kept
            claim = _Claim(path.with_suffix(".claim"))
            if claim.take():
                if claim.replaced:
                    self.log(f"sub-job {key}: the claim of {claim.replaced} was stale (lease expired or process gone): "
                             f"taken over")
                break
            if self.skip_claimed:  # another process computes it: go on with the next sub-job
                self.log(f"sub-job {key} is being computed by {claim.holder()}: skipped")
                self.skipped += 1
                return dict(PENDING)
            self.log(f"sub-job {key} is being computed by {claim.holder()}: waiting")
            claim.wait()
        try:
            kept = self._kept_part(path, key, fingerprint)  # finished between the look and the claim
            if kept is not None:
                return kept
            return self._compute_part(path, doc, key, compute)
        finally:
            claim.release()

    def _kept_part(self, path: Path, key: str, fingerprint: dict):
        from repro.results import read_json_or_none, same_as_stored

        kept = read_json_or_none(path)
        # compared as stored (a part written before holds an infinite parameter, eps = inf, as the string "inf")
        if isinstance(kept, dict) and kept.get("key") == key and same_as_stored(kept.get("fingerprint"), fingerprint) \
                and isinstance(kept.get("result"), dict):
            self.log(f"sub-job {key} kept from an earlier, interrupted execution")
            self.sub_jobs[key] = {**kept.get("provenance", {"device": "not recorded (kept part written before "
                                                                      "provenance was stored)"}), "kept": True}
            self._last_kept = True
            return kept["result"]
        return None

    def _compute_part(self, path: Path, doc: dict, key: str, compute: Callable[[], dict]) -> dict:
        from repro.results import write_json

        t0, c0 = time.perf_counter(), time.process_time()
        result = compute()
        prov = {**compute_provenance(self.device), "wall_s": round(time.perf_counter() - t0, 3),
                "cpu_s": round(time.process_time() - c0, 3)}
        self.sub_jobs[key] = {**prov, "kept": False}
        self._last_kept = False
        if isinstance(result, dict) and result.get("status", "ok") == "ok":
            write_json(path, {**doc, "result": result, "provenance": prov})
        return result

    def progress(self, done: float, total: float, what: str = "") -> str:
        """Log ``what done/total``, the elapsed time and the ETA (linear in the work computed since the run
        started; ``done``/``total`` in any unit of work: rounds, jobs, rounds x jobs). Work reported right after
        :meth:`resumable` returned a kept sub-job took no time and does not enter the rate, so a resumed run's ETA
        is not the kept share's. Returns the line."""
        elapsed = time.monotonic() - self.started
        if self._last_kept:
            self._kept_work += max(done - self._last_done, 0.0)
        self._last_done, self._last_kept = done, False
        frac = min(max(done / total, 0.0), 1.0) if total > 0 else 1.0
        computed = done - self._kept_work
        eta = elapsed * max(total - done, 0.0) / computed if computed > 0 else float("nan")
        line = (f"{what + ' ' if what else ''}{done:g}/{total:g} ({100 * frac:.0f} %), elapsed {_hms(elapsed)}, "
                f"ETA {_hms(eta)}")
        self.log(line)
        return line


#: what :meth:`RunContext.resumable` gives a helper for a sub-job that another process is computing
PENDING = {"status": "pending"}
#: seconds between two looks at a sub-job that another process is computing
CLAIM_POLL_S = 2.0
#: default lease of a claim, in seconds (``$REPRO_CLAIM_LEASE_S`` sets another): a claimant refreshes its claim file's
#: time (its heartbeat) every fifth of its lease while it computes; a claim not refreshed for longer than the lease
#: written in it is stale, whatever host holds it (a helper killed on another machine), and is taken over
CLAIM_LEASE_S = 300.0
#: the longest time between two heartbeats, whatever the lease
CLAIM_HEARTBEAT_MAX_S = 30.0


def claim_lease_s() -> float:
    """The lease of the claims this process takes: ``$REPRO_CLAIM_LEASE_S`` if set, else :data:`CLAIM_LEASE_S`."""
    import math
    import os

    text = os.environ.get("REPRO_CLAIM_LEASE_S", "").strip()
    if not text:
        return float(CLAIM_LEASE_S)
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(f"REPRO_CLAIM_LEASE_S={text!r}: expected the lease of a sub-job claim in seconds, a number "
                          f"> 0 (default {CLAIM_LEASE_S:g})")
    return value


def is_pending(result) -> bool:
    """Whether a sub-job's result is :data:`PENDING` (a helper skipped it: another process computes it)."""
    return isinstance(result, dict) and result.get("status") == "pending"


class _Claim:
    """An exclusive claim on one sub-job: a file created with O_EXCL holding ``host pid lease_s``. While the claim is
    held, a heartbeat thread refreshes the file's modification time every fifth of the lease (at most
    :data:`CLAIM_HEARTBEAT_MAX_S`); a claim whose heartbeat is older than its lease is stale (its claimant died or lost
    the shared folder), as is one of a dead process on this host."""

    def __init__(self, path: Path):
        self.path, self.mine = Path(path), False
        self.replaced = None  # the holder of the stale claim this one replaced, if any
        self._token = ""
        self._stop = None

    def take(self) -> bool:
        import os
        import socket

        lease = claim_lease_s()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):  # a stale claim is removed once, then taken
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                before = self._stat()
                if before is None:
                    continue
                if self.alive():
                    return False
                if self._stat() == before:  # not replaced meanwhile by another process's fresh claim
                    self.replaced = self.holder()
                    self.path.unlink(missing_ok=True)
                continue
            self._token = f"{socket.gethostname()} {os.getpid()} {lease:g}"
            with os.fdopen(fd, "w") as f:
                f.write(self._token)
            self.mine = True
            self._start_heartbeat(lease)
            return True
        return False

    def _stat(self):
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    def _start_heartbeat(self, lease: float) -> None:
        import os
        import threading

        stop = self._stop = threading.Event()
        every = min(lease / 5.0, CLAIM_HEARTBEAT_MAX_S)

        def beat():
            while not stop.wait(every):
                try:
                    if self.path.read_text() != self._token:  # taken over meanwhile (this process was stalled)
                        return
                    os.utime(self.path)
                except OSError:
                    return

        threading.Thread(target=beat, name=f"claim heartbeat {self.path.name}", daemon=True).start()

    def _claimant(self):
        """``(host, pid, lease_s)`` written in the claim (``lease_s`` None in a claim written without one); None if it is
        gone; ``()`` if it cannot be read yet."""
        try:
            fields = self.path.read_text().split()
            if len(fields) == 2:
                return fields[0], fields[1], None
            host, pid, lease = fields
            return host, pid, float(lease)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return ()

    def age(self) -> float | None:
        """Seconds since the claimant's last heartbeat (the file's modification time); None if the claim is gone."""
        try:
            return max(0.0, time.time() - self.path.stat().st_mtime)
        except OSError:
            return None

    def holder(self) -> str:
        who, age = self._claimant(), self.age()
        beat = f" (heartbeat {age:.0f} s ago)" if age is not None else ""
        return (f"process {who[1]} on {who[0]}" if who else "another process") + beat

    def alive(self, older_than: float | None = None) -> bool:
        """Whether the claim still holds: its heartbeat is younger than its lease (or than ``older_than`` seconds, but
        never less than two of its claimant's heartbeat periods) and, on this host, its process runs (a fresh claim
        from another host, or one being written, counts as live)."""
        import os
        import socket

        who = self._claimant()
        if who is None:
            return False
        age = self.age()
        if age is None:
            return False
        if who and who[0] == socket.gethostname():
            try:
                os.kill(int(who[1]), 0)
            except ProcessLookupError:
                return False
            except (PermissionError, ValueError):
                pass
            else:
                if who[2] is None:  # written by a process without heartbeat (older code): live while it runs
                    return True
        lease = who[2] if who and who[2] and who[2] > 0 else claim_lease_s()
        if older_than is not None:
            lease = min(lease, max(float(older_than), 2 * min(lease / 5.0, CLAIM_HEARTBEAT_MAX_S)))
        return age <= lease

    def wait(self) -> None:
        """Until the claim is released, or it is stale (its claimant died, here or on another host)."""
        while self.path.exists() and self.alive():
            time.sleep(CLAIM_POLL_S)

    def release(self) -> None:
        if self.mine:
            if self._stop is not None:
                self._stop.set()
            try:
                if self.path.read_text() == self._token:  # never another process's claim that replaced this one
                    self.path.unlink(missing_ok=True)
            except OSError:
                pass
            self.mine = False


def release_stale_claims(parts_dir: Path, log: Callable[[str], None] = print,
                         older_than: float | None = None) -> tuple[int, int]:
    """Remove the stale claims under ``parts_dir`` (a run's ``<run>.parts/``): those whose heartbeat is older than
    their lease (or than ``older_than`` seconds: :meth:`_Claim.alive`), and those of a dead process on this host.
    Returns ``(released, live)``; each is logged."""
    released = live = 0
    for path in sorted(Path(parts_dir).glob("*.claim")) if Path(parts_dir).is_dir() else []:
        claim = _Claim(path)
        before, who = claim._stat(), claim.holder()
        if claim.alive(older_than):
            live += 1
            log(f"claim {path.name} of {who}: live, kept")
        elif before is not None and claim._stat() == before:
            path.unlink(missing_ok=True)
            released += 1
            log(f"claim {path.name} of {who}: stale, released (its sub-job is computed by the next process that "
                f"reaches it)")
    return released, live


def compute_provenance(device: str) -> dict:
    """Where a result was computed: the device (with the GPU's name on CUDA) and the torch version, so that a result
    assembled from parts computed on different machines says which part came from where."""
    import torch

    out = {"device": str(device), "torch": torch.__version__}
    if str(device).startswith("cuda") and torch.cuda.is_available():
        out["device_name"] = torch.cuda.get_device_name(torch.device(device))
    return out


def _hms(seconds: float) -> str:
    if seconds != seconds:  # NaN: nothing done yet
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


@dataclass
class RenderContext:
    profile: str
    params: dict

    @property
    def profile_note(self) -> str:
        """What this profile reduces against the paper (``profile_note`` parameter), for figure subtitles."""
        return str(self.params.get("profile_note") or "")


@dataclass
class Rendered:
    """What a figure renderer returns: the tidy numbers, the picture, and (tables) markdown."""

    data: Any  # pandas.DataFrame with repro.results.TIDY_COLUMNS
    figure: Any = None  # matplotlib Figure
    markdown: str | None = None


def any_unavailable(result: dict) -> bool:
    """True when the result (or a member of a batch result) says its dataset was unavailable."""
    if isinstance(result, dict) and isinstance(result.get("members"), dict):
        return any(is_unavailable(m["result"]) for m in result["members"].values())
    return is_unavailable(result)


def unavailable_result(reason: str) -> dict:
    """Result of a run whose input (e.g. CIFAR-10) cannot be had; figures mark it, claims skip it."""
    return {"status": "unavailable", "reason": reason}


def is_unavailable(result: dict) -> bool:
    return isinstance(result, dict) and result.get("status") == "unavailable"


# ---------------------------------------------------------------------------------------------
# parameters


def _read_yaml(path: Path, required: bool = True) -> dict:
    if not path.exists():
        if required:
            raise ConfigError(f"parameter file {path} is missing")
        return {}
    data = load_yaml_file(path, "parameter file")  # bounded: size, aliases written out (repro.config_files)
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of parameter names to values, got {type(data).__name__}")
    return data


def params_dir(slug: str) -> Path:
    return registry.package_dir(slug) / "params"


def user_profile_file(slug: str, profile: str) -> Path:
    """The project's own override file of ``slug`` in ``profile`` (or the committed selection in use: ``selection``)."""
    from repro.paths import config_dir

    return _SELECTION.get((slug, profile)) or config_dir() / "profiles" / profile / f"{slug}.yaml"


#: (slug, profile) -> the override file in use instead of the project's own (``selection``)
_SELECTION: dict[tuple[str, str], Path] = {}


def committed_selection(slug: str, profile: str) -> Path | None:
    """The committed selection of a profile's runs that the clone holds results for: ``docs/paper_cpu/<slug>.yaml``
    (the panels run at the paper's settings on a 2-core CPU), or None. A redraw without training reads it where the
    full profile asks for runs that were never made here (``repro.pipeline.render_figure``)."""
    from repro.paths import project_root

    p = project_root() / "docs" / "paper_cpu" / f"{slug}.yaml"
    return p if profile == "paper" and p.is_file() else None


@contextlib.contextmanager
def selection(slug: str, profile: str, path: Path):
    """Parameters of ``slug`` in ``profile`` read with ``path`` as the override layer, inside the block."""
    old = _SELECTION.get((slug, profile))
    _SELECTION[(slug, profile)] = Path(path)
    try:
        yield
    finally:
        if old is None:
            _SELECTION.pop((slug, profile), None)
        else:
            _SELECTION[(slug, profile)] = old


_PARAMS_CACHE: dict = {}


def load_params(slug: str, profile: str, overrides: dict | None = None) -> dict:
    """Parameters of ``slug`` under ``profile``: paper values, then the profile's and the user's
    overrides; validated against the paper's schema. Without ``overrides`` the validated result is kept per
    process while its files are unchanged (a job reads it several times; validation costs about 0.3 s);
    every call returns its own copy."""
    registry.paper(slug)
    check_choice("profile", profile, PROFILES)
    if overrides:
        return _load_params(slug, profile, overrides)
    files = [params_dir(slug) / "paper.yaml", params_dir(slug) / f"{profile}.yaml", user_profile_file(slug, profile)]
    key = (slug, profile, tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) if f.exists() else (str(f),) for f in files))
    if key not in _PARAMS_CACHE:
        _PARAMS_CACHE[key] = _load_params(slug, profile, None)
    return copy.deepcopy(_PARAMS_CACHE[key])


def _load_params(slug: str, profile: str, overrides: dict | None) -> dict:
    base = _read_yaml(params_dir(slug) / "paper.yaml")
    params = dict(base)
    layers = []
    if profile != "paper":
        p = params_dir(slug) / f"{profile}.yaml"
        layers.append((str(p), _read_yaml(p)))
    user = user_profile_file(slug, profile)
    if user.exists():
        layers.append((str(user), _read_yaml(user)))
    if overrides:
        layers.append(("overrides", overrides))
    for origin, layer in layers:
        for key, value in layer.items():
            if key not in base:
                raise ConfigError(f"unknown parameter {key!r} for paper {slug!r} (in {origin}); allowed: {', '.join(sorted(base))}")
            params[key] = value
    validate_params(slug, profile, params)
    validate = getattr(registry.module(slug, "experiments"), "validate", None)
    if validate is not None:
        try:
            validate(params)
        except ConfigError as e:
            raise ConfigError(f"{slug}, profile {profile}: {e}") from None
    return params


def validate_params(slug: str, profile: str, params: dict) -> None:
    """Check ``params`` against ``params/schema.yaml``; one paragraph per problem, naming key, value, rule."""
    import jsonschema

    schema_path = params_dir(slug) / "schema.yaml"
    schema = _read_yaml(schema_path)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(params), key=lambda e: [str(p) for p in e.absolute_path])
    # NaN passes every range keyword (all comparisons with it are false): refused here, whatever the schema
    lines = [f"parameter {key!r} = nan is not allowed: not a number; allowed: a number (see the schema)"
             for key in _nan_keys(params)]
    if not errors and not lines:
        return
    for e in errors[:8]:
        key = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        rule = {k: v for k, v in e.schema.items() if k not in ("description", "$comment")} if isinstance(e.schema, dict) else e.schema
        desc = e.schema.get("description", "") if isinstance(e.schema, dict) else ""
        lines.append(f"parameter {key!r} = {e.instance!r} is not allowed: {e.message}"
                     + (f" ({desc})" if desc else "") + f"; allowed: {json.dumps(rule, default=str)}")
    more = f" (and {len(errors) - 8} more)" if len(errors) > 8 else ""
    raise ConfigError(f"{slug}, profile {profile}: " + "; ".join(lines) + more + f". Schema: {schema_path}")


def _nan_keys(value, key: str = "") -> list[str]:
    if isinstance(value, float) and value != value:
        return [key or "(top level)"]
    if isinstance(value, dict):
        return [k for name, v in value.items() for k in _nan_keys(v, f"{key}.{name}" if key else str(name))]
    if isinstance(value, (list, tuple)):
        return [k for i, v in enumerate(value) for k in _nan_keys(v, f"{key}.{i}")]
    return []


# ---------------------------------------------------------------------------------------------
# figures and runs


def figure_specs(slug: str, profile: str, overrides: dict | None = None, *, check_renderers: bool = True) -> list[FigureSpec]:
    """The figures of a paper under a profile, with their runs and jobs. ``check_renderers=False`` skips checking
    that ``figures.RENDERERS`` draws each of them: what only needs the runs (a run job, the workflow's job list)
    then never imports the plotting stack (about 2 s per process)."""
    params = load_params(slug, profile, overrides)
    figs = registry.module(slug, "experiments").figures(params)
    ids = [f.fig_id for f in figs]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{slug}: duplicate figure ids {ids}")
    if check_renderers:
        renderers = getattr(registry.module(slug, "figures"), "RENDERERS", {})
        missing = [i for i in ids if i not in renderers]
        if missing:
            raise ValueError(f"{slug}: figures.RENDERERS has no renderer for {missing}")
    reads = getattr(registry.module(slug, "experiments"), "run_datasets", None)
    if reads is not None:  # every figure declares exactly what its runs read
        for f in figs:
            f.datasets = tuple(sorted({d for r in f.runs for d in _checked_datasets(slug, r, reads(r))}))
    per_job = int(params.get("runs_per_job", 1) or 1)
    batchable = set(getattr(registry.module(slug, "experiments"), "BATCH_TASKS", ()))
    if per_job > 1 and batchable:
        _pack_jobs(slug, figs, batchable, per_job)
    return figs


def _pack_jobs(slug: str, figs: list[FigureSpec], batchable: set[str], per_job: int) -> None:
    """Pack the runs of tasks ``batchable`` into batch jobs of ``per_job`` runs; set every figure's ``jobs``.

    Figures are taken in order and each figure's runs not yet packed (by task, then run id) are cut into
    chunks, so a figure rebuilt alone mostly computes its own runs. The batch's id hashes its members' specs:
    a changed run gives a new batch."""
    job_of: dict[str, RunSpec] = {}
    for fig in figs:
        fresh = sorted({r.run_id: r for r in fig.runs if r.task in batchable and r.run_id not in job_of}.values(),
                       key=lambda r: (r.task, r.run_id))
        for i in range(0, len(fresh), per_job):
            chunk = fresh[i : i + per_job]
            job = RunSpec(slug, BATCH_TASK, {"members": [r.to_dict() for r in chunk]}, 0)
            for r in chunk:
                job_of[r.run_id] = job
    for fig in figs:
        fig.jobs = list({j.run_id: j for j in (job_of.get(r.run_id, r) for r in fig.runs)}.values())


def batch_members(job: RunSpec) -> list[RunSpec]:
    """The runs of a batch job (``[job]`` for a job that is one run)."""
    if job.task != BATCH_TASK:
        return [job]
    return [RunSpec(m["paper"], m["task"], m["params"], m["seed"]) for m in job.params["members"]]


def _checked_datasets(slug: str, spec: RunSpec, names) -> tuple[str, ...]:
    from repro.data.registry import NAMES

    names = tuple(names)
    bad = [n for n in names if n not in NAMES]
    if bad:
        raise ValueError(f"{slug}: experiments.run_datasets names unknown datasets {bad} for run {spec.run_id}; "
                         f"allowed: {', '.join(NAMES)}")
    return names


def datasets_read(slug: str, spec: RunSpec) -> tuple[str, ...]:
    """The datasets run ``spec`` reads by the paper's ``experiments.run_datasets`` (``()`` where it has none)."""
    reads = getattr(registry.module(slug, "experiments"), "run_datasets", None)
    return () if reads is None else _checked_datasets(slug, spec, reads(spec))


def job_datasets(slug: str, profile: str) -> dict[str, tuple[str, ...]]:
    """The datasets each job reads, by job id (a batch job: the union over its runs). They are the job's dataset
    inputs in the workflow and what its result records, so providing a dataset reruns exactly the jobs that read it.
    From the paper's ``experiments.run_datasets(spec)`` where it has one; else every dataset named by a figure that
    uses the job."""
    reads = getattr(registry.module(slug, "experiments"), "run_datasets", None)
    out: dict[str, set] = {}
    for fig in figure_specs(slug, profile, check_renderers=False):
        for job in fig.job_specs:
            names = out.setdefault(job.run_id, set())
            if reads is None:
                names.update(fig.datasets)
            else:
                names.update(d for r in batch_members(job) for d in _checked_datasets(slug, r, reads(r)))
    return {jid: tuple(sorted(v)) for jid, v in out.items()}


def figure_spec(slug: str, fig_id: str, profile: str) -> FigureSpec:
    figs = {f.fig_id: f for f in figure_specs(slug, profile)}
    check_choice(f"figure of {slug}", fig_id, list(figs))
    return figs[fig_id]


def job_specs(slug: str, profile: str) -> dict[str, RunSpec]:
    """All jobs of a paper under a profile (what the workflow executes), by job id."""
    out: dict[str, RunSpec] = {}
    for fig in figure_specs(slug, profile, check_renderers=False):
        for j in fig.job_specs:
            out[j.run_id] = j
    return out


def run_specs(slug: str, profile: str) -> dict[str, RunSpec]:
    """All runs of a paper under a profile, by run id."""
    out: dict[str, RunSpec] = {}
    for fig in figure_specs(slug, profile, check_renderers=False):
        for r in fig.runs:
            out[r.run_id] = r
    return out


def tasks(slug: str) -> dict[str, Task]:
    t = getattr(registry.module(slug, "experiments"), "TASKS", None)
    if not isinstance(t, dict) or not all(isinstance(v, Task) for v in t.values()):
        raise ValueError(f"{slug}: experiments.TASKS must be a dict of task name -> Task")
    return t


def run_resources(slug: str, profile: str) -> dict[str, dict]:
    """Per-job ``threads`` (max over the figures using it) and ``gpu`` (a run of it trains torch models), by job id."""
    task_of = tasks(slug)
    res: dict[str, dict] = {}
    for fig in figure_specs(slug, profile, check_renderers=False):
        for job in fig.job_specs:
            members = batch_members(job)
            for r in members:
                check_choice(f"task of {slug}", r.task, task_of)
            cur = res.setdefault(job.run_id, {"threads": 1, "gpu": any(task_of[r.task].gpu for r in members)})
            cur["threads"] = max(cur["threads"], fig.threads)
    return res
