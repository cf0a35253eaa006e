"""Training runs of the DP-Ditto paper: data (guide §7), DP-Ditto / baselines, metrics (guide §2.5)."""

from __future__ import annotations

import functools
import math
import time

import numpy as np
import torch

from repro.experiment import RunContext, RunSpec, unavailable_result
from repro.papers.dp_ditto import theory as th

REDUCED_CNN = {"conv1": 8, "conv2": 16, "hidden": 64}


@functools.lru_cache(maxsize=8)
def _client_arrays(dataset: str, partition: str, num_clients: int, classes_per_client: int, alpha: float,
                   partition_seed: int, test_fraction: float, train_per_client, test_per_client, subsample_seed: int):
    """Per-client (train_x, train_y, test_x, test_y) numpy arrays (guide §7); cached per process."""
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
        if train_per_client is not None:
            k = rng.choice(len(ytr), size=min(int(train_per_client), len(ytr)), replace=False)
            xtr, ytr = xtr[np.sort(k)], ytr[np.sort(k)]
        if test_per_client is not None:
            k = rng.choice(len(yte), size=min(int(test_per_client), len(yte)), replace=False)
            xte, yte = xte[np.sort(k)], yte[np.sort(k)]
        out.append((xtr, ytr, xte, yte))
    return out


def load_clients(p: dict, device="cpu"):
    """(train ClientData, test ClientData) for the run params ``p``; raises DatasetUnavailableError."""
    from repro.engine.data import ClientData

    arrays = _client_arrays(p["dataset"], p["partition"], int(p["num_clients"]), int(p["classes_per_client"]),
                            float(p["dirichlet_alpha"]), int(p["partition_seed"]), float(p["test_fraction"]),
                            p["train_per_client"], p["test_per_client"], int(p["subsample_seed"]))
    flat = p["model"] in ("mlr", "dnn")

    def build(xs, ys):
        from repro.engine.data import normalize_images

        xt = [normalize_images(x) for x in xs]
        if flat:
            xt = [x.reshape(x.shape[0], -1) for x in xt]
        elif xt[0].dim() == 3:  # [M, H, W] -> [M, 1, H, W]
            xt = [x.unsqueeze(1) for x in xt]
        return ClientData.from_client_arrays(xt, ys, device=device)

    train = build([a[0] for a in arrays], [a[1] for a in arrays])
    test = build([a[2] for a in arrays], [a[3] for a in arrays])
    return train, test


def build_model(p: dict):
    from repro.models import build_model as bm

    if p["model"] == "cnn":
        in_ch, size = (3, 32) if p["dataset"] == "cifar10" else (1, 28)
        kw = dict(REDUCED_CNN) if p["cnn"] == "reduced" else {}
        return bm("cnn", in_channels=in_ch, image_size=size, **kw)
    return bm(p["model"])


def personal_metrics(model, theta: torch.Tensor, train, test) -> dict:
    """Guide §2.5 for N personalised models ``[N, P]``: accuracy (sample-weighted and plain mean),
    training loss (sample-weighted), fairness = population variance of per-client training losses
    (Def. 1, eq. (20)) and its std. Non-finite values become NaN."""
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


def _sigma_u(p: dict, sizes) -> list[float]:
    """Eq. (8) per client with the client's actual training size (D6)."""
    eps = float(p["epsilon"])
    return [th.sigma_u(eps, float(p["delta"]), int(p["T"]), int(p["num_clients"]), float(p["clip"]), int(n)) for n in sizes]


def make_algorithm(spec: RunSpec, model, train, streams):
    from repro.algorithms.ditto import DPUpload, PFLSetup

    p = spec.params
    sizes = train.sizes.tolist()
    private = not math.isinf(float(p["epsilon"]))
    sig = _sigma_u(p, sizes) if private else [0.0] * len(sizes)
    upload = DPUpload(float(p["clip"]) if private else None, sig, len(sizes), streams)
    weights = train.sizes.double() if p["aggregation"] == "weighted" else None
    setup = PFLSetup(model=model, train=train, streams=streams, lr=float(p["lr"]), batch_size=int(p["batch_size"]),
                     local_epochs=int(p["local_epochs"]), upload=upload, weights=weights)
    if spec.task == "ditto":
        from repro.algorithms.ditto import Ditto

        return Ditto(setup, p["lambdas"]), sig
    algo, hp = p["algorithm"], p["hp"]
    if algo == "pfedme":
        from repro.algorithms.pfedme import PFedMe

        return PFedMe(setup, lam=hp["lam"], inner_steps=hp["inner_steps"], personal_lr=hp["personal_lr"], beta=hp["beta"]), sig
    if algo == "apple":
        from repro.algorithms.apple import Apple

        return Apple(setup, lr_p=hp["lr_p"], mu=hp["mu"], L=hp["L"], total_rounds=int(p["T"]),
                     p_grad=hp.get("p_grad", "inner")), sig
    if algo == "fedamp":
        from repro.algorithms.fedamp import FedAMP

        return FedAMP(setup, alpha_k=hp["alpha_k"], lam=hp["lam"], sigma=hp["sigma"]), sig
    if algo == "fedala":
        from repro.algorithms.fedala import FedALA

        return FedALA(setup, eta_w=hp["eta_w"], rand_percent=hp["rand_percent"], layer_idx=hp["layer_idx"],
                      threshold=hp["threshold"], num_pre_loss=hp["num_pre_loss"],
                      start_phase_max_epochs=hp["start_phase_max_epochs"]), sig
    raise ValueError(f"unknown algorithm {algo!r}; allowed: pfedme, apple, fedamp, fedala")


