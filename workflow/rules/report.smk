# The claims table of every paper, and the HTML report (snakemake --report report.html).

report: "../report/workflow.rst"


rule claims_table:
    input:
        lambda wc: [f"results/{wc.profile}/{slug}/claims.json" for slug in config["papers"]],
    output:
        report("figures/{profile}/claims.md", category="Claims", caption="../report/claims.rst"),
    shell:
        "repro claims --profile {wildcards.profile} --write > /dev/null || test -s {output}"
