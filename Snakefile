# Regenerate every figure, table and claim verdict of the papers in repro/papers/.
#   snakemake --cores 2 all                                # default profile: quick
#   snakemake --cores 8 all --config profile=paper device=cuda
#   snakemake --cores 2 figures/quick/dp_ditto/fig3.pdf    # one figure and only what it needs
#   snakemake -s workflow/report/Snakefile --cores 2 && snakemake -s workflow/report/Snakefile --report report.html
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
        all_targets(config["profile"], selected_papers()),
    default_target: True
