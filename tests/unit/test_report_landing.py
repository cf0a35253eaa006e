"""The HTML report's landing page: the verdicts of record and the headline claims, as clean reStructuredText."""

import docutils.core

from repro import record, registry


def test_landing_page_shows_the_verdict_table_and_renders_without_system_messages():
    text = record.landing_rst("quick")
    html = docutils.core.publish_parts(text, writer_name="html", settings_overrides={"report_level": 2})["html_body"]
    assert "System Message" not in html and "Undefined substitution" not in html
    assert "Verdicts of record" in html and "Headline claims" in html
    for slug in registry.slugs():
        assert slug in html
    assert "{{" not in text  # Snakemake renders the page through Jinja first
