"""The steps the workflow (and the ``repro`` command) runs: run -> figure -> claims -> claims table."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from repro import experiment as ex
from repro import paths, registry
from repro.claims import NOT_EVALUATED_REASONS
from repro.errors import ConfigError
from repro.data.errors import DatasetUnavailableError
from repro.data.partition import PartitionError
from repro.data.status import datasets_seen
from repro.results import (last_refusal, read_json, read_run_result, read_tidy_csv, run_lock, tidy_frame, write_csv, write_json,
                           write_text)


def _log(msg: str) -> None:
    print(f"[repro {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def set_threads(threads: int) -> None:
    """Pin intra-op threads so ``-j N`` jobs do not oversubscribe the cores.

    Without importing torch: a job whose task never uses it (the closed forms and numpy Monte Carlo of
    age_dp and acfl) would otherwise spend about 3 s importing it. Torch reads ``OMP_NUM_THREADS`` when it is
    first imported; if it already is, its thread count is set directly."""
    n = str(max(1, int(threads)))
    os.environ["OMP_NUM_THREADS"] = n
    os.environ["MKL_NUM_THREADS"] = n
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(int(n))


def execute_run(slug: str, run_id: str, profile: str, device: str = "cpu", threads: int = 1, force: bool = False) -> Path:
    """Do one job (unless its result exists) and write ``results/<profile>/<slug>/runs/<id>.json``.

    A job is one run, or a batch of runs executed one after the other in this process (``experiment``'s
    module docstring). An existing result is kept unless ``force``, it is damaged (moved aside, then
    recomputed) or it says its dataset was unavailable (recomputed: the data may have been provided since).
    One job id is computed by one process at a time: a second waits, then keeps what the first wrote.
    """
    specs = ex.job_specs(slug, profile)
    ex.check_choice(f"run id of {slug} under profile {profile}", run_id, sorted(specs))
    out = paths.run_result_path(profile, slug, run_id)
    log = lambda m: _log(f"{slug}/{run_id}: {m}")  # noqa: E731
    requested = time.time()
    with run_lock(out, log=log) as lock:
        existing = read_run_result(out, log=log, run_id=run_id)  # damaged or foreign: moved aside, recomputed
        if existing is not None and lock.waited and out.stat().st_mtime >= requested:
            log("computed meanwhile by the other process, kept")
            return out
        if existing is not None and not force and not any_unavailable(existing["result"]):
            from repro.code_version import sources_hash

            was = (existing.get("code") or {}).get("sources")
            log("result exists, skipped" + ("" if was == sources_hash(slug) else
                f" (computed by {'other sources: ' + was if was else 'code that did not record its sources'}, these "
                f"are {sources_hash(slug)}; --force recomputes it)"))
            return out
        spec = specs[run_id]
        set_threads(threads)
        ex.prepare_device(device)
        if force:
            _remove_parts(out)
        ctx = ex.RunContext(profile=profile, run_id=run_id, device=device, threads=threads, log=log,
                            parts_dir=_parts_dir(out))
        t0, c0 = time.perf_counter(), time.process_time()
        log(f"start ({spec.task}, seed {spec.seed})")
        if spec.task == ex.BATCH_TASK:
            result = _execute_batch(slug, spec, ctx, out, force)
        else:
            result = _execute_shared(slug, spec, ctx)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        from repro.code_version import code_stamp

        write_json(out, {"spec": spec.to_dict(), "profile": profile, "device": device, "threads": threads,
                         "wall_s": elapsed, "cpu_s": cpu, "code": code_stamp(slug),
                         "datasets": datasets_seen(run_datasets(slug, profile, run_id)),
                         **({"sub_jobs": ctx.sub_jobs} if ctx.sub_jobs else {}), "result": result})
        if any_unavailable(result):  # the finished parts are kept to resume the job later; the log says why
            log(f"result is unavailable: {_unavailable_reasons(result)}")
        else:
            _remove_parts(out)
        log(f"done in {elapsed:.1f} s ({cpu:.1f} s CPU)")
    return out


def help_run(slug: str, run_id: str, profile: str, device: str = "cpu", threads: int = 1) -> int:
    """Compute, beside the process executing run ``run_id``, the sub-jobs that no other process has claimed
    (``RunContext.resumable``), so that one long run of independent sub-jobs uses several cores or machines that
    share ``results/``. A helper writes the finished sub-jobs only, never the run's result (the run's own process
    assembles it). Returns the number of sub-jobs it computed."""
    specs = ex.job_specs(slug, profile)
    ex.check_choice(f"run id of {slug} under profile {profile}", run_id, sorted(specs))
    spec = specs[run_id]
    if spec.task == ex.BATCH_TASK:
        raise ex.ConfigError(f"{slug}/{run_id} is a batch job (its members run one after the other): --helper works on "
                             f"runs whose task keeps sub-jobs (RunContext.resumable); run another job instead")
    out = paths.run_result_path(profile, slug, run_id)
    log = lambda m: _log(f"{slug}/{run_id} (helper): {m}")  # noqa: E731
    if out.exists() and read_run_result(out, log=log, run_id=run_id) is not None:
        log("result exists: nothing to help with")
        return 0
    set_threads(threads)
    ex.prepare_device(device)
    ctx = ex.RunContext(profile=profile, run_id=run_id, device=device, threads=threads, log=log,
                        parts_dir=_parts_dir(out))
    log(f"start ({spec.task}, seed {spec.seed})")
    _skipping_pass(slug, spec, ctx)
    computed = sum(1 for j in ctx.sub_jobs.values() if not j.get("kept"))
    log(f"done: {computed} sub-job(s) computed here")
    return computed


def release_stale(slug: str, run_id: str, profile: str, older_than: float | None = None) -> int:
    """Release the stale claims on run ``run_id``'s sub-jobs (``repro run SLUG RUN_ID --release-stale [SECONDS]``): a
    claim whose heartbeat is older than its lease, or than ``older_than`` seconds where given (a ``--helper`` killed on
    another machine: no need to wait out its lease; never less than two heartbeat periods, so a live claimant keeps
    its claim), or whose process on this host has died. Live claims are kept. A process reaching a stale claim takes
    it over by itself. Returns the number released."""
    specs = ex.job_specs(slug, profile)
    ex.check_choice(f"run id of {slug} under profile {profile}", run_id, sorted(specs))
    out = paths.run_result_path(profile, slug, run_id)
    log = lambda m: _log(f"{slug}/{run_id}: {m}")  # noqa: E731
    released, live = ex.release_stale_claims(_parts_dir(out), log=log, older_than=older_than)
    log(f"{released} stale claim(s) released, {live} live claim(s) kept (lease of a claim: the one written in it, "
        f"else {ex.claim_lease_s():g} s, $REPRO_CLAIM_LEASE_S)")
    return released


def _skipping_pass(slug: str, spec: ex.RunSpec, ctx: ex.RunContext) -> dict | None:
    """The task with every sub-job that another process has claimed skipped. None where a later step needed one of
    those (an error with nothing skipped is raised as it is)."""
    ctx.skip_claimed, ctx.skipped = True, 0
    try:
        return _execute_task(slug, spec, ctx)
    except Exception as e:
        if not ctx.skipped:
            raise
        ctx.log(f"stopped at a step that needs a sub-job still being computed elsewhere ({type(e).__name__}: {e})")
        return None


def _execute_shared(slug: str, spec: ex.RunSpec, ctx: ex.RunContext) -> dict:
    """The task in up to two passes: first every sub-job that no helper has claimed (the others skipped), then,
    if some were skipped, again, waiting for the helpers' sub-jobs and keeping everything already finished. Without
    helpers the first pass is the whole run."""
    result = _skipping_pass(slug, spec, ctx)
    if not ctx.skipped:
        return result
    ctx.log(f"{ctx.skipped} sub-job(s) computed by helpers: assembling the run, waiting for the ones not yet finished")
    ctx.skip_claimed = False
    return _execute_task(slug, spec, ctx)


def _execute_task(slug: str, spec: ex.RunSpec, ctx: ex.RunContext) -> dict:
    task = ex.tasks(slug).get(spec.task)
    if task is None:
        raise ex.ConfigError(f"{slug}: run {spec.run_id} has task {spec.task!r}, which experiments.TASKS does not name; "
                             f"allowed: {', '.join(ex.tasks(slug))}")
    try:
        return task.resolve()(spec, ctx)
    except DatasetUnavailableError as e:  # the task should return unavailable_result itself; never crash on it
        ctx.log(f"dataset unavailable: {e.reason}")
        return ex.unavailable_result(f"dataset unavailable: {e.reason}")
    except PartitionError as e:  # a user's copy too small for the run's split: said as a data fault, naming the dataset
        names = ", ".join(ex.datasets_read(slug, spec)) or "of this run"
        ctx.log(f"dataset {names}: too small for the run's partition: {e}")
        return ex.unavailable_result(f"dataset {names}: the copy provided is too small for this run's partition ({e})")


def _parts_dir(out: Path) -> Path:
    """Where a job keeps each finished run of a batch, or each finished sub-job of a task
    (``RunContext.resumable``), until the job's result is written (an interrupted job resumes)."""
    return out.with_name(out.stem + ".parts")


