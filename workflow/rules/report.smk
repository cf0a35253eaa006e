# The reproduction report (figures/<profile>/claims.md: every claim's words, check, measured effect and
# verdict), built by `all`. The HTML report is a workflow of its own, over the figures that exist:
#   snakemake -s workflow/report/Snakefile --cores 2 && snakemake -s workflow/report/Snakefile --report report.html


rule claims_report:
    input:
        lambda wc: [
            f"results/{wc.profile}/{slug}/claims.json" for slug in selected_papers()
        ],
    output:
        "figures/{profile}/claims.md",
    log:
        "logs/{profile}/claims_report.log",
    conda:
        CONDA_ENV
    resources:
        slurm_partition=slurm_partition(),
    shell:
        f"{REPRO} claims --profile {{wildcards.profile}} --write > {{log}} 2>&1"
