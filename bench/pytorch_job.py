#!/usr/bin/env python3
"""One multi-rank PyTorch job through ucudnn, one database (needs a GPU and torch).

    ucudnn run --workspace-limit 8MiB --database JOB.db -- \
        python3 bench/pytorch_job.py --ranks 2 --out DIR [--steps 20]

Starts --ranks processes (as torchrun would: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT),
each a DistributedDataParallel ResNet-50 training step (autocast FP16, channels_last, batch
--batch per rank, SGD; the input images need no gradient). Ranks take GPU LOCAL_RANK modulo the
GPUs there are: NCCL where every rank has a GPU of its own, gloo where ranks share one (the plans
and the database are the point then; the step times are of ranks sharing a GPU). Each rank
inherits ucudnn from `ucudnn run` and logs its plans to DIR/rank-R.log (UCUDNN_LOG_LEVEL=info)
and its statistics to DIR/rank-R.txt. Afterwards the script compares every rank's plans (each
kernel's micro-batches and algorithms, as logged) and writes DIR/job.json: per rank the first
step's wall time, the median step time (CUDA events), the benchmark timings it ran and the
plans it made; whether every rank's plans are identical.
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# "planned KEY under LIMIT B (...): RUNS, T ms predicted..." -> (KEY, LIMIT, RUNS)
PLANNED = re.compile(r"planned (.+?) under (\d+) B \([^)]*\): (.+?), [0-9.e+-]+ ms predicted")
# A row of UCUDNN_STATS's first table: an op and its 12 counters (timings 10th, benchmark s 11th).
OP_ROW = re.compile(r"^ucudnn: (?:fwd|bwdd|bwdf)((?:[ \t]+[0-9.]+){12})[ \t]*$", re.M)


def rank_main(args):
    import torch
    import torch.distributed as dist
    from pytorch_preload_bench import resnet
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    gpus = torch.cuda.device_count()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]) % gpus)
    dist.init_process_group("nccl" if world <= gpus else "gloo")
    torch.backends.cudnn.benchmark = True
    gen = torch.Generator(device="cpu").manual_seed(rank)
    model = resnet(torch, 50).cuda().to(memory_format=torch.channels_last).train()
    model = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(args.batch, 3, 224, 224, generator=gen).cuda().contiguous(memory_format=torch.channels_last)
    labels = torch.randint(0, 1000, (args.batch,), generator=gen).cuda()

    def step():
        with torch.autocast("cuda", dtype=torch.float16):
            out = model(x)
        loss = torch.nn.functional.cross_entropy(out.float(), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    dist.barrier()
    torch.cuda.synchronize()
    started = time.perf_counter()
    step()
    torch.cuda.synchronize()
    first = time.perf_counter() - started
    for _ in range(3):
        step()
    times = []
    for _ in range(args.steps):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        step()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    dist.barrier()
    dist.destroy_process_group()
    print(json.dumps({"rank": rank, "first_step_s": first, "median_step_ms": statistics.median(times),
                      "backend": "nccl" if world <= gpus else "gloo", "gpu": torch.cuda.get_device_name(),
                      "device": torch.cuda.current_device(), "torch": torch.__version__}))


# A kernel's device index ("fwd dev1 x:..."): ranks on other GPUs plan the same kernel.
DEVICE = re.compile(r"^(\S+) dev\d+ ")


def plans_of(log_path):
    """{(kernel without its device, limit): runs} from a rank's info log."""
    with open(log_path) as log:
        return {(DEVICE.sub(r"\1 ", key), limit): runs for key, limit, runs in PLANNED.findall(log.read())}


def timings_of(text):
    """Benchmark timings and seconds over the three ops, from a rank's UCUDNN_STATS lines."""
    rows = [fields.split() for fields in OP_ROW.findall(text)]
    return sum(int(row[9]) for row in rows), sum(float(row[10]) for row in rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--rank", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rank:
        return rank_main(args)
    if "ucudnn_preload" not in os.environ.get("LD_PRELOAD", ""):
        raise SystemExit("pytorch_job.py: error: run it under `ucudnn run ... --` (LD_PRELOAD names no ucudnn)")
    os.makedirs(args.out, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    children = []
    started = time.perf_counter()
    for rank in range(args.ranks):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(args.ranks), LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), UCUDNN_STATS="1", UCUDNN_LOG_LEVEL="info",
                   UCUDNN_LOG_FILE=os.path.join(args.out, f"rank-{rank}.log"))
        argv = [sys.executable, os.path.abspath(__file__), "--rank", "--batch", str(args.batch), "--steps",
                str(args.steps), "--out", args.out]
        err = open(os.path.join(args.out, f"rank-{rank}.txt"), "w")
        children.append((subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=err, text=True), err))
    ranks, failed = [], False
    for rank, (child, err) in enumerate(children):
        out, _ = child.communicate(timeout=args.timeout)
        err.close()
        if child.returncode != 0:
            print(f"rank {rank} exited {child.returncode} (see {err.name})", file=sys.stderr)
            failed = True
            continue
        result = json.loads(out.strip().splitlines()[-1])
        with open(err.name) as f:
            result["timings"], result["benchmark_s"] = timings_of(f.read())
        result["plans"] = len(plans_of(os.path.join(args.out, f"rank-{rank}.log")))
        ranks.append(result)
    wall = time.perf_counter() - started
    if failed:
        raise SystemExit(1)
    plans = [plans_of(os.path.join(args.out, f"rank-{r}.log")) for r in range(args.ranks)]
    differing = sorted({k for p in plans for k in p if any(q.get(k) != p.get(k) for q in plans)})
    job = {"ranks": ranks, "wall_s": wall, "identical_plans": not differing, "kernels_planned": len(plans[0]),
           "differing": [f"{k[0]} under {k[1]} B: " + " | ".join(str(p.get(k)) for p in plans) for k in differing]}
    with open(os.path.join(args.out, "job.json"), "w") as f:
        json.dump(job, f, indent=1)
    for r in ranks:
        print(f"rank {r['rank']} ({r['backend']}, GPU {r['device']}): first step {r['first_step_s']:.2f} s, "
              f"median step {r['median_step_ms']:.1f} ms, {r['timings']} benchmark timings in "
              f"{r['benchmark_s']:.2f} s, {r['plans']} plans")
    print(f"{args.ranks} ranks, {len(plans[0])} kernels planned: "
          f"{'every rank made the same plans' if not differing else str(len(differing)) + ' plans differ'}")
    if differing:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
