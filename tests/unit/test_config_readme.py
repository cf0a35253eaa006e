"""config/README.md documents every workflow setting (Snakemake workflow-catalog convention), and the
catalog file at the root has the keys the catalog reads."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def settings_table() -> dict[str, list[str]]:
    text = (ROOT / "config" / "README.md").read_text()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\| `([a-z_]+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in re.split(r"(?<!\\)\|", m.group(2))]
    return rows


def test_every_setting_is_in_the_table_with_default_allowed_and_meaning():
    schema = yaml.safe_load((ROOT / "config" / "config.schema.yaml").read_text())
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    rows = settings_table()
    assert set(rows) == set(schema["properties"]) | set(config), (sorted(rows), sorted(schema["properties"]))
    for name, (default, allowed, meaning) in rows.items():
        assert default and allowed and len(meaning) > 40, name
        value = config.get(name)
        if isinstance(value, (str, int)) and value != "":
            assert f"`{value}`" in default, (name, default)
    for name in schema["required"]:
        assert f"`{name}`" in (ROOT / "config" / "README.md").read_text().split("## Settings")[1]
    for choice in schema["properties"]["profile"]["enum"]:
        assert f"`{choice}`" in rows["profile"][1]


def test_readme_says_where_the_snakefile_is():
    text = (ROOT / "config" / "README.md").read_text()
    assert "## Where the Snakefile is" in text and "workflow/Snakefile" in text
    # the catalog's standard layout: the main workflow in workflow/Snakefile (snakemake finds it from the root)
    assert (ROOT / "workflow" / "Snakefile").is_file() and not (ROOT / "Snakefile").exists()
    assert (ROOT / "workflow" / "report" / "Snakefile").is_file()


def test_catalog_file():
    cat = yaml.safe_load((ROOT / ".snakemake-workflow-catalog.yml").read_text())
    usage = cat["usage"]
    assert set(usage["mandatory-flags"]) == {"desc", "flags"}
    deploy = usage["software-stack-deployment"]
    assert set(deploy) <= {"conda", "apptainer", "apptainer+conda", "singularity", "singularity+conda", "report"}
    assert all(isinstance(v, bool) for v in deploy.values())
    assert deploy["conda"] is True and (ROOT / "environment.yml").is_file()
