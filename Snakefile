# Regenerate every figure, table and claim verdict of the papers in repro/papers/.
#   snakemake --cores 2 all                                # default profile: quick
#   snakemake --cores 8 all --config profile=paper device=cuda
#   snakemake --cores 2 figures/quick/dp_ditto/fig3.pdf    # one figure and only what it needs
#   snakemake -s workflow/report/Snakefile --cores 2 && snakemake -s workflow/report/Snakefile --report report.html
from snakemake.utils import min_version, validate

min_version("8.0")

# Snakemake reads the config file below with an unbounded YAML loader: check it first with the package's bounded
# one, so that an alias bomb or an oversized file is refused in one paragraph instead of hanging the workflow.
from repro.config_files import load_yaml_file
from repro.errors import ConfigError

try:
    load_yaml_file("config/config.yaml", "workflow config file")
except ConfigError as e:
    raise SystemExit(f"repro: error: {e}")


configfile: "config/config.yaml"


validate(config, "config/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/papers.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        all_targets(config["profile"], selected_papers()),
    default_target: True
