"""Run the sbi package's sequential SNPE-C and SNLE on sbibm tasks.

Usage: python3 peer_sbi_seq.py DIR [--tasks T,..] [--methods snpe,snle]
       [--first-obs 1] [--obs 3] [--rounds 10] [--sims-per-round 1000]
       [--samples 10000] [--seed 1] [--threads 1] [--force]

The peer of `examples/reproduce/sbibm -sequential`. For every task, observation
k = first-obs..obs and method it runs sbi v0.22 for `rounds` rounds of
`sims-per-round` simulations of its own (sequential methods draw each
round's parameters from their own proposal, so the two tools cannot share
simulations) and writes, in the layout examples/reproduce/sbibm reads with -peer DIR:

  DIR/<task>_<method>_<R>x<N>_o<k>_sbi.csv       the final posterior samples
  DIR/<task>_<method>_<R>x<N>_o<k>_sbi_time.txt  "train_cpu_s=… train_wall_s=…
                                                  total_cpu_s=… total_wall_s=…
                                                  epochs=…" (sums over rounds)
  DIR/<task>_<method>_<R>x<N>_o<k>_sbi_sims.csv  every round's simulations:
                                                  round, θ, x per row (for
                                                  training another tool on
                                                  the same pairs)

Existing outputs are kept (a long run can be resumed or split) unless
--force. A cell in progress is also saved after every round
(<…>_sbi_ckpt.pt: the inference object, the proposal, the random states
and the times so far), and a later run continues it from the next round,
so a cell of one or two CPU-hours survives a stopped process; the file is
removed when the cell is written. SNLE's final samples, about an hour of
one core, are drawn in ten calls of a tenth each, the chains continuing
from their states at the end of the previous call ("latest_sample"), and
the cell is saved after each call too: the chains run on, each call
discarding its 25 warm-up steps (225 steps per chain in all that one call
of 10,000 draws would have kept), so the draws come from the same chains
as sbibm's single call. CPU times are the process's (all
threads, time.process_time), summed over the runs that made the cell.
Torch runs on --threads threads (default 1, the number examples/reproduce/sbibm's
CPU comparison assumes: run it with GOMAXPROCS=1). On two threads torch's
CPU time includes the threads' waiting: SNPE on two moons at observation
1 took 982 s of training CPU on one thread and 1,679 s on two.

SNPE is sbi's SNPE_C with density_estimator="nsf" and its default training
(batches of 50, learning rate 5e-4, 10% validation, patience 20, the atomic
loss with 10 atoms from round 2 on; proposal = the last round's posterior,
sampled by rejection inside the prior). SNLE is sbi's SNLE_A with
density_estimator="nsf" (the architecture of our likelihood flow; sbibm ran
"maf") and the same training; its posterior is sampled, for every round's
proposals and for the final samples, with the MCMC settings of sbibm's
SNLE (sbibm/algorithms/sbi/snle.py): slice_np_vectorized, 100 chains, thin
10, 25 warm-up steps, every chain initialised by resampling 10,000 prior
draws by their posterior weight (sbi's "resample", formerly "sir") in
rounds 1-2 and at the final states of the previous round's chains from
round 3 on ("latest_sample"; the states are copied between posteriors by
hand, as sbibm's copy_hyperparameters_from did). sbi's own default (one
slice_np chain) takes minutes per round.

The tasks' simulators follow sbibm's task definitions (two moons, Gaussian
linear in 10-D, SLCP without distractors, Gaussian mixture); observations
are read from $PRIVINFER_SBIBM, else $PRIVINFER_SHARED/sbibm, else
../shared/sbibm next to the repository. sbi, torch and their dependencies
are not part of this module.
"""
import argparse, math, os, sys, tempfile, time

import numpy as np
import torch
from sbi.inference import SNLE, SNPE
from sbi.utils import BoxUniform
from torch.utils.tensorboard.writer import SummaryWriter

TASKS = ["two_moons", "gaussian_linear", "slcp", "gaussian_mixture"]
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


