"""Report captions are plain text to docutils: |D_n|, *stars*, `ticks` and line-start markup render as
themselves (12 captions of the HTML report showed "Docutils System Messages ... Undefined substitution
referenced: D_n")."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from docutils.core import publish_parts

from repro.rst import escape

ROOT = Path(__file__).resolve().parents[2]

CAPTIONS = [
    "Privacy as run: sensitivity 2C/|D_n| of one sample; eps *nominal* vs `certified` (RDP).",
    "Profile `quick`: - a dash\n1. a number\n   indented ..  comment\n====\n* star item",
    "ref_ target_ [1]_ :math:`x^2` <http://example.org> |sub| **bold** ``lit`` \\backslash _under",
    ".. note:: not a directive",
    "| a line block\n>>> not doctest",
]


def rendered_text(rst: str) -> str:
    body = publish_parts(rst, writer="html", settings_overrides={"report_level": 1})["body"]
    assert "System Message" not in body and "system-message" not in body, body
    assert body.count("<p>") == 1, body  # one paragraph, no list / section / quote / comment
    return html.unescape(re.sub(r"<[^>]+>", "", body)).strip()


@pytest.mark.parametrize("caption", CAPTIONS)
def test_escaped_caption_renders_as_its_text(caption):
    assert rendered_text(escape(caption)) == " ".join(caption.split())


def test_unescaped_caption_shows_the_system_message():  # the failure this guards against
    body = publish_parts("sensitivity 2C/|D_n| of one sample", writer="html")["body"]
    assert "System Message" in body and "D_n" in body


def test_figure_template_with_an_escaped_caption():
    """figure.rst as Snakemake renders it (Jinja, then docutils) with a caption that needs escaping."""
    from jinja2 import Environment

    template = (ROOT / "workflow" / "report" / "figure.rst").read_text()
    assert "snakemake.params.caption" in template

    class Params:
        caption = escape(CAPTIONS[0])

    class SM:
        params = Params

    rst = Environment(trim_blocks=True, lstrip_blocks=True).from_string(template).render(snakemake=SM)
    body = publish_parts(rst, writer="html")["body"]
    assert "System Message" not in body and "2C/|D_n|" in html.unescape(body)


def test_common_smk_escapes_the_caption():
    smk = "".join((ROOT / "workflow" / "rules" / "common.smk").read_text().split())  # formatter-independent
    assert "rst.escape(rp.figure_caption(" in smk


def test_every_committed_figure_caption_is_one_short_paragraph():
    """A report / gallery caption is a paragraph (title, the profile's note cut short, the verdicts by reason, where the
    rest is), never the figure's whole .md: under 1,000 characters for every committed figure of both profiles."""
    from repro import experiment as ex
    from repro import registry
    from repro import report as rp

    for profile in ("quick", "paper"):
        for slug in registry.slugs():
            claims, params = rp.load_paper_claims(profile, slug), ex.load_params(slug, profile)
            for fig in ex.figure_specs(slug, profile):
                text = rp.figure_caption(profile, slug, fig, claims, params)
                assert len(text) < 1000 and "\n" not in text, (slug, fig.fig_id, len(text))
                assert f"figures/{profile}/{slug}/{fig.fig_id}.md" in text
