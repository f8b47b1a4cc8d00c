"""Running a suite: every invocation's --json document stored with where and how it ran.

Output directory layout (``bench.py run --out DIR``):

    DIR/meta.json        suite, commit, machine, repeat (rounds), start/end, one line per invocation
    DIR/runs/<id>.json   {"id", "app", "workload", "round", "binary", "args", "env", "nodes",
                          "returncode", "wall_s", "stderr", "doc": <the app's JSON document>}

A binary that is not built is recorded as skipped; an app that exits
non-zero, times out or prints something that is not one JSON document is
recorded as an error (the run goes on; ``bench.py run`` exits 1 at the end).
"""

import datetime
import json
import os
import platform
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def write_file(path, text):
    """Writes `text` to `path` as cws's own writers do (docs/trace-format.md, "Safe files").

    The bytes go to a new temporary file in the same directory (mkstemp: created
    exclusively under a random name, so a planted PATH.tmp cannot redirect the
    write), are fsync'ed and renamed over `path`. An existing `path` that is not
    a regular file (a symlink, FIFO, device, directory) is refused with a
    ValueError and left alone; an existing file keeps its permission bits.
    """
    import stat
    import tempfile
    path = Path(path)
    mode = None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{path}: not a regular file; refusing to replace it")
        mode = stat.S_IMODE(st.st_mode)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def binary_path(build, app):
    """The cws-<app> binary in build dir `build`, or None when it is not built."""
    build = Path(build)
    for candidate in (build / "apps" / f"cws-{app}", build / "apps" / app / f"cws-{app}", build / "bin" / f"cws-{app}"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def commit_info(repo=REPO):
    """{"commit", "dirty"} from git, or {"commit": None} outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=20)
        if head.returncode != 0:
            return {"commit": None, "dirty": None}
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                                capture_output=True, text=True, timeout=60)
        return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip()) if status.returncode == 0 else None}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def cpu_model(cpuinfo="/proc/cpuinfo"):
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info():
    """nproc, CPU model, memory, kernel, load average at start."""
    info = {"nproc": os.cpu_count(), "model": cpu_model(), "machine": platform.machine(),
            "kernel": platform.release(), "python": platform.python_version()}
    try:
        info["nproc_available"] = len(os.sched_getaffinity(0))
        info["load_average"] = list(os.getloadavg())
    except (AttributeError, OSError):
        pass
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["mem_gib"] = round(int(line.split()[1]) / (1 << 20), 1)
    except OSError:
        pass
    return info


def help_text(binary, cache={}):  # noqa: B006 - a deliberate per-process cache
    if binary not in cache:
        try:
            r = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=30)
            cache[binary] = r.stdout + r.stderr
        except (OSError, subprocess.SubprocessError):
            cache[binary] = ""
    return cache[binary]


def child_env(extra):
    """This process's environment without CWS_* (the suite decides them), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CWS_")}
    env.update(extra)
    return env


def run_invocation(invocation, build, timeout):
    """Runs one invocation; returns the record stored in runs/<id>.json (status: ok, skipped or error)."""
    record = {"id": invocation.id, "app": invocation.app, "nodes": invocation.nodes, "tag": invocation.tag,
              "workload": invocation.workload, "round": invocation.round, "env": invocation.env()}
    binary = binary_path(build, invocation.app)
    if binary is None:
        record.update(status="skipped", reason=f"cws-{invocation.app} is not built in {build}")
        return record
    args = invocation.full_args(help_text(binary))
    record.update(binary=str(binary), args=args)
    t0 = time.monotonic()
    try:
        r = subprocess.run([str(binary)] + args, env=child_env(invocation.env()), capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        record.update(status="error", reason=f"timed out after {timeout} s", wall_s=time.monotonic() - t0)
        return record
    record.update(wall_s=time.monotonic() - t0, returncode=r.returncode, stderr=r.stderr[-4000:])
    if r.returncode != 0:
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "no message"
        record.update(status="error", reason=f"exit code {r.returncode}: {last}")
        return record
    try:
        record["doc"] = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        record.update(status="error", reason=f"stdout is not one JSON document: {e}")
        return record
    record["status"] = "ok"
    return record


def run_suite(name, invocations, build, out, timeout=600, log=print):
    """Runs `invocations` and writes out/meta.json and out/runs/*.json; returns the meta dict."""
    out = Path(out)
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    for old in runs_dir.glob("*.json"):
        old.unlink()
    meta = {"suite": name, "build": str(Path(build).resolve()), **commit_info(), "machine": machine_info(),
            "repeat": max([1] + [i.round for i in invocations]),
            "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), "runs": []}
    t0 = time.monotonic()
    for index, invocation in enumerate(invocations):
        rec = run_invocation(invocation, build, timeout)
        rec["index"] = index
        file = f"{index:02d}-{invocation.id}.json"
        write_file(runs_dir / file, json.dumps(rec, indent=1))
        line = {k: rec.get(k) for k in ("id", "app", "nodes", "status", "reason", "wall_s")}
        line["file"] = f"runs/{file}"
        meta["runs"].append(line)
        where = f" on {invocation.nodes} synthetic nodes" if invocation.nodes > 1 else ""
        if rec["status"] == "ok":
            log(f"bench: {invocation.id}{where}: {rec['wall_s']:.1f} s")
        elif rec["status"] == "skipped":
            log(f"bench: {invocation.id}: skipped ({rec['reason']})")
        else:
            log(f"bench: {invocation.id}{where}: ERROR ({rec['reason']})")
    meta["wall_s"] = time.monotonic() - t0
    meta["finished"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    write_file(out / "meta.json", json.dumps(meta, indent=1))
    return meta


def load(out):
    """(meta, records): meta.json and every stored run record of `out`, in suite order."""
    out = Path(out)
    with open(out / "meta.json", encoding="utf-8") as f:
        meta = json.load(f)
    records = []
    for line in meta["runs"]:
        with open(out / line["file"], encoding="utf-8") as f:
            records.append(json.load(f))
    return meta, records
