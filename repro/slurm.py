"""A check made before the workflow submits jobs to SLURM (profiles/slurm): a training run with ``device=cuda`` asks
for one GPU (Snakemake's ``gpu`` resource, a ``gres`` request) on the partition ``slurm_partitions.gpu``; on a
cluster or partition without GPUs ``sbatch`` refuses every such job ("Invalid generic resource (gres)
specification") after the workflow has started. :func:`gpu_request_problem` asks ``sinfo`` first (one call, a few
milliseconds) and says what is wrong in one line; when ``sinfo`` is absent, fails or is slow it says nothing and
``sbatch`` has the last word.
"""

from __future__ import annotations

import re
import shutil
import subprocess

__all__ = ["gpu_request_problem"]

#: a generic resource named gpu in sinfo's %G column ("gpu:a100:4(S:0-1)", "gpu:2", "gpu"), not "(null)"
_GPU_GRES = re.compile(r"(^|,)gpu(:|\(|$)")


def gpu_request_problem(device: str, partition: str, timeout_s: float = 10.0) -> str | None:
    """Why a job asking for a GPU on SLURM partition ``partition`` (for ``device``) cannot be submitted, in one
    line; None when the partition has nodes with a GPU or when ``sinfo`` cannot tell."""
    sinfo = shutil.which("sinfo")
    if sinfo is None:
        return None
    try:
        proc = subprocess.run([sinfo, "--noheader", "--partition", partition, "--format", "%G"], capture_output=True,
                              text=True, timeout=timeout_s)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    gres = sorted({line.strip() for line in proc.stdout.splitlines() if line.strip()})
    fix = (f"allowed: device=cpu, or --config slurm_partitions='{{cpu: ..., gpu: <a partition with GPUs>}}' "
           f"(`sinfo --format '%P %G'` lists each partition's generic resources)")
    if not gres:
        return (f"device={device} asks each training run for one GPU on SLURM partition {partition!r} "
                f"(slurm_partitions.gpu), but `sinfo --partition {partition}` lists no nodes (no such partition); {fix}")
    if not any(_GPU_GRES.search(g) for g in gres):
        return (f"device={device} asks each training run for one GPU on SLURM partition {partition!r} "
                f"(slurm_partitions.gpu), but `sinfo --partition {partition} --format %G` reports no GPU there "
                f"(generic resources: {', '.join(gres)[:200]}), so sbatch would refuse every such job; {fix}")
    return None
