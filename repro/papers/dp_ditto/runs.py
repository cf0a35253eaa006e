"""Training runs of the DP-Ditto paper: data, DP-Ditto and the DP-perturbed baselines, metrics.

Decisions where the paper is silent are listed in this paper's README (items D1-D33); the ones that
shape a run are cited where they act.
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np
import torch

from repro.experiment import RunContext, RunSpec, is_pending, unavailable_result
from repro.papers.dp_ditto import theory as th

REDUCED_CNN = {"conv1": 8, "conv2": 16, "hidden": 64}
METRICS = ("accuracy", "accuracy_unweighted", "loss", "fairness", "fairness_std")


@functools.lru_cache(maxsize=8)
def _client_arrays(dataset: str, partition: str, num_clients: int, classes_per_client: int, alpha: float,
                   partition_seed: int, test_fraction: float, train_per_client, test_per_client, subsample_seed: int,
                   val_per_client):
    """Per client ``(train_x, train_y, eval_x, eval_y, split_size)``: the client's paper-profile split
    (D9) subsampled to ``train_per_client`` / ``test_per_client`` samples (D24), and the size of the whole
    training split (the |D_n| of eq. (7) in the paper profile, D6). With ``val_per_client`` the evaluation
    set is a validation set held out of the training split, disjoint from the training samples (the
    baselines' tuning sweep, D32), instead of the test split."""
    from repro.data.federated import federated_dataset

    if partition == "pathological":
        spec = {"scheme": "pathological", "num_clients": num_clients, "classes_per_client": classes_per_client,
                "test_fraction": test_fraction}
    elif partition == "dirichlet":
        spec = {"scheme": "dirichlet", "num_clients": num_clients, "alpha": alpha, "test_fraction": test_fraction}
    else:
        raise ValueError(f"unknown partition {partition!r}; allowed: pathological, dirichlet")
    fd = federated_dataset(dataset, spec, seed=partition_seed)
    rng = np.random.default_rng(subsample_seed)
    out = []
    for i in range(num_clients):
        xtr, ytr = fd.client_train(i)
        xte, yte = fd.client_test(i)
        split_size = len(ytr)
        keep = np.arange(split_size)
        if train_per_client is not None:
            keep = np.sort(rng.choice(split_size, size=min(int(train_per_client), split_size), replace=False))
        if test_per_client is not None:
            k = rng.choice(len(yte), size=min(int(test_per_client), len(yte)), replace=False)
            xte, yte = xte[np.sort(k)], yte[np.sort(k)]
        if val_per_client is not None:
            rest = np.setdiff1d(np.arange(split_size), keep)
            vrng = np.random.default_rng([subsample_seed, 1, i])
            if train_per_client is None:  # whole split trains: hold the validation samples out of it
                val = np.sort(vrng.choice(split_size, size=min(int(val_per_client), split_size // 2), replace=False))
                keep = np.setdiff1d(keep, val)
            else:
                val = np.sort(vrng.choice(rest, size=min(int(val_per_client), len(rest)), replace=False))
            xte, yte = xtr[val], ytr[val]
        out.append((xtr[keep], ytr[keep], xte, yte, split_size))
    return out


def load_clients(p: dict, device="cpu"):
    """(train ClientData, evaluation ClientData, training-split sizes [N]) for the run params ``p``;
    raises ``DatasetUnavailableError``. The evaluation data is the test split, or the held-out validation
    set when ``p["eval_split"] == "validation"``."""
    from repro.engine.data import ClientData, normalize_images

    val = p.get("val_per_client") if p.get("eval_split", "test") == "validation" else None
    arrays = _client_arrays(p["dataset"], p["partition"], int(p["num_clients"]), int(p["classes_per_client"]),
                            float(p["dirichlet_alpha"]), int(p["partition_seed"]), float(p["test_fraction"]),
                            p["train_per_client"], p["test_per_client"], int(p["subsample_seed"]), val)
    flat = p["model"] in ("mlr", "dnn")

    def build(xs, ys):
        xt = [normalize_images(x) for x in xs]
        if flat:
            xt = [x.reshape(x.shape[0], -1) for x in xt]
        elif xt[0].dim() == 3:  # [M, H, W] -> [M, 1, H, W]
            xt = [x.unsqueeze(1) for x in xt]
        return ClientData.from_client_arrays(xt, ys, device=device)

    train = build([a[0] for a in arrays], [a[1] for a in arrays])
    test = build([a[2] for a in arrays], [a[3] for a in arrays])
    return train, test, [int(a[4]) for a in arrays]


def client_label_sets(p: dict) -> list[frozenset]:
    """The set of labels each client's training samples cover (to say which clients hold similar data)."""
    val = p.get("val_per_client") if p.get("eval_split", "test") == "validation" else None
    arrays = _client_arrays(p["dataset"], p["partition"], int(p["num_clients"]), int(p["classes_per_client"]),
                            float(p["dirichlet_alpha"]), int(p["partition_seed"]), float(p["test_fraction"]),
                            p["train_per_client"], p["test_per_client"], int(p["subsample_seed"]), val)
    return [frozenset(np.unique(a[1]).tolist()) for a in arrays]


def build_model(p: dict):
    from repro.models import build_model as bm

    if p["model"] == "cnn":
        in_ch, size = (3, 32) if p["dataset"] == "cifar10" else (1, 28)
        kw = dict(REDUCED_CNN) if p["cnn"] == "reduced" else {}
        return bm("cnn", in_channels=in_ch, image_size=size, **kw)
    return bm(p["model"])


def personal_metrics(model, theta: torch.Tensor, train, test) -> dict:
    """For N personalised models ``[N, P]``: test accuracy (sample-weighted and plain mean over clients),
    training loss (sample-weighted), fairness = population variance over clients of the training losses
    (Definition 1, eq. (20); D12) and its square root. Non-finite values become NaN."""
    from repro.engine.train import evaluate

    with torch.no_grad():
        ev_te = evaluate(model, theta, test)
        ev_tr = evaluate(model, theta, train)
    acc = ev_te.accuracy.double()
    cnt_te, cnt_tr = ev_te.count.double(), ev_tr.count.double()
    losses = ev_tr.loss.double()
    finite = bool(torch.isfinite(losses).all()) and bool(torch.isfinite(theta).all())

    def clean(x):
        x = float(x)
        return x if math.isfinite(x) else float("nan")

    if not finite:
        acc = torch.where(torch.isfinite(theta).all(1), acc, torch.zeros_like(acc))
    return {
        "accuracy": clean((acc * cnt_te).sum() / cnt_te.sum()),
        "accuracy_unweighted": clean(acc.mean()),
        "loss": clean((losses * cnt_tr).sum() / cnt_tr.sum()) if finite else float("nan"),
        "fairness": clean(losses.var(unbiased=False)) if finite else float("nan"),
        "fairness_std": clean(losses.std(unbiased=False)) if finite else float("nan"),
    }


def dp_sample_sizes(p: dict, held: list[int], split: list[int]) -> list[int]:
    """|D_n| entering Delta s = 2C/|D_n| (eq. (7)): the client's whole training split (``split``: the paper
    profile's |D_n|, so a profile that trains on a subsample keeps the paper's noise, D6) or the samples
    it trains on (``held``)."""
    if p["dp_sample_size"] == "split":
        return list(split)
    if p["dp_sample_size"] == "held":
        return list(held)
    raise ValueError(f"unknown dp_sample_size {p['dp_sample_size']!r}; allowed: split, held")


def sigma_per_client(p: dict, sizes) -> list[float]:
    """Eq. (8) per client: sigma_u = Delta s sqrt(2 T N ln(1/delta)) / (eps N) with Delta s = 2C/|D_n|."""
    eps = float(p["epsilon"])
    if math.isinf(eps):
        return [0.0] * len(sizes)
    return [th.sigma_u(eps, float(p["delta"]), int(p["T"]), int(p["num_clients"]), float(p["clip"]), int(n)) for n in sizes]


def steps_per_round(held: list[int], batch_size: int, epochs: int, last_batch: str = "partial") -> float:
    """Mean number of SGD steps a client takes per round (one epoch = ceil(|D_n| / B) steps, D1; floor with
    ``last_batch="drop"``, at least one)."""
    per = (lambda n: math.ceil(n / batch_size)) if last_batch == "partial" else (lambda n: max(1, n // batch_size))
    return float(np.mean([per(n) * epochs for n in held]))


def make_algorithm(task: str, p: dict, model, train, streams, sigma):
    from repro.algorithms.base import FLSetup, dp_upload

    private = not math.isinf(float(p["epsilon"]))
    upload = dp_upload(float(p["clip"]) if private else None, sigma if private else 0.0)  # eqs. (5), (8); D4
    weights = train.sizes.double() if p["aggregation"] == "weighted" else None
    setup = FLSetup(model=model, train=train, streams=streams, lr=float(p["lr"]), batch_size=int(p["batch_size"]),
                    local_epochs=int(p["local_epochs"]), upload=upload, weights=weights,
                    last_batch=p.get("last_batch", "partial"))
    if task == "ditto":
        from repro.algorithms.ditto import Ditto

        return Ditto(setup, p["lambdas"])
    algo, hp = p["algorithm"], p["hp"]
    if algo == "pfedme":
        from repro.algorithms.pfedme import PFedMe

        return PFedMe(setup, lam=hp["lam"], inner_steps=hp["inner_steps"], personal_lr=hp["personal_lr"], beta=hp["beta"])
    if algo == "apple":
        from repro.algorithms.apple import Apple

        return Apple(setup, lr_p=hp["lr_p"], mu=hp["mu"], L=hp["L"], total_rounds=int(p["T"]), p_grad=hp["p_grad"])
    if algo == "fedamp":
        from repro.algorithms.fedamp import FedAMP

        return FedAMP(setup, alpha_k=hp["alpha_k"], sigma=hp["sigma"], scale=hp["scale"], prox=hp["prox"],
                      own=hp.get("own", "local"))
    if algo == "fedala":
        from repro.algorithms.fedala import FedALA

        return FedALA(setup, eta_w=hp["eta_w"], rand_percent=hp["rand_percent"], layer_idx=hp["layer_idx"],
                      threshold=hp["threshold"], num_pre_loss=hp["num_pre_loss"],
                      start_phase_max_epochs=hp["start_phase_max_epochs"])
    raise ValueError(f"unknown algorithm {algo!r}; allowed: pfedme, apple, fedamp, fedala")


def attention_summary(algo, state, label_sets: list[frozenset]) -> dict:
    """FedAMP's message passing, averaged over the aggregations: mean self-weight xi_ii, and the weight a
    client gives to peers holding the same label set vs the others (summed over peers, averaged over clients)."""
    xi = algo.mean_attention(state).cpu().numpy()
    n = len(label_sets)
    same = np.array([[label_sets[i] == label_sets[j] and i != j for j in range(n)] for i in range(n)])
    other = ~same & ~np.eye(n, dtype=bool)
    return {"mean_self_weight": float(np.mean(np.diag(xi))), "same_group_weight": float((xi * same).sum(1).mean()),
            "other_group_weight": float((xi * other).sum(1).mean()), "rescaled_rows": int(state.info.get("rescaled_rows", 0))}


def run_training(task: str, p: dict, streams, ctx: RunContext) -> dict:
    """One DP-Ditto (``task="ditto"``) or baseline training; metrics of every personalised model set after
    round T, and after every round for the lambdas listed in ``per_round`` (D14)."""
    from repro.data import DatasetUnavailableError
    from repro.data.errors import unavailable_reason

    try:
        train, test, split = load_clients(p, ctx.device)
    except DatasetUnavailableError as e:
        ctx.log(str(e))
        return unavailable_result(unavailable_reason(p["dataset"], e))
    model = build_model(p)
    theta0 = model.init(streams.torch("init"), rows=1, device=ctx.device)[0]
    held = train.sizes.tolist()
    if p.get("one_step_per_round"):  # Algorithm 1 as printed (lines 5, 10): one batch = the largest client's set
        p = {**p, "batch_size": max(held), "local_epochs": 1}
    sigma = sigma_per_client(p, dp_sample_sizes(p, held, split))
    algo = make_algorithm(task, p, model, train, streams, sigma)
    state = algo.init(theta0)
    T = int(p["T"])
    names = [f"{float(l):g}" for l in p["lambdas"]] if task == "ditto" else ["personalized"]
    tracked = {f"{float(l):g}" for l in (p.get("per_round") or [])} if task == "ditto" else set()
    series = {n: {"round": [], **{k: [] for k in METRICS}} for n in names}
    t0 = time.perf_counter()
    for t in range(T):
        state = algo.round(state, t)
        due = [i for i, n in enumerate(names) if n in tracked or t == T - 1]
        if due:
            pers = algo.personalized(state)
            pers = pers if pers.dim() == 3 else pers.unsqueeze(0)
            for i in due:
                series[names[i]]["round"].append(t + 1)
                for k, v in personal_metrics(model, pers[i], train, test).items():
                    series[names[i]][k].append(v)
        if due or (t + 1) % 10 == 0:
            shown = next((n for n in names if series[n]["accuracy"]), None)  # a series evaluated so far, if any
            acc = f"{shown} acc={series[shown]['accuracy'][-1]:.4f}" if shown else "not evaluated before the last round"
            ctx.log(f"round {t + 1}/{T}: {acc} ({time.perf_counter() - t0:.1f}s)")
    info = {k: v for k, v in (getattr(state, "info", {}) or {}).items() if isinstance(v, (int, float, str))}
    if task != "ditto" and p["algorithm"] == "fedamp":
        info.update(attention_summary(algo, state, client_label_sets(p)))
    return {"status": "ok", "task": task, "series": series,
            "sigma_u": [float(x) for x in sigma], "sigma_u_mean": float(np.mean(sigma)), "dp_samples_mean": float(np.mean(dp_sample_sizes(p, held, split))),
            "train_sizes": held, "split_sizes": split, "num_params": model.num_params,
            "steps_per_round": steps_per_round(held, int(p["batch_size"]), int(p["local_epochs"]), p.get("last_batch", "partial")), "batch_size": int(p["batch_size"]),
            "info": info, "train_seconds": time.perf_counter() - t0}


def run_batch(spec: RunSpec, ctx: RunContext) -> dict:
    """All jobs of a ``ditto_batch`` / ``baseline_batch`` run in one process (data loaded once, cached).

    Each job is ``run_training`` with the batch's common params plus the job's (epsilon, clip, T[, lambdas,
    per_round | algorithm, hp]); the result is ``{"status": "ok", "jobs": {key: result}}``, or the
    unavailable result when the dataset is missing."""
    task = {"ditto_batch": "ditto", "baseline_batch": "baseline"}[spec.task]
    common = {k: v for k, v in spec.params.items() if k != "jobs"}
    out, t0 = {}, time.perf_counter()
    total_rounds, done_rounds = sum(int(j["T"]) for j in spec.params["jobs"]), 0
    for job in spec.params["jobs"]:
        p = dict(common)
        p.update({k: v for k, v in job.items() if k != "key"})
        # every job restarts the seed's streams (D23), so a finished job is kept and an interrupted batch resumes
        res = ctx.resumable(str(job["key"]), {"task": task, "seed": spec.seed, **p},
                            lambda p=p: run_training(task, p, ctx.streams(spec), ctx))
        if is_pending(res):  # a helper process (repro run --helper): another process computes this job
            continue
        if res.get("status") != "ok":
            return res
        out[job["key"]] = res
        done_rounds += int(job["T"])
        ctx.progress(done_rounds, total_rounds, f"job {job['key']} done ({res['train_seconds']:.1f}s); rounds of the batch")
    return {"status": "ok", "task": spec.task, "jobs": out}


# ---------------------------------------------------------------------------------------------- tasks
# (experiments.TASKS): fn(spec, ctx) -> JSON-able dict


batch = run_batch  # ditto_batch and baseline_batch
