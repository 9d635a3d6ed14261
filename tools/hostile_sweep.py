#!/usr/bin/env python3
"""Runs malformed specs through the strata CLI and checks that every run ends well.

Derives fresh malformed descriptors and operator specs from every shipped one (archs/*.yaml, ops/*.yaml): lines
dropped, cut, repeated or re-indented; values replaced by NaN, infinities, huge, negative or mistyped ones; lists of
200,000 entries or 64 distinct multiples; binary bytes, invalid UTF-8, control and bidirectional characters; empty
and blank files; injection text in the free-text fields. Each goes through `check`, `sieve`, `model` and
`generate --no-profile`, paired with a shipped spec of the other kind. A run fails when the CLI is killed by a
signal, prints a sanitizer report, exits other than 0, 1 or 2, takes more than 60 s of CPU or 2 GiB of memory, or
exits non-zero without exactly one printable `strata: error:` line (a run still going after 600 s is killed).

Usage: tools/hostile_sweep.py [--strata BIN] [--seed N] [--per-spec N] [--jobs N]
  BIN: a strata built under ASan and UBSan, e.g. build-fuzz/strata (tools/fuzz.sh configures build-fuzz).
Prints one line per failure and a summary; exits 1 if any run failed.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALUES = ["0", "-1", ".nan", "NaN", ".inf", "-.inf", "1e309", "-1e309", "99999999999999999999", "[]", "{}", "~",
          '""', "x y", "[1, [2]]", "&a 1", "*a", "!!binary AAAA", "3.5", "'", "\t", "1", "2147483648",
          "9223372036854775807", "-9223372036854775808", "0x10", "1e-400", "[.nan]", "[0]", "[-3, 5]"]
INJECTIONS = ['"x */ int injected = 1; /* y"', '"x\\n#define INJECTED 1"',
              '"x\\nmessage(FATAL_ERROR \\"INJECTED\\")\\n#"', '"{{PACKAGE}} ??/ \\\\"', '"\\u202e\\x1b[31m\\0"']
GARBAGE = [b"", b"   \n\n\t\n", b"\xff\xfe\x00\x01binary\x02", b"schema: strata-arch/1\n\x00\x00",
           "name: caf\u00e9\u202e\n".encode(), b"\xc3\x28\xa0\xa1 invalid utf-8\n", b"- [\n" * 2000,
           b"a: " + b"[" * 5000]


def mutate_lines(text, rng):
    lines = text.split("\n")
    for _ in range(1 + rng.randrange(3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        kind = rng.randrange(6)
        if kind == 0:
            del lines[i]
        elif kind == 1 and ": " in lines[i]:
            lines[i] = lines[i][:lines[i].index(": ") + 2] + rng.choice(VALUES)
        elif kind == 2:
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
        elif kind == 3:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif kind == 4:
            lines[i] = "  " + lines[i]
        else:
            lines[i] = lines[i] + chr(rng.choice([0x01, 0x1b, 0x7f, 0x202e, 0xfeff, 0x85]))
    return "\n".join(lines).encode()


def blow_up(text, rng):
    """A list key given a huge or wide list."""
    keys = [k for k in ("k_unroll", "tile_multiples", "lanes_per_vector", "values") if k + ":" in text]
    if not keys:
        return None
    key = rng.choice(keys)
    big = rng.choice([list(range(1, 200001)), list(range(1, 100001)), [2 ** i for i in range(64)],
                      list(range(1, 65)), [rng.randrange(1, 1 << 40) for _ in range(64)]])
    return re.sub(key + r":.*", key + ": [" + ", ".join(map(str, big)) + "]", text, count=1).encode()


def inject(text, rng):
    keys = [k for k in ("description", "source") if k + ":" in text]
    if not keys:
        return None
    return re.sub(r"(" + rng.choice(keys) + r"): .*", r"\1: " + rng.choice(INJECTIONS).replace("\\", "\\\\"),
                  text, count=1).encode()


def variants(text, rng, count):
    out = []
    while len(out) < count:
        kind = rng.randrange(10)
        if kind < 5:
            out.append(mutate_lines(text, rng))
        elif kind < 7:
            v = blow_up(text, rng)
            if v is not None:
                out.append(v)
        elif kind < 9:
            v = inject(text, rng)
            if v is not None:
                out.append(v)
        else:
            out.append(rng.choice(GARBAGE))
    return out


PARTNER_OP = {"a100": "hgemm_tc", "h100": "hgemm_tc"}
PARTNER_ARCH = {"hgemm_tc": "h100", "sgemm": "zen4-avx512", "conv2d_nhwc": "zen4-avx512"}


def commands(kind, spec, partner, out_dir):
    arch, op = (spec, partner) if kind == "arch" else (partner, spec)
    return [["check", spec],
            ["sieve", "--arch", arch, "--op", op],
            ["model", "--arch", arch, "--op", op, "--shape", "64,64,64", "--top", "2"],
            ["generate", "--arch", arch, "--op", op, "--no-profile", "-o", out_dir, "--force"]]


PRINTABLE = re.compile(r"^strata: error: [^\x00-\x1f\x7f]*$")
# Limits per run: CPU time, so that a loaded machine does not fail a run, and wall time, to catch a hang.
kCpuLimit = 60
kWallLimit = 600
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:")


def run_one(strata, args, cwd):
    """What went wrong with one run, or None; and its CPU seconds."""
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    with tempfile.TemporaryFile() as err_file:
        p = subprocess.Popen([strata] + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err_file, env=env)
        start = time.monotonic()
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > kWallLimit:
                p.kill()
                os.wait4(p.pid, 0)
                return f"still running after {kWallLimit} s", kWallLimit
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)
        err_file.seek(0)
        raw = err_file.read()
    cpu = usage.ru_utime + usage.ru_stime
    err = raw.decode("utf-8", "replace")
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}", cpu
    if SANITIZER.search(err):
        return "sanitizer report: " + SANITIZER.search(err).group(0), cpu
    if p.returncode not in (0, 1, 2):
        return f"exit status {p.returncode}", cpu
    if p.returncode != 0:
        errors = [line for line in err.split("\n") if line.startswith("strata: error:")]
        if len(errors) != 1:
            return f"{len(errors)} error lines", cpu
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return "raw bytes in the error", cpu
        if not PRINTABLE.match(errors[0]):
            return "unprintable error line: " + ascii(errors[0][:120]), cpu
    if usage.ru_maxrss > 2 * 1024 * 1024:  # KiB
        return f"took {usage.ru_maxrss // 1024} MiB", cpu
    if cpu > kCpuLimit:
        return f"took {cpu:.0f} s of CPU", cpu
    return None, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strata", default=os.path.join(ROOT, "build-fuzz", "strata"))
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--per-spec", type=int, default=23)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    opts = ap.parse_args()
    strata = os.path.abspath(opts.strata)
    rng = random.Random(opts.seed)
    work = tempfile.mkdtemp(prefix="strata-sweep-")
    jobs = []
    for kind, folder in (("arch", "archs"), ("op", "ops")):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith(".yaml"):
                continue
            stem = name[:-5]
            text = open(os.path.join(ROOT, folder, name), encoding="utf-8").read()
            partner = (os.path.join(ROOT, "ops", PARTNER_OP.get(stem, "sgemm") + ".yaml") if kind == "arch" else
                       os.path.join(ROOT, "archs", PARTNER_ARCH.get(stem, "zen4-avx512") + ".yaml"))
            for i, data in enumerate(variants(text, rng, opts.per_spec)):
                case = os.path.join(work, f"{kind}_{stem}_{i}")
                os.makedirs(case)
                spec = os.path.join(case, name)
                with open(spec, "wb") as f:
                    f.write(data)
                for args in commands(kind, spec, partner, os.path.join(case, "pkg")):
                    jobs.append((case, args))
    print(f"hostile_sweep: seed {opts.seed}, {len(jobs)} runs of {strata} in {work}", flush=True)
    failures = 0
    slowest = (0.0, "")
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for (case, args), (problem, cpu) in zip(jobs, pool.map(lambda j: run_one(strata, j[1], j[0]), jobs)):
            name = f"{os.path.basename(case)} {args[0]}"
            slowest = max(slowest, (cpu, name))
            if problem:
                failures += 1
                print(f"FAIL {name}: {problem}", flush=True)
    print(f"hostile_sweep: {len(jobs)} runs, {failures} failed; the most CPU: {slowest[0]:.1f} s ({slowest[1]})")
    if failures:
        print(f"hostile_sweep: inputs kept in {work}")
    if failures == 0:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
