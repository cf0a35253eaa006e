# The reproduction report (figures/<profile>/claims.md) and the items of the HTML report:
#   snakemake --cores 2 report && snakemake --report report.html report
# Each report item is a copy of a figure whose caption is built from the measured verdicts of the claims
# judged on it (repro.report.figure_caption), never from the paper's claim.

report: "../report/workflow.rst"


rule claims_report:
    input:
        lambda wc: [f"results/{wc.profile}/{slug}/claims.json" for slug in selected_papers()],
    output:
        "figures/{profile}/claims.md",
    log:
        "logs/{profile}/claims_report.log",
    conda:
        CONDA_ENV
    shell:
        f"{REPRO} claims --profile {{wildcards.profile}} --write > {{log}} 2>&1"


rule report_item:
    input:
        png="figures/{profile}/{slug}/{fig}.png",
        claims="results/{profile}/{slug}/claims.json",
    output:
        report("results/{profile}/report/{slug}/{fig}.png", category="{slug}", caption="../report/figure.rst"),
    params:
        caption=figure_caption,
    log:
        "logs/{profile}/{slug}/{fig}.report.log",
    conda:
        CONDA_ENV
    shell:
        "cp {input.png} {output} 2> {log}"


rule report:
    input:
        lambda wc: report_items(config["profile"], selected_papers()),
        report(lambda wc: f"figures/{config['profile']}/claims.md", category="Reproduction report",
               caption="../report/claims.rst"),
    default_target: False