def run_training(spec: RunSpec, ctx: RunContext) -> dict:
    """One DP-Ditto or baseline training; metrics after round T (and after every round if ``per_round``)."""
    from repro.data import DatasetUnavailableError

    p = spec.params
    try:
        train, test = load_clients(p, ctx.device)
    except DatasetUnavailableError as e:
        return unavailable_result(f"dataset {p['dataset']} not available: {str(e).splitlines()[0][:200]}")
    streams = ctx.streams(spec)
    model = build_model(p)
    theta0 = model.init(streams.torch("init"), rows=1, device=ctx.device)[0]
    algo, sig = make_algorithm(spec, model, train, streams)
    state = algo.init(theta0)
    T = int(p["T"])
    per_round = bool(p.get("per_round", False))
    names = [f"{float(l):g}" for l in p["lambdas"]] if spec.task == "ditto" else ["personalized"]
    series = {n: {k: [] for k in ("accuracy", "accuracy_unweighted", "loss", "fairness", "fairness_std")} for n in names}
    rounds, t0 = [], time.perf_counter()
    for t in range(T):
        state = algo.round(state, t)
        if per_round or t == T - 1:
            pers = algo.personalized(state)
            pers = pers if pers.dim() == 3 else pers.unsqueeze(0)
            for n, theta in zip(names, pers):
                m = personal_metrics(model, theta, train, test)
                for k, v in m.items():
                    series[n][k].append(v)
            rounds.append(t + 1)
        if per_round or t == T - 1 or (t + 1) % 10 == 0:
            s0 = series[names[0]]
            ctx.log(f"round {t + 1}/{T}: {names[0]} acc={s0['accuracy'][-1] if s0['accuracy'] else float('nan'):.4f} "
                    f"({time.perf_counter() - t0:.1f}s)")
    info = getattr(state, "info", {}) or {}
    return {"status": "ok", "task": spec.task, "eval_rounds": rounds, "series": series,
            "sigma_u_mean": float(np.mean(sig)), "train_sizes": train.sizes.tolist(), "num_params": model.num_params,
            "info": {k: v for k, v in info.items() if isinstance(v, (int, float, str))},
            "train_seconds": time.perf_counter() - t0}


def run_batch(spec: RunSpec, ctx: RunContext) -> dict:
    """All jobs of a ``ditto_batch`` / ``baseline_batch`` run in one process (data loaded once, cached).

    Each job is the training of ``run_training`` with the batch's common params plus the job's
    (epsilon, clip, T[, lambdas, per_round]); the result is ``{"status": "ok", "jobs": {key: result}}``,
    or the unavailable result when the dataset is missing."""
    task = {"ditto_batch": "ditto", "baseline_batch": "baseline"}[spec.task]
    common = {k: v for k, v in spec.params.items() if k != "jobs"}
    out, t0 = {}, time.perf_counter()
    for job in spec.params["jobs"]:
        p = dict(common)
        p.update({k: v for k, v in job.items() if k != "key"})
        res = run_training(RunSpec(spec.paper, task, p, spec.seed), ctx)
        if res.get("status") != "ok":
            return res
        out[job["key"]] = res
        ctx.log(f"job {job['key']} done ({res['train_seconds']:.1f}s; batch {time.perf_counter() - t0:.1f}s)")
    return {"status": "ok", "task": spec.task, "jobs": out}


# ---------------------------------------------------------------------------------------------- tasks
# (experiments.TASKS): fn(spec, ctx) -> JSON-able dict


def fig2(spec: RunSpec, ctx: RunContext) -> dict:
    """The analytic curves of Fig. 2 (Theorem 1)."""
    from repro.papers.dp_ditto.analytic import fig2_curves

    return fig2_curves(spec.params)


batch = run_batch  # ditto_batch and baseline_batch
