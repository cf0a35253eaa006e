# Datasets: obtained and verified once (cache, mirror, system copy, or download).
# A dataset that cannot be had (CIFAR-10 offline) yields a status file saying so: the runs that need
# it return "unavailable", their panels are marked, and their claims are "not evaluated".
# The status file is an input of those runs and follows the data (common.smk: dataset_flag): once the
# dataset is provided (or lost), exactly the runs that need it rerun.


# Under a cluster executor it runs where snakemake runs (compute nodes often have no internet to download from).
localrules:
    dataset_status,


rule dataset_status:
    input:
        lambda wc: known_dataset(wc.dataset),  # an unknown name: one paragraph naming the datasets
    output:
        "data/status/{dataset}.json",
    log:
        "logs/data/{dataset}.log",
    wildcard_constraints:
        dataset=r"[a-z0-9_\-]+",
    conda:
        CONDA_ENV
    shell:
        f"{REPRO} data fetch {{wildcards.dataset}} --allow-missing --status-json {{output}} 2> {{log}}"
