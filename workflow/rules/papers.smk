# One job per run (or per batch of short runs: repro.experiment, "Jobs"), then one job per figure / table, then the
# claims of each paper.


rule run:
    input:
        lambda wc: dataset_flags(wc.profile, wc.slug, wc.run_id),
    output:
        "results/{profile}/{slug}/runs/{run_id}.json",
    log:
        "logs/{profile}/{slug}/{run_id}.log",
    priority: recorded_cpu_seconds
    conda:
        CONDA_ENV
    threads:
        lambda wc: max(
            job_resources(wc.profile, wc.slug, wc.run_id)["threads"],
            config["threads_per_run"],
        )
    resources:
        gpu=lambda wc: run_gpus(wc),
        slurm_partition=lambda wc: slurm_partition(run_gpus(wc)),
        runtime=lambda wc: 240 if wc.profile == "paper" else 30,
        mem_mb=8000,
    params:
        device=config["device"],
    # No --force: Snakemake has removed the old result before the job starts, and --force would also delete
    # <run>.parts/, the finished members of a batch and sub-jobs of a run that an interrupted (or unavailable) earlier
    # execution kept. Without it the job resumes from them, as `repro run` does; `repro run --force` starts over.
    shell:
        f"{REPRO} run {{wildcards.slug}} {{wildcards.run_id}} --profile {{wildcards.profile}}"
        " --device {params.device} --threads {threads} 2> {log}"


rule figure:
    input:
        lambda wc: run_files(wc.profile, wc.slug, wc.fig),
    output:
        pdf="figures/{profile}/{slug}/{fig}.pdf",
        png="figures/{profile}/{slug}/{fig}.png",
        csv="figures/{profile}/{slug}/{fig}.csv",
        md="figures/{profile}/{slug}/{fig}.md",
    log:
        "logs/{profile}/{slug}/{fig}.log",
    conda:
        CONDA_ENV
    resources:
        slurm_partition=slurm_partition(),
    shell:
        f"{REPRO} figure {{wildcards.slug}} {{wildcards.fig}} --profile {{wildcards.profile}} --no-run 2> {{log}}"


rule claims:
    input:
        lambda wc: [
            f"figures/{wc.profile}/{wc.slug}/{fig}.csv"
            for fig in figures_of(wc.profile, wc.slug)
        ],
    output:
        "results/{profile}/{slug}/claims.json",
    log:
        "logs/{profile}/{slug}/claims.log",
    conda:
        CONDA_ENV
    resources:
        slurm_partition=slurm_partition(),
    shell:
        f"{REPRO} evaluate {{wildcards.slug}} --profile {{wildcards.profile}} 2> {{log}}"
