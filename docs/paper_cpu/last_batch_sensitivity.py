#!/usr/bin/env python3
"""Sensitivity of dp_ditto D1 to the last-batch rule: the seed-0 main batch under 'partial' (committed, a844ebbc0b)
against 'drop' (4196600cae), per finished job: final-round accuracy and fairness (variance of per-client accuracy) per
lambda, and the largest fairness over the rounds (the one-sample event shows there). Run from the project root:
``python docs/paper_cpu/last_batch_sensitivity.py`` (reads the finished jobs of an unfinished batch from its .parts)."""
import glob
import json
old = json.load(open('results/paper/dp_ditto/runs/ditto_batch-a844ebbc0b.json'))['result']['jobs']
new = {}
p = 'results/paper/dp_ditto/runs/ditto_batch-4196600cae'
try:
    new = json.load(open(p + '.json'))['result']['jobs']
except FileNotFoundError:
    for f in glob.glob(p + '.parts/*.json'):
        d = json.load(open(f)); new[d['key']] = d['result']
rows = []
for key in sorted(new, key=lambda k: (k.split('|')[0], int(k.split('T=')[1]))):
    if key not in old:
        continue
    for lam in sorted(new[key]['series'], key=float):
        a, b = old[key]['series'].get(lam), new[key]['series'][lam]
        if not a:
            continue
        fa = a.get('fairness') or a.get('accuracy_var'); fb = b.get('fairness') or b.get('accuracy_var')
        rows.append((key, lam, a['accuracy'][-1], b['accuracy'][-1], fa[-1] if fa else None, fb[-1] if fb else None,
                     max(fa) if fa else None, max(fb) if fb else None))
print(f"{'job':22s} {'lambda':>6s} {'acc partial':>11s} {'acc drop':>9s} {'fair partial':>12s} {'fair drop':>10s} {'max fair p':>10s} {'max fair d':>10s}")
for r in rows:
    print(f"{r[0]:22s} {r[1]:>6s} {r[2]:11.4f} {r[3]:9.4f} " + " ".join(f"{v:10.3g}" if v is not None else "      -   " for v in r[4:]))
