"""Starting a child process through ucudnn, and reading the statistics it prints at exit.

The graph-API proofs (graph_api_opinfo.py, graph_api_cuda_graph.py, bench/graph_call_overhead.py,
bench/pytorch_preload_bench.py's ucudnn-graph mode) start their preloaded children with
`ucudnn run --workspace-limit L -- PROGRAM ARGS` when given the `ucudnn` command (--ucudnn), which
sets LD_PRELOAD, LD_LIBRARY_PATH, UCUDNN_STATS=1 and UCUDNN_FORCE_WORKSPACE_LIMIT itself; given only
the preload library (--preload) they set the same variables themselves. Either way
LD_LIBRARY_PATH starts with the folder of torch's own cuDNN (torch_cudnn.py), so that the preload
library loads the cuDNN that PyTorch would have loaded.
"""
import os
import re
import subprocess
import time

from torch_cudnn import bundled_cudnn_path

GRAPH_LINE = re.compile(r"^ucudnn: graph API: (\d+) plans intercepted, (\d+) passed through, (\d+) executions"
                        r"(?:; (\d+) kept)?", re.M)
FRONTENDS_LINE = re.compile(r"^ucudnn: front-ends active: (.*)$", re.M)
OP_ROW = re.compile(r"^ucudnn: (fwd|bwdd|bwdf)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+\s+(\d+)", re.M)


def add_launch_arguments(parser):
    """--ucudnn, --preload and --run-args, shared by the scripts."""
    parser.add_argument("--ucudnn", help="the ucudnn command (pack/bin/ucudnn): children run as `ucudnn run ...`")
    parser.add_argument("--preload", help="libucudnn_preload.so: without --ucudnn, children get LD_PRELOAD and "
                                          "ucudnn's variables from this script; with it, passed as `run --preload`")
    parser.add_argument("--run-args", default="", help="more options for `ucudnn run`, before `--` (e.g. \"--cudnn DIR\")")


def check_launch_arguments(args, script):
    if args.ucudnn and not os.path.isfile(args.ucudnn):
        raise SystemExit(f"{script}: error: --ucudnn {args.ucudnn!r} is not a file")
    if args.preload and not os.path.isfile(args.preload):
        raise SystemExit(f"{script}: error: --preload {args.preload!r} is not a file")
    if not args.ucudnn and not args.preload:
        raise SystemExit(f"{script}: error: give --ucudnn PATH (pack/bin/ucudnn) or --preload PATH (libucudnn_preload.so)")


def through_ucudnn(args, argv, limit, env=None):
    """(command, environment) that run argv under ucudnn with a per-kernel workspace limit."""
    env = dict(os.environ if env is None else env)
    # torch's own cuDNN first, whether or not `ucudnn run` finds it on its own.
    env["LD_LIBRARY_PATH"] = bundled_cudnn_path(env.get("LD_LIBRARY_PATH"))
    if args.ucudnn:
        command = [args.ucudnn, "run", "--workspace-limit", limit]
        if args.preload:
            command += ["--preload", args.preload]
        command += args.run_args.split() + ["--"] + list(argv)
        return command, env
    env.update(LD_PRELOAD=args.preload, UCUDNN_STATS="1", UCUDNN_FORCE_WORKSPACE_LIMIT=limit)
    return list(argv), env


def describe_launch(args, limit):
    if args.ucudnn:
        return f"{args.ucudnn} run --workspace-limit {limit}{' --preload ' + args.preload if args.preload else ''}" \
               f"{' ' + args.run_args if args.run_args else ''} -- ..."
    return f"LD_PRELOAD={args.preload} UCUDNN_FORCE_WORKSPACE_LIMIT={limit} UCUDNN_STATS=1 ..."


def graph_statistics(text):
    """The `ucudnn: graph API:` line as a dict, or None where the child printed none."""
    found = GRAPH_LINE.findall(text or "")
    if not found:
        return None
    plans, passed, executions, kept = found[-1]
    return {"plans_intercepted": int(plans), "passed_through": int(passed), "executions": int(executions),
            "kept": int(kept) if kept else None}


def front_ends(text):
    found = FRONTENDS_LINE.findall(text or "")
    return found[-1].strip() if found else None


def op_table(text):
    """Per op (fwd, bwdd, bwdf): convolutions, split, replayed, captured, plain calls."""
    table = {}
    for op, calls, split, replayed, captured, plain in OP_ROW.findall(text or ""):
        table[op] = {"calls": int(calls), "split": int(split), "replayed": int(replayed), "captured": int(captured),
                     "plain": int(plain)}
    return table


def statistics_lines(text):
    return [line for line in (text or "").splitlines() if line.startswith("ucudnn:")]


def run_child(command, env, capture_output, text, timeout):
    """subprocess.run, a timeout reported as a failed run (status 124) rather than raised."""
    try:
        return subprocess.run(command, env=env, capture_output=capture_output, text=text, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        def text_of(value):
            return value.decode(errors="replace") if isinstance(value, bytes) else (value or "")
        return subprocess.CompletedProcess(command, 124, text_of(expired.stdout),
                                           text_of(expired.stderr) + f"\ntimed out after {timeout} s (--timeout)")


# What a plain child must not inherit from the caller: anything that brings ucudnn in or sets it up.
PLAIN_DROPS = ("LD_PRELOAD", "UCUDNN_STATS", "UCUDNN_FORCE_WORKSPACE_LIMIT", "UCUDNN_MEMORY_BUDGET",
               "UCUDNN_MICRO_BATCH_OFFERS")


def run_side(args, argv, limit, env, log_path=None):
    """One side of a comparison: argv plain (limit None: without ucudnn's variables) or through
    ucudnn at `limit` (through_ucudnn), output captured, within args.timeout; the command and its
    output written to log_path where given. (done, seconds)."""
    if limit is None:
        command, env = list(argv), {k: v for k, v in env.items() if k not in PLAIN_DROPS}
    else:
        command, env = through_ucudnn(args, argv, limit, env)
    started = time.perf_counter()
    done = run_child(command, env=env, capture_output=True, text=True, timeout=args.timeout)
    seconds = time.perf_counter() - started
    if log_path:
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "w") as f:
            f.write(f"$ {' '.join(command)}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}")
    return done, seconds
