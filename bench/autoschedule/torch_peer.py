#!/usr/bin/python3
"""torch_peer: one PyTorch process of bench_peers.py: times an ML layer of
bench/autoschedule/programs on the inputs bench_peers wrote, and writes its output.

  /usr/bin/python3 bench/autoschedule/torch_peer.py NAME THREADS K WORK OUT.f32 SIZE=V...

NAME: mlp, layernorm or softmax; the inputs are WORK/INPUT.npy. Prints
"min_ms X median_ms Y" of K calls after a warm-up call (torch.set_num_threads(THREADS),
under torch.no_grad), and writes the output's floats to OUT.f32.
"""
import sys
import time

import numpy as np
import torch


def main():
    name, threads, repeat, work, out = sys.argv[1:6]
    sizes = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in sys.argv[6:])
    torch.set_num_threads(int(threads))

    def load(p):
        return torch.from_numpy(np.load("%s/%s.npy" % (work, p)))

    if name == "mlp":
        x, w1, b1, w2, b2 = (load(p) for p in ("x", "W1", "b1", "W2", "b2"))
        f = lambda: torch.addmm(b2, torch.relu(torch.addmm(b1, x, w1)), w2)  # noqa: E731
    elif name == "layernorm":
        x, gamma, beta = (load(p) for p in ("x", "gamma", "beta"))
        f = lambda: torch.nn.functional.layer_norm(  # noqa: E731
            x, (sizes["d"],), gamma, beta, 1e-5)
    elif name == "softmax":
        x = load("x")
        f = lambda: torch.softmax(x, dim=1)  # noqa: E731
    else:
        sys.exit("torch_peer: no PyTorch layer for %s" % name)
    with torch.no_grad():
        got = f()
        ms = []
        for _ in range(int(repeat)):
            t0 = time.perf_counter()
            f()
            ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    got.numpy().astype(np.float32).tofile(out)
    print("min_ms %.6f median_ms %.6f" % (ms[0], ms[len(ms) // 2]))


if __name__ == "__main__":
    main()
