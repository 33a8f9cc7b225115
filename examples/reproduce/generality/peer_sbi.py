"""Train the sbi package's NPE on the simulations examples/reproduce/generality wrote.

Usage: python3 peer_sbi.py DIR [PATTERN [SAMPLES]]

For every DIR/<problem>_<N>_s<seed>_sims.csv (θ columns, then the release,
with a header), trains sbi v0.22's SNPE with density_estimator="nsf" and
its default training settings on those N pairs (torch seeded with the
cell's seed), draws SAMPLES (default 2000) posterior draws at each of the
problem's observations (DIR/<problem>_obs.csv) and writes them as
DIR/<problem>_<N>_s<seed>_sbi_o<k>.csv, its log density (normalised for
leakage, as sbi's log_prob does) at the first SAMPLES reference draws
(DIR/<problem>_ref_o<k>.csv) as DIR/<problem>_<N>_s<seed>_sbi_logq_o<k>.csv,
and the training time in
DIR/<problem>_<N>_s<seed>_sbi_time.txt ("train_s=… cpu_s=… epochs=…": wall
and process CPU seconds of the training). The prior is read from
DIR/<problem>_prior.json (a box: BoxUniform; a normal: MultivariateNormal).
Cells whose time file exists are skipped, so the script can be stopped and
run again. PATTERN (a glob, default "*") restricts the cells, e.g.
"uniform10_10000_s*". examples/reproduce/generality then scores the draws with the
same C2ST as its own.

torch and its BLAS run on one thread: the variables below are set before
torch is imported (torch.set_num_threads alone does not stop OpenBLAS's
own threads); compare with our side run with GOMAXPROCS=1.
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import glob, json, re, sys, tempfile, time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sbi.inference import SNPE  # noqa: E402
from sbi.utils import BoxUniform  # noqa: E402
from torch.utils.tensorboard.writer import SummaryWriter  # noqa: E402


def prior(spec):
    d = spec["dim"]
    if spec["kind"] == "box":
        return BoxUniform(low=spec["low"] * torch.ones(d), high=spec["high"] * torch.ones(d))
    return torch.distributions.MultivariateNormal(torch.zeros(d), spec["sd"] ** 2 * torch.eye(d))


def main():
    out = sys.argv[1]
    pattern = sys.argv[2] if len(sys.argv) > 2 else "*"
    samples = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    torch.set_num_threads(1)
    for path in sorted(glob.glob(os.path.join(out, pattern + "_sims.csv"))):
        m = re.match(r"(.+)_(\d+)_s(\d+)_sims\.csv$", os.path.basename(path))
        if not m:
            continue
        name, n, seed = m.group(1), int(m.group(2)), int(m.group(3))
        base = os.path.join(out, f"{name}_{n}_s{seed}")
        if os.path.exists(base + "_sbi_time.txt"):
            continue
        with open(os.path.join(out, f"{name}_prior.json")) as f:
            spec = json.load(f)
        d = spec["dim"]
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        theta = torch.tensor(data[:, :d], dtype=torch.float32)
        x = torch.tensor(data[:, d:], dtype=torch.float32)
        obs = np.loadtxt(os.path.join(out, f"{name}_obs.csv"), delimiter=",", skiprows=1, ndmin=2)
        torch.manual_seed(seed)
        inf = SNPE(prior=prior(spec), density_estimator="nsf", show_progress_bars=False,
                   summary_writer=SummaryWriter(tempfile.mkdtemp()))
        t0, c0 = time.perf_counter(), time.process_time()
        net = inf.append_simulations(theta, x).train()
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        post = inf.build_posterior(net)
        names = ",".join(f"theta[{j}]" for j in range(d))
        for k in range(obs.shape[0]):
            xo = torch.tensor(obs[k].reshape(1, -1), dtype=torch.float32)
            s = post.sample((samples,), x=xo, show_progress_bars=False).numpy()
            np.savetxt(f"{base}_sbi_o{k + 1}.csv", s, delimiter=",", header=names, comments="")
            # log q(θ | x) at the reference draws (normalised for leakage), for the KL.
            ref = np.loadtxt(os.path.join(out, f"{name}_ref_o{k + 1}.csv"), delimiter=",", skiprows=1, ndmin=2)[:samples]
            lq = post.log_prob(torch.tensor(ref, dtype=torch.float32), x=xo).numpy()
            np.savetxt(f"{base}_sbi_logq_o{k + 1}.csv", lq, delimiter=",", header="logq", comments="")
        epochs = inf._summary["epochs_trained"][-1]
        with open(base + "_sbi_time.txt", "w") as f:
            f.write(f"train_s={secs:.2f} cpu_s={cpu:.2f} epochs={epochs}\n")
        print(f"{name} {n} s{seed}: train_s={secs:.1f} cpu_s={cpu:.1f} epochs={epochs}", flush=True)


if __name__ == "__main__":
    main()