def _remove_parts(out: Path) -> None:
    parts = _parts_dir(out)
    if parts.is_dir():
        for f in parts.glob("*.json"):
            f.unlink()
        try:
            parts.rmdir()
        except OSError:  # something else was put there: left alone
            pass


def _execute_batch(slug: str, job: ex.RunSpec, ctx: ex.RunContext, out: Path, force: bool) -> dict:
    """Run the members of a batch job one after the other; each finished member is kept under ``<job>.parts/``
    (atomically), so an interrupted batch resumes with the members not yet done (``force`` starts over)."""
    members = ex.batch_members(job)
    parts = _parts_dir(out)
    if force:
        _remove_parts(out)
    done = {}
    for i, spec in enumerate(members, 1):
        part = parts / f"{spec.run_id}.json"
        kept = read_run_result(part, log=ctx.log) if part.exists() else None  # another run's part: overwritten
        if kept is not None and kept["spec"] == spec.to_dict() and not ex.is_unavailable(kept["result"]):
            done[spec.run_id] = kept
            continue
        mctx = ex.RunContext(profile=ctx.profile, run_id=spec.run_id, device=ctx.device, threads=ctx.threads,
                             log=lambda m, rid=spec.run_id: ctx.log(f"{rid}: {m}"))
        t0, c0 = time.perf_counter(), time.process_time()
        result = _execute_task(slug, spec, mctx)
        rec = {"spec": spec.to_dict(), "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
               "provenance": ex.compute_provenance(ctx.device), "result": result}
        write_json(part, rec)
        done[spec.run_id] = rec
        ctx.progress(i, len(members), "runs")
    return {"members": done}


