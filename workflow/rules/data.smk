# Datasets: obtained and verified once (cache, mirror, system copy, or download).
# A dataset that cannot be had (CIFAR-10 offline) yields a status file saying so: the runs that need
# it return "unavailable", their panels are marked, and their claims are "not evaluated".

rule dataset_status:
    output:
        "data/status/{dataset}.json",
    wildcard_constraints:
        dataset=r"[a-z0-9_\-]+",
    log:
        "logs/data/{dataset}.log",
    shell:
        REPRO + " data fetch {wildcards.dataset} --allow-missing --status-json {output} 2> {log}"
