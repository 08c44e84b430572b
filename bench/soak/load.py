#!/usr/bin/env python3
"""The soak's load generator, sampler and judge, and its loopback HTTP server (stdlib only).

  load.py serve PORT
      The server http_request reaches: GET /small ("soak ok"), POST /echo (the body back),
      GET /big (20,000 bytes, past the tool's 8192-byte cap).

  load.py load --port P --seconds S ...   (see run.sh)
      CONNS threads, each with one keep-alive connection to nginx, send requests to the
      endpoints in a weighted random rotation for S seconds: a warm-up (a quarter of the run,
      10 to 120 s), a pause in which every worker is idle and its descriptors and children are
      counted, then the measured part, then the same idle count again. Every second a sampler
      reads php-fpm's status page (each worker's pid and requests served) and each worker's
      /proc/PID/status (VmRSS, RssAnon) and /proc/PID/fd, and scans /proc for the workers'
      children. At the end it prints requests, errors, intended refusals and p50/p99 per
      endpoint, per worker the RSS slope after warm-up (least squares over the samples, in KB
      per 1000 requests that worker served), descriptors and children, checks the shared edit
      files and the temp folders, and exits 1 on any failure.
"""

import argparse
import http.client
import http.server
import json
import os
import random
import statistics
import sys
import threading
import time

# Endpoints and their share of the rotation. file_edit gets the largest share so that several
# workers edit the same file at once (the report counts how many edits overlapped another).
WEIGHTS = {
    "shell": 2,
    "file_read": 2,
    "file_write": 2,
    "file_edit": 4,
    "code_search": 2,
    "project_info": 1,
    "zip_package": 1,
    "http_request": 2,
    "db_sqlite": 2,
    "db_mariadb": 2,
    "router": 2,
    "adapter": 2,
}
EDITS_PER_FILE = 2000
MARKER = "<<END>>"


