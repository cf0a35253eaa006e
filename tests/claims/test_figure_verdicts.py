"""The verdicts a figure states in its corner are the verdicts of record of its profile.

A figure's job reads only that figure's runs, so the figure judges (on its own CSV) the claims that read
nothing else; this holds only if every claim declares every figure it reads. Both are checked here on the
regenerated tables of the profile under test (``$REPRO_TEST_PROFILE``, default ``quick``), against
``results/<profile>/<slug>/claims.json``, and the ``.md`` beside each figure must carry the same stamp.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from repro import experiment as ex
from repro import paths, pipeline, registry
from repro.report import verdict_stamp

from .conftest import PROFILE, params, results_path, tables


class RecordingTables(Mapping):
    """The paper's tables, recording which figures a claim looks up (``in`` counts as a look-up)."""

    def __init__(self, data):
        self._data, self.seen = data, set()

    def __getitem__(self, key):
        self.seen.add(key)
        return self._data[key]

    def __contains__(self, key):
        self.seen.add(key)
        return key in self._data

    def get(self, key, default=None):
        self.seen.add(key)
        return self._data.get(key, default)

    def __iter__(self):  # iterating over every table reads them all
        self.seen.update(self._data)
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def _stored(slug):
    p = results_path(slug)
    if not p.exists():
        pytest.skip(f"no {p}: run the workflow first")
    return {c["id"]: c for c in json.loads(p.read_text())}


@pytest.mark.claims
@pytest.mark.parametrize("slug", registry.slugs())
def test_every_claim_declares_the_figures_it_reads(slug):
    t = tables(slug)
    if not t:
        pytest.skip(f"no figure CSVs of {slug} in profile {PROFILE}")
    wrong = []
    for spec in registry.module(slug, "claims").CLAIMS:
        rec = RecordingTables(t)
        spec.evaluate(rec, params(slug))
        if rec.seen - set(spec.figures):
            wrong.append(f"{spec.id} reads {sorted(rec.seen - set(spec.figures))} but declares only {list(spec.figures)}")
    assert not wrong, f"{slug}: " + "; ".join(wrong)


@pytest.mark.claims
@pytest.mark.parametrize("slug", registry.slugs())
def test_figure_stamps_equal_the_stored_verdicts(slug):
    stored = _stored(slug)
    judged_any = False
    for fig in ex.figure_specs(slug, PROFILE):
        base = paths.figures_dir(PROFILE, slug) / fig.fig_id
        if not base.with_suffix(".csv").exists():
            continue
        judged, elsewhere = pipeline.judge_figure(slug, fig.fig_id, PROFILE, params(slug))
        for c in judged:
            judged_any = True
            want = stored[c["id"]]
            assert c["verdict"] == want["verdict"], (fig.fig_id, c["id"])
            # the same CSV judged on another CPU may round differently in the last bits (numpy's SIMD paths)
            if isinstance(want["effect"], float) and isinstance(c["effect"], float):
                assert c["effect"] == pytest.approx(want["effect"], rel=1e-9, abs=1e-12), (fig.fig_id, c["id"])
            else:
                assert c["effect"] == want["effect"], (fig.fig_id, c["id"])
        # the committed .md carries the stamp of the stored verdicts (the picture is drawn with the same text)
        mine = [stored[c["id"]] for c in judged]
        stamp = verdict_stamp(PROFILE, fig.fig_id, mine, elsewhere)
        if stamp:
            assert f"{PROFILE} profile" in stamp
            assert stamp in base.with_suffix(".md").read_text(), f"{slug}/{fig.fig_id}.md lacks: {stamp}"
    if not judged_any and any(len(s.figures) == 1 for s in registry.module(slug, "claims").CLAIMS):
        pytest.skip(f"no figure of {slug} with a single-figure claim was regenerated in profile {PROFILE}")