any_unavailable = ex.any_unavailable  # the experiment layer's (repro.costs reads it there, not through the pipeline)


def _unavailable_reasons(result: dict) -> str:
    """The distinct reasons an unavailable result (or the unavailable members of a batch) gives."""
    members = result["members"].values() if isinstance(result.get("members"), dict) else [{"result": result}]
    reasons = {str(m["result"].get("reason", "unavailable")) for m in members if ex.is_unavailable(m["result"])}
    return "; ".join(sorted(reasons))


def run_datasets(slug: str, profile: str, run_id: str) -> list[str]:
    """The datasets job ``run_id`` reads (:func:`repro.experiment.job_datasets`)."""
    return list(ex.job_datasets(slug, profile).get(run_id, ()))


#: the reason every run of a partial render that has no result carries (judging rule 9's named phrase)
NOT_RUN_AT_SCALE = NOT_EVALUATED_REASONS["not_run"]


#: the code line of the figures loaded in this process (code_version.stamp_summary), for their .md
_CODE_LINES: dict[tuple[str, str, str], str] = {}


def load_results(slug: str, fig: ex.FigureSpec, profile: str, partial: bool = False) -> dict[str, dict]:
    """Results of the figure's runs by run id (a batch job's result file holds several runs). ``partial``: a run
    without an intact result gets an unavailable result saying it was not run at this scale (instead of an error)."""
    out = {}
    docs = []
    for rid in fig.job_ids:
        p = paths.run_result_path(profile, slug, rid)
        doc = read_run_result(p, log=lambda m: _log(f"{slug}/{fig.fig_id}: {m}"), run_id=rid)
        if doc is None and partial:
            continue
        if doc is not None:
            docs.append({"code": doc.get("code")})
        if doc is None:
            refused = last_refusal(p)
            what = (f"the file there was refused ({refused.split(': ', 1)[1]}), so run {rid} is computed again by "
                    f"the next `snakemake` or by" if refused else "run it first:")
            raise FileNotFoundError(f"{slug}/{fig.fig_id}: run {rid} has no intact result at {p}; {what} "
                                    f"`repro run {slug} {rid} --profile {profile}`")
        if doc["spec"]["task"] == ex.BATCH_TASK:
            out.update({mid: m["result"] for mid, m in doc["result"]["members"].items()})
        else:
            out[rid] = doc["result"]
    from repro.code_version import stamp_summary

    _CODE_LINES[(slug, fig.fig_id, profile)] = stamp_summary(slug, docs)
    missing = sorted(set(fig.run_ids) - set(out))
    if missing and partial:
        out.update({rid: ex.unavailable_result(f"{NOT_RUN_AT_SCALE}: run {rid} has no result in the {profile} profile")
                    for rid in missing})
    elif missing:
        raise FileNotFoundError(f"{slug}/{fig.fig_id}: runs {missing[:3]} are in none of the figure's result files; "
                                f"rerun the workflow")
    return out