def simulate(task, theta):
    """Simulates one data set per row of theta (n × d float32)."""
    n = theta.shape[0]
    if task == "two_moons":
        a = math.pi * (torch.rand(n) - 0.5)
        r = 0.1 + 0.01 * torch.randn(n)
        z0 = (theta[:, 0] + theta[:, 1]) / math.sqrt(2)
        z1 = (theta[:, 1] - theta[:, 0]) / math.sqrt(2)
        return torch.stack((r * torch.cos(a) + 0.25 - z0.abs(), r * torch.sin(a) + z1), dim=1)
    if task == "gaussian_linear":
        return theta + math.sqrt(0.1) * torch.randn_like(theta)
    if task == "gaussian_mixture":
        sd = torch.where(torch.rand(n) < 0.5, 0.1, 1.0).unsqueeze(1)
        return theta + sd * torch.randn_like(theta)
    # SLCP: four points y_k ~ N(m, S), m = θ[0:2], s1 = θ3², s2 = θ4², ρ = tanh θ5.
    s1, s2, rho = theta[:, 2] ** 2, theta[:, 3] ** 2, torch.tanh(theta[:, 4])
    S = torch.empty(n, 2, 2)
    S[:, 0, 0] = s1**2 + 1e-6
    S[:, 0, 1] = S[:, 1, 0] = rho * s1 * s2
    S[:, 1, 1] = s2**2 + 1e-6
    L = torch.linalg.cholesky(S.double()).float()
    z = torch.randn(n, 4, 2)
    y = theta[:, None, 0:2] + torch.einsum("nij,nkj->nki", L, z)
    return y.reshape(n, 8)


def refdir():
    if os.environ.get("PRIVINFER_SBIBM"):
        return os.environ["PRIVINFER_SBIBM"]
    if os.environ.get("PRIVINFER_SHARED"):
        return os.path.join(os.environ["PRIVINFER_SHARED"], "sbibm")
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "..", "shared", "sbibm")


MCMC = dict(num_chains=100, thin=10, warmup_steps=25, init_strategy="resample",
            init_strategy_parameters={"num_candidate_samples": 10000})


def sample(dist, n):
    """n draws from the prior or from an sbi posterior, without progress bars."""
    if hasattr(dist, "potential_fn"):
        return dist.sample((n,), show_progress_bars=False)
    return dist.sample((n,))


def save_ckpt(path, state):
    """Writes state atomically; the inference object's summary writer (an
    open file) is left out and made anew on load."""
    inf = state["inf"]
    writer, inf._summary_writer = inf._summary_writer, None
    try:
        torch.save(state, path + ".tmp")
        os.replace(path + ".tmp", path)
    finally:
        inf._summary_writer = writer


def load_ckpt(path):
    # Unpickling an sbi inference object opens a default summary writer,
    # which makes an sbi-logs folder in the working directory: load from a
    # scratch directory instead.
    path, cwd = os.path.abspath(path), os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            state = torch.load(path)
        finally:
            os.chdir(cwd)
    state["inf"]._summary_writer = SummaryWriter(tempfile.mkdtemp())
    torch.set_rng_state(state["torch_rng"])
    np.random.set_state(state["np_rng"])
    return state


