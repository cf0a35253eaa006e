# Regenerate every figure, table and claim check of the five papers.
#   snakemake -j8 all                                   # default profile: quick
#   snakemake -j8 all --config profile=paper device=cuda
#   snakemake figures/quick/dp_ditto/fig3.pdf           # one figure and only what it needs
#   snakemake --report report.html                      # HTML report with every figure and the claims
from snakemake.utils import min_version, validate

min_version("8.0")

configfile: "config/config.yaml"
validate(config, "config/config.schema.yaml")

include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/papers.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        all_targets(config["profile"], config["papers"]),
    default_target: True