def render_figure(slug: str, fig_id: str, profile: str, run_missing: bool = False, device: str = "cpu", threads: int = 1,
                  partial: bool = False) -> list[Path]:
    """:func:`draw_figure`; a redraw without training (``run_missing`` off) whose runs are not all here, in a profile
    whose committed selection exists (``experiment.committed_selection``: the paper profile's panels a 2-core CPU
    ran) and with no override file of the project's own, is drawn from that selection's runs, as committed, and says
    so: the full profile's other panels (CNN, CIFAR-10) were never run here."""
    try:
        return draw_figure(slug, fig_id, profile, run_missing, device, threads, partial)
    except FileNotFoundError as missing:
        chosen = ex.committed_selection(slug, profile)
        if run_missing or chosen is None or ex.user_profile_file(slug, profile).exists():
            raise
        with ex.selection(slug, profile, chosen):
            try:
                ex.figure_spec(slug, fig_id, profile)
            except ConfigError:
                raise missing from None  # the figure is not in the selection: the full profile's error stands
            try:
                written = draw_figure(slug, fig_id, profile, run_missing, device, threads, partial)
            except FileNotFoundError:
                raise missing from None
        rel = chosen.relative_to(paths.project_root()) if chosen.is_relative_to(paths.project_root()) else chosen
        _log(f"{slug}/{fig_id}: drawn from the committed runs of {rel} (the panels run at the paper's settings on a "
             f"2-core CPU); the {profile} profile's other runs were never made here ({missing})")
        return written