def run(task, method, xo, rounds, per_round, samples, ckpt):
    """Returns the final samples and the times (sums over rounds), saving
    the cell to ckpt after every round and continuing from it if it
    exists."""
    pr = prior(task)
    c0, w0 = time.process_time(), time.perf_counter()
    if os.path.exists(ckpt):
        st = load_ckpt(ckpt)
        inf, proposal, first = st["inf"], st["proposal"], st["rounds_done"]
        final = st.get("final", [])
        tc, tw, epochs = st["train_cpu_s"], st["train_wall_s"], st["epochs"]
        c0 -= st["total_cpu_s"]
        w0 -= st["total_wall_s"]
        print(f"  continuing after round {first} from {ckpt}", flush=True)
    else:
        writer = SummaryWriter(tempfile.mkdtemp())
        if method == "snpe":
            inf = SNPE(prior=pr, density_estimator="nsf", show_progress_bars=False, summary_writer=writer)
        else:
            inf = SNLE(prior=pr, density_estimator="nsf", show_progress_bars=False, summary_writer=writer)
        tc = tw = 0.0
        epochs = []
        proposal = pr
        first = 0
        final = []

    def save(done):
        # A posterior that has drawn keeps its sampler (for diagnostics
        # only), which does not pickle.
        if hasattr(proposal, "_posterior_sampler"):
            proposal._posterior_sampler = None
        save_ckpt(ckpt, dict(inf=inf, proposal=proposal, rounds_done=done, final=final, train_cpu_s=tc,
                             train_wall_s=tw, epochs=epochs, total_cpu_s=time.process_time() - c0,
                             total_wall_s=time.perf_counter() - w0, torch_rng=torch.get_rng_state(),
                             np_rng=np.random.get_state()))

    for r in range(first, rounds):
        theta = sample(proposal, per_round)
        x = simulate(task, theta)
        c1, w1 = time.process_time(), time.perf_counter()
        if method == "snpe":
            net = inf.append_simulations(theta, x, proposal=proposal).train()
        else:
            net = inf.append_simulations(theta, x, from_round=r).train()
        tc += time.process_time() - c1
        tw += time.perf_counter() - w1
        epochs.append(inf._summary["epochs_trained"][-1])
        if method == "snpe":
            post = inf.build_posterior(net)
        else:
            # sbibm's schedule: chains start by resampling prior draws in
            # rounds 1-2 and from the last round's final states afterwards.
            params = dict(MCMC, init_strategy="latest_sample") if r > 1 else MCMC
            post = inf.build_posterior(net, sample_with="mcmc", mcmc_method="slice_np_vectorized", mcmc_parameters=params)
            if r > 1:
                post._mcmc_init_params = proposal._mcmc_init_params
        proposal = post.set_default_x(xo)
        print(f"  round {r + 1}: {epochs[-1]} epochs, train {tw:.1f}s wall so far", flush=True)
        if r + 1 < rounds or method == "snle":
            save(r + 1)
    if method != "snle":
        s = sample(proposal, samples)
    else:
        # SNLE's final samples in ten calls, saved after each (see the top).
        k = min(10, samples)  # samples ≥ 1 (main checks it)
        chunks = [samples // k + (i < samples % k) for i in range(k)]
        for i in range(len(final), k):
            final.append(sample(proposal, chunks[i]))
            print(f"  final samples: {sum(len(f) for f in final)} of {samples}", flush=True)
            if i < k - 1:
                save(rounds)
        s = torch.cat(final)
    times = dict(train_cpu_s=tc, train_wall_s=tw, total_cpu_s=time.process_time() - c0,
                 total_wall_s=time.perf_counter() - w0)
    # Every round's pairs as appended, from sbi v0.22's inference object (private
    # fields of the pinned version; a resumed cell has them from its checkpoint).
    sims = np.vstack([np.hstack([np.full((len(th), 1), r + 1), th.numpy().astype(np.float64),
                                 x.numpy().astype(np.float64)])
                      for r, (th, x) in enumerate(zip(inf._theta_roundwise, inf._x_roundwise))])
    return s.numpy(), times, epochs, sims


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--methods", default="snpe,snle")
    ap.add_argument("--obs", type=int, default=3)
    ap.add_argument("--first-obs", type=int, default=1, help="first observation to run (the last is --obs)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--sims-per-round", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (CPU times on more than one include waiting)")
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    for name in ("obs", "first_obs", "rounds", "sims_per_round", "samples", "threads"):
        if getattr(a, name) < 1:
            sys.exit(f"--{name.replace('_', '-')} must be at least 1, got {getattr(a, name)}")
    torch.set_num_threads(a.threads)
    os.makedirs(a.dir, exist_ok=True)
    for task in a.tasks.split(","):
        if task not in DIMS:
            sys.exit(f"unknown task {task!r}")
        d = DIMS[task]
        for k in range(a.first_obs, a.obs + 1):
            obs = os.path.join(refdir(), task, f"num_observation_{k}", "observation.csv")
            xo = torch.tensor(np.loadtxt(obs, delimiter=",", skiprows=1).reshape(1, -1), dtype=torch.float32)
            for method in a.methods.split(","):
                if method not in ("snpe", "snle"):
                    sys.exit(f"unknown method {method!r}")
                # The seed depends on the method's name, not on its place in
                # --methods, so that a cell run alone draws what it draws in
                # a run of both methods.
                mi = ("snpe", "snle").index(method)
                base = os.path.join(a.dir, f"{task}_{method}_{a.rounds}x{a.sims_per_round}_o{k}_sbi")
                if os.path.exists(base + "_time.txt") and not a.force:
                    print(f"{task} o{k} {method}: kept {base}_time.txt", flush=True)
                    continue
                torch.manual_seed(a.seed * 1000 + 100 * TASKS.index(task) + 10 * k + mi)
                np.random.seed(a.seed * 1000 + 100 * TASKS.index(task) + 10 * k + mi)
                print(f"{task} o{k} {method}: {a.rounds} rounds x {a.sims_per_round}", flush=True)
                ckpt = base + "_ckpt.pt"
                if a.force and os.path.exists(ckpt):
                    os.remove(ckpt)
                s, t, epochs, sims = run(task, method, xo, a.rounds, a.sims_per_round, a.samples, ckpt)
                names = ",".join(f"parameter_{j + 1}" for j in range(d))
                data = ",".join(f"data_{j + 1}" for j in range(sims.shape[1] - 1 - d))
                np.savetxt(base + "_sims.csv", sims, delimiter=",", header=f"round,{names},{data}", comments="",
                           fmt=["%d"] + ["%.9g"] * (sims.shape[1] - 1))
                np.savetxt(base + ".csv", s, delimiter=",", header=names, comments="")
                line = " ".join(f"{key}={v:.2f}" for key, v in t.items())
                with open(base + "_time.txt", "w") as f:
                    f.write(f"{line} epochs={sum(epochs)} rounds_epochs={','.join(map(str, epochs))}\n")
                if os.path.exists(ckpt):
                    os.remove(ckpt)
                print(f"{task} o{k} {method}: {line} epochs={sum(epochs)}", flush=True)


if __name__ == "__main__":
    main()