# ---- the loopback server ----------------------------------------------------------------


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _send(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/big":
            self._send(b"b" * 20000)
        else:
            self._send(b"soak ok")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self._send(self.rfile.read(n))

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # http_request closes a connection whose body passed its cap without reading the
        # rest: a reset here is the tool doing its job.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def serve(port):
    server = Server(("127.0.0.1", port), Handler)
    server.serve_forever()


# ---- /proc ---------------------------------------------------------------------------------


def proc_status(pid):
    """VmRSS and RssAnon of pid in KB, or None when it is gone."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "RssAnon"):
                    out[key] = int(value.split()[0])
    except OSError:
        return None
    return out


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def children_of(pids):
    """{child pid: (parent pid, state, command)} of every process whose parent is in pids."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2 :].split()
        ppid = int(fields[1])
        if ppid in pids:
            found[int(name)] = (ppid, fields[0], comm)
    return found


# ---- the load ------------------------------------------------------------------------------


class Run:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.next_id = 1
        self.edit_seq = 0
        self.edit_files = []
        self.acked = []  # (file, id)
        self.edit_spans = []  # (start, end)
        self.stats = {e: {"ok": 0, "errors": 0, "refusals": 0, "times": []} for e in args.endpoints}
        self.error_samples = []
        self.samples = []  # (t, phase, pid, requests, rss, anon, fds)
        self.phase = "warmup"
        self.max_children = 0
        self.zombies_seen = set()  # every zombie child of a worker at a sample
        self.zombies_last = set()
        self.zombies_lingering = set()  # the same zombie at two samples in a row
        self.pids = None
        self.missed_samples = 0
        self.last_miss = ""
        self.pid_changes = []

    def new_id(self):
        with self.lock:
            i = self.next_id
            self.next_id += 1
            return i

    def edit_file(self):
        """The shared file of the next edit: a fresh one (holding only the marker) every
        EDITS_PER_FILE edits, created before any request names it."""
        with self.lock:
            epoch = self.edit_seq // EDITS_PER_FILE
            self.edit_seq += 1
            if epoch == len(self.edit_files):
                rel = f"shared/edits-{epoch}.txt"
                with open(os.path.join(self.args.ws, rel), "w") as f:
                    f.write(MARKER + "\n")
                self.edit_files.append(rel)
            return self.edit_files[epoch]

    def worker(self, seed, deadline):
        rng = random.Random(seed)
        choices = [e for e in self.args.endpoints for _ in range(WEIGHTS[e])]
        conn = None
        while time.monotonic() < deadline:
            endpoint = rng.choice(choices)
            rid = self.new_id()
            path = f"/{endpoint}.php?id={rid}"
            if endpoint == "file_edit":
                path += "&file=" + self.edit_file()
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", self.args.port, timeout=60)
            start = time.monotonic()
            try:
                conn.request("GET", path)
                resp = conn.getresponse()
                body = resp.read()
                status = resp.status
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                conn = None
                status, body = 0, repr(e).encode()
            end = time.monotonic()
            try:
                reply = json.loads(body)
            except ValueError:
                reply = {}
            with self.lock:
                st = self.stats[endpoint]
                st["times"].append(end - start)
                if status == 200 and reply.get("ok") is True:
                    st["ok"] += 1
                    st["refusals"] += reply.get("refusals", 0)
                    if endpoint == "file_edit":
                        self.acked.append((path.split("&file=")[1], reply["edited"]))
                else:
                    st["errors"] += 1
                    if len(self.error_samples) < 20:
                        self.error_samples.append(f"{path}: HTTP {status} {body[:400].decode(errors='replace').strip()}")
                if endpoint == "file_edit":
                    self.edit_spans.append((start, end))
        if conn is not None:
            conn.close()

    def fpm_status(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.args.port, timeout=10)
        try:
            conn.request("GET", "/fpm-status?json&full")
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    def sample(self, t0):
        status = self.fpm_status()
        procs = {p["pid"]: p["requests"] for p in status["processes"]}
        if self.pids is None:
            self.pids = set(procs)
        elif set(procs) != self.pids:
            self.pid_changes.append(f"workers {sorted(self.pids)} became {sorted(procs)}")
            self.pids |= set(procs)
        t = time.monotonic() - t0
        for pid, requests in procs.items():
            st = proc_status(pid)
            if st is not None:
                self.samples.append((t, self.phase, pid, requests, st["VmRSS"], st["RssAnon"], fd_count(pid)))
        kids = children_of(set(procs))
        self.max_children = max(self.max_children, len(kids))
        zombies = {k for k, (_, state, _) in kids.items() if state == "Z"}
        self.zombies_seen |= zombies
        self.zombies_lingering |= zombies & self.zombies_last
        self.zombies_last = zombies

    def sampler(self, t0, stop):
        while not stop.wait(self.args.interval):
            try:
                self.sample(t0)
            except (OSError, ValueError, http.client.HTTPException) as e:
                # A missed sample only thins the fit (too few samples fail the run anyway).
                self.missed_samples += 1
                self.last_miss = repr(e)

    def idle_snapshot(self):
        """Each worker's descriptors and the workers' children once every request is done."""
        time.sleep(1.0)
        status = self.fpm_status()
        pids = [p["pid"] for p in status["processes"]]
        return {pid: fd_count(pid) for pid in pids}, children_of(set(pids))

    def load(self, seconds):
        deadline = time.monotonic() + seconds
        threads = [threading.Thread(target=self.worker, args=(self.args.seed + i + int(seconds * 1000), deadline)) for i in range(self.args.conns)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()


def fit(points):
    """Least-squares slope of y on x, or None with fewer than 3 points or no spread in x."""
    if len(points) < 3:
        return None
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def main_load(args):
    run = Run(args)
    failures = []
    warmup = min(120.0, max(10.0, args.seconds / 4))
    measured = max(1.0, args.seconds - warmup)
    t0 = time.monotonic()
    stop = threading.Event()
    run.sample(t0)
    sampler = threading.Thread(target=run.sampler, args=(t0, stop))
    sampler.start()

    print(f"soak: {args.conns} connections, {len(args.endpoints)} endpoints, warm-up {warmup:.0f} s then {measured:.0f} s measured", flush=True)
    run.load(warmup)
    fds_before, kids_before = run.idle_snapshot()
    run.phase = "measured"
    run.load(measured)
    fds_after, kids_after = run.idle_snapshot()
    stop.set()
    sampler.join()
    elapsed = time.monotonic() - t0
    if args.samples:
        with open(args.samples, "w") as f:
            for s in run.samples:
                f.write(json.dumps(dict(zip(("t", "phase", "pid", "requests", "rss", "anon", "fds"), s))) + "\n")

    # ---- requests
    total = sum(s["ok"] + s["errors"] for s in run.stats.values())
    errors = sum(s["errors"] for s in run.stats.values())
    refusals = sum(s["refusals"] for s in run.stats.values())
    print(f"\n{'endpoint':<14}{'requests':>10}{'errors':>8}{'refusals':>10}{'p50 ms':>9}{'p99 ms':>9}")
    for endpoint, s in run.stats.items():
        times = sorted(s["times"])
        print(f"{endpoint:<14}{len(times):>10}{s['errors']:>8}{s['refusals']:>10}{percentile(times, 0.5) * 1000:>9.1f}{percentile(times, 0.99) * 1000:>9.1f}")
    print(f"{'all':<14}{total:>10}{errors:>8}{refusals:>10}   ({total / elapsed:.0f} requests/s over {elapsed:.0f} s)")
    if errors:
        failures.append(f"{errors} requests failed")
        for e in run.error_samples:
            print("  error:", e)

    # ---- workers: RSS slope, descriptors, children
    slope_max, band = args.rss_slope, args.rss_band
    print(f"\nper worker after warm-up: RSS slope = least squares of VmRSS (KB) on requests served, per 1000 requests;"
          f"\nfails when above {slope_max:g} KB per 1000 requests and the fitted rise over the measured requests is above {band:g} KB")
    print(f"{'pid':>8}{'requests':>10}{'measured':>10}{'VmRSS MB':>16}{'slope':>9}{'rise KB':>9}{'RssAnon slope':>15}{'fds idle':>12}{'fds max':>9}")
    for pid in sorted(fds_before):
        pts = [(s[3], s[4], s[5], s[6]) for s in run.samples if s[2] == pid and s[1] == "measured"]
        if len(pts) < 3:
            failures.append(f"worker {pid}: only {len(pts)} samples after warm-up")
            continue
        rss_slope = fit([(p[0], p[1]) for p in pts])
        anon_slope = fit([(p[0], p[2]) for p in pts])
        served = pts[-1][0] - pts[0][0]
        fds_max = max(p[3] for p in pts)
        rss_text = "n/a" if rss_slope is None else f"{rss_slope * 1000:+.2f}"
        anon_text = "n/a" if anon_slope is None else f"{anon_slope * 1000:+.2f}"
        rise = 0.0 if rss_slope is None else rss_slope * served
        print(f"{pid:>8}{pts[-1][0]:>10}{served:>10}{pts[0][1] / 1024:>8.1f} ->{pts[-1][1] / 1024:>6.1f}{rss_text:>9}{rise:>+9.0f}{anon_text:>15}"
              f"{fds_before[pid]:>6} ->{fds_after.get(pid, -1):>3}{fds_max:>9}")
        if served < 100:
            failures.append(f"worker {pid}: served only {served} requests after warm-up")
        elif rss_slope is not None and rss_slope * 1000 > slope_max and rise > band:
            failures.append(f"worker {pid}: RSS rises {rss_slope * 1000:.2f} KB per 1000 requests, {rise:.0f} KB over {served} requests")
        if fds_after.get(pid, -1) != fds_before[pid]:
            failures.append(f"worker {pid}: {fds_before[pid]} descriptors when idle after warm-up, {fds_after.get(pid)} at the end")
    if run.pid_changes:
        failures.extend(run.pid_changes)
    if run.missed_samples:
        print(f"samples missed (status page unreadable): {run.missed_samples}, last: {run.last_miss}")
    print(f"children of workers: at most {run.max_children} at a sample; {len(kids_before)} after warm-up, {len(kids_after)} at the end; zombies: {len(run.zombies_seen)} seen at a sample, {len(run.zombies_lingering)} still there a second later")
    for pid, (ppid, state, comm) in kids_after.items():
        failures.append(f"child {pid} ({comm}, state {state}) of worker {ppid} left at the end")
    if run.zombies_lingering:
        failures.append(f"{len(run.zombies_lingering)} zombie children not reaped within a second")

    # ---- edits of the shared files
    acked = {}
    for rel, rid in run.acked:
        acked.setdefault(rel, set()).add(rid)
    lost = 0
    for rel in run.edit_files:
        with open(os.path.join(args.ws, rel)) as f:
            lines = f.read().splitlines()
        present = [int(line[5:]) for line in lines if line.startswith("edit ")]
        missing = acked.get(rel, set()) - set(present)
        lost += len(missing)
        if missing:
            failures.append(f"{rel}: {len(missing)} acknowledged edits missing, e.g. {sorted(missing)[:5]}")
        if len(present) != len(set(present)) or lines.count(MARKER) != 1 or len(lines) != len(present) + 1:
            failures.append(f"{rel}: damaged ({len(lines)} lines, {len(set(present))} distinct edits, {lines.count(MARKER)} markers)")
    spans = sorted(run.edit_spans)
    overlapping, latest_end = set(), None
    for i, (start, end) in enumerate(spans):
        if latest_end is not None and start < latest_end[0]:
            overlapping.update((i, latest_end[1]))
        if latest_end is None or end > latest_end[0]:
            latest_end = (end, i)
    print(f"shared-file edits: {len(run.acked)} acknowledged in {len(run.edit_files)} files, {len(overlapping)} overlapping another edit in time, {lost} lost")

    # ---- temp files
    leftovers = []
    for folder in args.tmp:
        for base, dirs, files in os.walk(folder):
            leftovers += [os.path.join(base, n) for n in dirs + files]
    for base, _, files in os.walk(args.ws):
        leftovers += [os.path.join(base, n) for n in files if n.startswith((".phpclaw-", "phpclaw-"))]
    print(f"temp files left: {len(leftovers)}")
    if leftovers:
        failures.append(f"{len(leftovers)} temp files left, e.g. {leftovers[:5]}")

    if failures:
        print("\nsoak FAILED:")
        for f in failures:
            print("  -", f)
        return 1
    print("\nsoak passed")
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("serve")
    s.add_argument("port", type=int)
    ld = sub.add_parser("load")
    ld.add_argument("--port", type=int, required=True, help="nginx's port")
    ld.add_argument("--seconds", type=float, default=60)
    ld.add_argument("--conns", type=int, default=8)
    ld.add_argument("--ws", required=True, help="the workspace (shared edit files live in it)")
    ld.add_argument("--tmp", action="append", default=[], help="a folder that must be empty at the end")
    ld.add_argument("--endpoints", default=",".join(WEIGHTS))
    ld.add_argument("--rss-slope", type=float, default=16.0, help="KB per 1000 requests (see the README)")
    ld.add_argument("--rss-band", type=float, default=512.0, help="KB: a smaller fitted rise is noise (see the README)")
    ld.add_argument("--seed", type=int, default=1)
    ld.add_argument("--interval", type=float, default=1.0, help="seconds between samples")
    ld.add_argument("--samples", help="write every sample to this file (JSON lines)")
    args = p.parse_args()
    if args.mode == "serve":
        serve(args.port)
        return 0
    args.endpoints = [e for e in args.endpoints.split(",") if e]
    return main_load(args)


if __name__ == "__main__":
    sys.exit(main())
