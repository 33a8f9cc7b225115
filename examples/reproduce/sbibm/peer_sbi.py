"""Train the sbi package's NPE on the simulations examples/reproduce/sbibm wrote.

Usage: python3 peer_sbi.py DIR [SEED [PATTERN [THREADS]]]

For every DIR/<task>_<N>_sims.csv (θ columns, then x columns, with a
header), trains sbi v0.22's SNPE with density_estimator="nsf" and its
default training settings on those N pairs, draws 10,000 posterior samples
at each of the benchmark's ten observations (read from $PRIVINFER_SBIBM,
else $PRIVINFER_SHARED/sbibm, else ../shared/sbibm next to the repository)
and writes them as DIR/<task>_<N>_sbi_o<k>.csv, with the training time in
DIR/<task>_<N>_sbi_time.txt ("train_s=… cpu_s=… epochs=…": wall and
process CPU seconds of the training). examples/reproduce/sbibm -peer DIR
then scores them with the same C2ST as its own posteriors. PATTERN (a
glob, default "*") restricts the files, e.g. "two_moons_1000". Torch runs
on THREADS threads (default 1, the number examples/reproduce/sbibm's CPU comparison
assumes: run it with GOMAXPROCS=1; on more threads torch's CPU time
includes the threads' waiting). sbi, torch and their dependencies are not
part of this module.
"""
import glob, os, re, sys, tempfile, time

import numpy as np
import torch
from sbi.inference import SNPE
from sbi.utils import BoxUniform
from torch.utils.tensorboard.writer import SummaryWriter

DIMS = {"two_moons": 2, "gaussian_linear": 10, "slcp": 5, "gaussian_mixture": 2}


def prior(task):
    d = DIMS[task]
    if task == "two_moons":
        return BoxUniform(low=-torch.ones(d), high=torch.ones(d))
    if task == "slcp":
        return BoxUniform(low=-3 * torch.ones(d), high=3 * torch.ones(d))
    if task == "gaussian_mixture":
        return BoxUniform(low=-10 * torch.ones(d), high=10 * torch.ones(d))
    return torch.distributions.MultivariateNormal(torch.zeros(d), 0.1 * torch.eye(d))


def refdir():
    if os.environ.get("PRIVINFER_SBIBM"):
        return os.environ["PRIVINFER_SBIBM"]
    if os.environ.get("PRIVINFER_SHARED"):
        return os.path.join(os.environ["PRIVINFER_SHARED"], "sbibm")
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "..", "shared", "sbibm")


def main():
    out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    pattern = sys.argv[3] if len(sys.argv) > 3 else "*"
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if threads < 1:
        sys.exit(f"THREADS must be at least 1, got {threads}")
    torch.set_num_threads(threads)
    for path in sorted(glob.glob(os.path.join(out, pattern + "_sims.csv"))):
        m = re.match(r"(.+)_(\d+)_sims\.csv$", os.path.basename(path))
        task, n = m.group(1), int(m.group(2))
        d = DIMS[task]
        data = np.loadtxt(path, delimiter=",", skiprows=1)
        theta = torch.tensor(data[:, :d], dtype=torch.float32)
        x = torch.tensor(data[:, d:], dtype=torch.float32)
        torch.manual_seed(seed)
        inf = SNPE(prior=prior(task), density_estimator="nsf", show_progress_bars=False,
                   summary_writer=SummaryWriter(tempfile.mkdtemp()))
        t0, c0 = time.perf_counter(), time.process_time()
        net = inf.append_simulations(theta, x).train()
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        post = inf.build_posterior(net)
        names = ",".join(f"parameter_{j + 1}" for j in range(d))
        for k in range(1, 11):
            obs = os.path.join(refdir(), task, f"num_observation_{k}", "observation.csv")
            xo = torch.tensor(np.loadtxt(obs, delimiter=",", skiprows=1).reshape(1, -1), dtype=torch.float32)
            s = post.sample((10000,), x=xo, show_progress_bars=False).numpy()
            np.savetxt(os.path.join(out, f"{task}_{n}_sbi_o{k}.csv"), s, delimiter=",", header=names, comments="")
        epochs = inf._summary["epochs_trained"][-1]
        with open(os.path.join(out, f"{task}_{n}_sbi_time.txt"), "w") as f:
            f.write(f"train_s={secs:.2f} cpu_s={cpu:.2f} epochs={epochs}\n")
        print(f"{task} {n}: train_s={secs:.1f} cpu_s={cpu:.1f} epochs={epochs}", flush=True)


if __name__ == "__main__":
    main()