def draw_figure(slug: str, fig_id: str, profile: str, run_missing: bool = False, device: str = "cpu", threads: int = 1,
                partial: bool = False) -> list[Path]:
    """Render one figure / table from its runs' results into ``figures/<profile>/<slug>/``:
    ``.csv`` (every plotted number), ``.pdf`` and ``.png`` (with the profile's note as a footer), ``.md``
    (tables: the table; figures: what is plotted and where the numbers are). ``partial`` (with ``run_missing``
    off; tables with ``rows_per_configuration`` only): render from the runs that exist, the others "not run at
    this scale", and say so on the table."""
    import matplotlib

    matplotlib.use("Agg")  # files only; the library modules never choose a backend
    fig = ex.figure_spec(slug, fig_id, profile)
    if partial and (run_missing or not fig.rows_per_configuration):
        allowed = [f.fig_id for f in ex.figure_specs(slug, profile) if f.rows_per_configuration]
        raise ConfigError(f"{slug}/{fig_id}: a partial render needs --no-run and a table whose rows are independent "
                          f"configurations; {slug} has {allowed or 'none'}")
    if run_missing:
        from repro.costs import figure_cost

        cost = figure_cost(slug, fig_id, profile)
        if cost is not None:  # what training costs, before it starts
            _log(cost.message(slug, fig_id, profile))
        for i, rid in enumerate(fig.job_ids, 1):
            _log(f"{slug}/{fig_id}: run {i}/{len(fig.job_ids)}")
            execute_run(slug, rid, profile, device=device, threads=threads)
    results = load_results(slug, fig, profile, partial=partial)
    not_run = sorted(rid for rid, r in results.items() if ex.is_unavailable(r) and r["reason"].startswith(NOT_RUN_AT_SCALE))
    params = ex.load_params(slug, profile)
    ctx = ex.RenderContext(profile=profile, params=params)
    renderer = registry.module(slug, "figures").RENDERERS[fig.fig_id]
    rendered = renderer(fig, results, ctx)
    base = paths.figures_dir(profile, slug) / fig_id
    written = []
    data = tidy_frame(rendered.data.to_dict("records")) if rendered.data is not None and len(rendered.data) else tidy_frame([])
    diverged = diverged_runs(slug, fig, results)
    if diverged:  # said on the figure, in its .md, and marked in its CSV (claims on it are not evaluated)
        data = tidy_frame(data.to_dict("records") + _diverged_rows(fig.fig_id, diverged))
        _log(f"{slug}/{fig_id}: training diverged: " + "; ".join(describe_divergence(diverged)))
    write_csv(base.with_suffix(".csv"), data)
    written.append(base.with_suffix(".csv"))
    if rendered.figure is None:
        raise ValueError(f"{slug}/{fig_id}: renderer returned no figure (tables are drawn as a figure too)")
    from repro.plotting import close, mark_coinciding, stamp_profile_note, stamp_verdicts
    from repro.report import verdict_stamp
    from repro.results import save_figure

    mark_coinciding(rendered.figure)
    judged, elsewhere = judge_figure(slug, fig_id, profile, params)  # on the CSV just written
    stamp = verdict_stamp(profile, fig_id, judged, elsewhere)
    stamp_verdicts(rendered.figure, stamp)
    stamp_profile_note(rendered.figure, profile, ctx.profile_note)
    if diverged:
        _stamp_divergence(rendered.figure, diverged)
    partial_text = _partial_text(not_run, len(fig.run_ids), profile)
    if partial_text:
        _stamp_partial(rendered.figure, partial_text)
        _log(f"{slug}/{fig_id}: {partial_text}")
    written += save_figure(rendered.figure, base)
    close(rendered.figure)
    md = rendered.markdown if rendered.markdown is not None else figure_markdown(fig, ctx, data)
    if not len(rendered.data if rendered.data is not None else []):  # the CSV holds its header only: say why, in words
        why = list(dict.fromkeys(getattr(rendered.figure, "_repro_unavailable", [])))
        md = md.rstrip("\n") + (f"\n\n`{fig_id}.csv` holds only its header row: nothing of this figure was regenerated "
                                f"in the {profile} profile. Why: {'; '.join(why)}\n" if why else
                                f"\n\n`{fig_id}.csv` holds only its header row: the figure plots no numbers (a diagram "
                                f"of the paper's set-up).\n")
    title_note = getattr(rendered.figure, "_repro_title_note", None)
    if title_note and title_note not in " ".join(md.split()):  # the figure's title shows it cut (plotting.short_note)
        md = md.rstrip("\n") + f"\n\nOn the figure, under its title (in full): {title_note}\n"
    if diverged:
        md += f"\nTRAINING DIVERGED (loss not finite or above 1e6; {DIVERGED_RULE}):\n\n" + \
            "\n".join(f"- {line}" for line in describe_divergence(diverged)) + "\n"
    if partial_text:
        md = md.rstrip("\n") + f"\n\n{partial_text}: " + ", ".join(not_run) + ".\n"
    code_line = _CODE_LINES.get((slug, fig_id, profile))
    if code_line:
        md = md.rstrip("\n") + f"\n\n{code_line}\n"
    write_text(base.with_suffix(".md"), md.rstrip("\n") + f"\n\n{stamp}.\n" if stamp else md)
    written.append(base.with_suffix(".md"))
    _log(f"{slug}/{fig_id}: wrote {', '.join(p.name for p in written)}")
    return written


