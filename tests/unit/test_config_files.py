"""Every YAML file goes through one bounded loader (repro.config_files): an alias bomb, an oversized file or a
recursive alias is refused at once with one paragraph naming the file and what is allowed (issue 26)."""

from __future__ import annotations

import time

import pytest

from repro import config_files
from repro import experiment as ex
from repro import registry
from repro.errors import ConfigError


def billion_laughs(levels: int = 10) -> str:
    parts = ['&a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    parts += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "profile_note: [" + ", ".join(parts) + "]\n"


def test_alias_bomb_in_a_user_profile_file_is_refused_quickly(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRO_ROOT", str(tmp_path))
    user = tmp_path / "config" / "profiles" / "smoke" / "age_dp.yaml"
    user.parent.mkdir(parents=True)
    user.write_text(billion_laughs())
    start = time.monotonic()
    with pytest.raises(ConfigError) as err:
        ex.load_params("age_dp", "smoke")
    assert time.monotonic() - start < 10
    msg = str(err.value)
    assert str(user) in msg and "alias" in msg and f"at most {config_files.MAX_NODES} values" in msg
    assert "\n" not in msg


def test_oversized_file_is_refused_without_reading_it_whole(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * (config_files.MAX_BYTES + 10) + "\n")
    with pytest.raises(ConfigError, match=r"larger than \d+ bytes; allowed: a YAML file of at most"):
        config_files.load_yaml_file(big)


def test_recursive_alias_and_deep_nesting_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="refers to the value containing it"):
        config_files.load_yaml_text("a: &x [1, *x]\n")
    with pytest.raises(ConfigError, match="nested too deeply|not valid YAML"):
        config_files.load_yaml_text("[" * 50_000 + "]" * 50_000)


def test_small_aliases_plain_data_and_empty_files_load(tmp_path):
    assert config_files.load_yaml_text("a: &x {r: [1, 2]}\nb: *x\n") == {"a": {"r": [1, 2]}, "b": {"r": [1, 2]}}
    assert config_files.load_yaml_text("") is None
    with pytest.raises(ConfigError, match="not valid YAML"):
        config_files.load_yaml_text("a: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):  # the safe loader: no Python objects
        config_files.load_yaml_text("a: !!python/object/apply:os.system ['true']\n")
    f = tmp_path / "latin1.yaml"
    f.write_bytes(b"a: \xe9\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        config_files.load_yaml_file(f)


@pytest.mark.parametrize("slug", registry.slugs())
def test_every_paper_parameter_and_schema_file_is_within_the_bounds(slug):
    for name in ("paper", "quick", "smoke", "schema"):
        path = ex.params_dir(slug) / f"{name}.yaml"
        if path.exists():
            assert isinstance(config_files.load_yaml_file(path), dict)


def test_no_yaml_file_is_read_around_the_bounded_loader():
    """yaml.safe_load / yaml.load appear nowhere in the package but the loader itself."""
    import re

    pkg = registry.package_dir("age_dp").parents[1]
    offenders = [str(p) for p in pkg.rglob("*.py") if p.name != "config_files.py"
                 and re.search(r"yaml\.(safe_load|load|full_load|unsafe_load)\(", p.read_text())]
    assert not offenders, offenders


def test_data_loaded_by_another_reader_is_checked_on_its_shared_values(tmp_path):
    """The workflow's config comes from Snakemake's own YAML reader (--configfile, --config): an alias bomb there is
    a small graph of shared lists; check_loaded_data refuses it at once, naming the key and the limit (issue 49)."""
    layer = ["lol"] * 9
    for _ in range(9):  # 9**10 values when written out
        layer = [layer] * 9
    start = time.monotonic()
    with pytest.raises(ConfigError) as err:
        config_files.check_loaded_data({"profile": "quick", "papers": layer}, "workflow config")
    assert time.monotonic() - start < 2
    msg = str(err.value)
    assert "'papers'" in msg and f"at most {config_files.MAX_NODES} values" in msg and "\n" not in msg
    deep: list = []
    for _ in range(config_files.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(ConfigError, match=rf"key 'x': nested deeper than {config_files.MAX_DEPTH} levels"):
        config_files.check_loaded_data({"x": deep}, "workflow config")
    loop: list = []
    loop.append(loop)
    with pytest.raises(ConfigError, match="contains itself"):
        config_files.check_loaded_data({"x": loop}, "workflow config")
    with pytest.raises(ConfigError, match=r"key 'note': .* characters of text"):
        config_files.check_loaded_data({"note": ["x" * 1000] * 2000}, "workflow config")
    shared = {"cpu": "cpu", "gpu": "gpu"}
    config_files.check_loaded_data({"profile": "quick", "papers": "all", "a": shared, "b": shared}, "workflow config")
