"""The HTML report's landing page: the verdicts of record and the headline claims, as clean reStructuredText."""

import docutils.core

from repro import registry, report


def test_landing_page_shows_the_verdict_table_and_renders_without_system_messages():
    text = report.landing_rst("quick")
    html = docutils.core.publish_parts(text, writer_name="html", settings_overrides={"report_level": 2})["html_body"]
    assert "System Message" not in html and "Undefined substitution" not in html
    assert "Verdicts of record" in html and "Headline claims" in html
    for slug in registry.slugs():
        assert slug in html
    assert "{{" not in text  # Snakemake renders the page through Jinja first


def test_landing_page_starts_at_the_top_of_the_screen():
    """Snakemake's report centres the landing page vertically, so a page taller than the screen lost its top (the
    verdict table could not be scrolled to): the intro carries a style that aligns it to the top, and the whole page
    (intro + tables, as Snakemake renders it: Jinja, then docutils) keeps it, with no system message."""
    import jinja2

    from repro import paths

    intro = (paths.project_root() / "workflow" / "report" / "workflow.rst").read_text()

    class Snakemake:
        config = {"profile": "quick"}

    text = jinja2.Environment().from_string(f"{intro}\n{report.landing_rst('quick')}").render(snakemake=Snakemake)
    html = docutils.core.publish_parts(text, writer_name="html", settings_overrides={"report_level": 2})["html_body"]
    assert "System Message" not in html
    assert "div.h-screen.items-center { align-items: flex-start; }" in html
    assert html.index("<style>") < html.index("Verdicts of record") < html.index("Headline claims")