def diverged_runs(slug: str, fig: ex.FigureSpec, results: dict) -> dict[str, list]:
    """``{run id: [(where, worst loss)]}`` of the figure's training runs (``Task.training``: torch or numpy) whose
    losses diverged."""
    from repro.divergence import diverged_losses

    tasks = ex.tasks(slug)
    out = {}
    for spec in fig.runs:
        task = tasks.get(spec.task)
        res = results.get(spec.run_id)
        if task is not None and task.training and isinstance(res, dict) and not ex.is_unavailable(res):
            hits = diverged_losses(res)
            if hits:
                out[spec.run_id] = hits
    return out


def describe_divergence(diverged: dict) -> list[str]:
    from repro.divergence import describe

    return describe(diverged)


def _diverged_rows(fig_id: str, diverged: dict) -> list[dict]:
    from repro.divergence import MARKER

    return [dict(figure=fig_id, panel=MARKER, series=where, x=float("nan"), metric=MARKER,
                 value=v if v == v else float("inf"), seed=-1, run_id=rid)
            for rid, hits in sorted(diverged.items()) for where, v in hits]


def _partial_text(not_run: list[str], total: int, profile: str) -> str:
    if not not_run:
        return ""
    return (f"PARTIAL: {len(not_run)} of {total} runs not run at this scale ({profile} profile); the rows cover the "
            f"configurations whose runs all exist")


def _stamp_partial(figure, text: str) -> None:
    """A note at the top of a table rendered from part of its runs."""
    from repro.plotting import fit_text, stack_on_top

    t = figure.text(0.01, 1.0, text, ha="left", va="bottom", fontsize=7, color="#805000", transform=figure.transFigure)
    fit_text(figure, t, 0.98 * figure.get_figwidth() * figure.dpi)
    stack_on_top(figure, t)


#: what a diverged training does to the claims judged on its figure (repro.claims, ClaimSpec.evaluate)
DIVERGED_RULE = ("a claim on this figure is not evaluated, unless it leaves the diverged training out of its evidence "
                 "and says so in its reason")


def _stamp_divergence(figure, diverged: dict) -> None:
    """A red note at the top of the figure naming every diverged training."""
    from repro.plotting import fit_text, stack_on_top

    lines = describe_divergence(diverged)
    more = f" (and {len(lines) - 4} more: see the .md)" if len(lines) > 4 else ""
    t = figure.text(0.01, 1.0, f"TRAINING DIVERGED ({DIVERGED_RULE}): " + "; ".join(lines[:4]) + more,
                    ha="left", va="bottom", fontsize=7, color="#a00000", transform=figure.transFigure)
    fit_text(figure, t, 0.98 * figure.get_figwidth() * figure.dpi)
    stack_on_top(figure, t)


def judge_figure(slug: str, fig_id: str, profile: str, params: dict | None = None) -> tuple[list[dict], list[dict]]:
    """The claims a figure carries: (those that read this figure only, judged on its CSV as written, so with the
    verdict ``repro evaluate`` stores; those that also read other figures, not judged here: ``id`` and ``figures``).
    A figure's job reads no other figure, so its picture can state the first kind's verdicts only."""
    try:
        claims = registry.module(slug, "claims").CLAIMS
    except ModuleNotFoundError as e:  # a paper without claims (any other missing module is an error)
        if not str(e.name or "").endswith(".claims"):
            raise
        return [], []
    own = [c for c in claims if tuple(c.figures) == (fig_id,)]
    elsewhere = [{"id": c.id, "figures": list(c.figures)} for c in claims if fig_id in c.figures and len(c.figures) > 1]
    if not own:
        return [], elsewhere
    tables = {fig_id: _split_divergence(read_tidy_csv(paths.figures_dir(profile, slug) / f"{fig_id}.csv"))}
    params = ex.load_params(slug, profile) if params is None else params
    return [c.evaluate(tables, params).to_dict() for c in own], elsewhere


#: the per-run metric a figure's CSV carries when a run trained on a stand-in for the paper's data (1) or on it (0)
STAND_IN_METRIC = "surrogate_data"


def _stand_in_note(data) -> str:
    """What data ran, where a stand-in replaced the paper's (the runs' ``surrogate_data`` rows): said in words, so that
    no figure reads as trained on data it never saw (rule h)."""
    if data is None or not len(data) or STAND_IN_METRIC not in set(data["metric"]):
        return ""
    flags = data.loc[data["metric"] == STAND_IN_METRIC].groupby("run_id")["value"].max()
    stand_in = int((flags > 0).sum())
    if not stand_in:
        return " Every run trained on the paper's data."
    return (f" What ran: {stand_in} of {len(flags)} runs trained on MNIST digits standing in for FEMNIST, which is not "
            "obtainable offline (their verdicts are the stand-in's, outside the counts of record).")


def figure_markdown(fig: ex.FigureSpec, ctx: ex.RenderContext, data) -> str:
    """The ``.md`` beside a figure: title, paper reference, profile note, and what the CSV holds."""
    lines = [f"# {fig.paper_ref or fig.fig_id}: {fig.title}", ""]
    if fig.description:
        lines += [fig.description, ""]
    if ctx.profile_note:
        lines += [f"Profile `{ctx.profile}`: {ctx.profile_note}", ""]
    if fig.datasets:
        lines += [f"Datasets: {', '.join(fig.datasets)}.{_stand_in_note(data)}", ""]
    if len(data):
        seeds = sorted(int(s) for s in data["seed"].unique() if int(s) >= 0)
        lines += [f"`{fig.fig_id}.csv`: {len(data)} numbers; series: {', '.join(map(str, data['series'].unique()[:12]))}"
                  + (" ..." if data["series"].nunique() > 12 else "") + f"; metrics: {', '.join(map(str, data['metric'].unique()))}"
                  + (f"; seeds: {seeds}" if seeds else "") + "."]
    return "\n".join(lines) + "\n"


def paper_tables(slug: str, profile: str) -> dict:
    """The tidy CSVs of a paper's regenerated figures, keyed by figure id (absent figures are left out)."""
    tables = {}
    for fig in ex.figure_specs(slug, profile):
        p = paths.figures_dir(profile, slug) / f"{fig.fig_id}.csv"
        if p.exists():
            tables[fig.fig_id] = _split_divergence(read_tidy_csv(p))
    return tables


def _split_divergence(df):
    """The figure's table without its divergence rows; they go to ``df.attrs["diverged"]`` (lines naming each
    diverged training), which the claims read (repro.claims: a claim on the figure is not evaluated)."""
    from repro.divergence import MARKER

    if "metric" not in df.columns or not (df["metric"] == MARKER).any():
        return df
    marks = df[df["metric"] == MARKER]
    out = df[df["metric"] != MARKER].reset_index(drop=True)
    out.attrs["diverged"] = [f"run {r.run_id}: {r.series} reached {float(r.value):.3g}" for r in marks.itertuples()]
    return out


def evaluate_claims(slug: str, profile: str) -> Path:
    """Judge the paper's claims on its figures' CSVs -> ``results/<profile>/<slug>/claims.json``."""
    from repro.claims import verdict_counts

    claims = registry.module(slug, "claims").CLAIMS.evaluate(paper_tables(slug, profile), ex.load_params(slug, profile))
    from repro.costs import seed_price

    for c in claims:  # rule g: what the seeds that would decide an inconclusive claim cost
        d = c.details or {}
        n = (d.get("seeds_needed") or d.get("seeds_to_decide")) if c.verdict == "inconclusive" else None
        price = seed_price(slug, profile, c.figures, n) if n else None
        if price:
            c.reason = f"{c.reason}; {price}"
    out = paths.results_dir(profile, slug) / "claims.json"
    write_json(out, [c.to_dict() for c in claims])
    _log(f"{slug}: verdicts {verdict_counts(claims)}")
    return out


def load_claims(profile: str, slugs=None) -> list[dict]:
    rows = []
    for slug in slugs or registry.slugs():
        p = paths.results_dir(profile, slug) / "claims.json"
        if p.exists():
            rows += read_json(p)
    return rows
