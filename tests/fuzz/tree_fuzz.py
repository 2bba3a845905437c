#!/usr/bin/env python3
"""Whole-program fuzz: `amdml doctor --root TREE --format json` on mutated machine trees.

amdml reads whatever a broken machine has in /sys, /proc, /etc and the manifest. This
takes the fixture trees (tests/fixtures/*/ with an amdml-host.json, plus a small tree
assembled from the fuzz seed corpus so it has something to chew on before fixtures
exist), applies random damage -- truncation, garbage bytes, huge and negative numbers,
missing files and directories, symlink loops, files turned into directories or FIFOs,
schema-valid but odd manifest values, and deliberately malformed manifests -- and
checks every run:

  * exit code 0 or 1 (2 allowed only when the manifest was deliberately malformed;
    then the JSON must carry an "error");
  * stdout is exactly one JSON document with schema amdml.doctor/1, and exit 1 iff it
    reports error findings;
  * no sanitizer report on stderr, finished within the time limit.

Deterministic for a given --seed. A failing tree is kept under --keep DIR with a
note of what was done to it. Exit status: 0 when every run passed, 1 otherwise.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:")


def fixture_trees(source):
    root = os.path.join(source, "tests", "fixtures")
    out = []
    if os.path.isdir(root):
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if os.path.isfile(os.path.join(d, "amdml-host.json")):
                out.append(d)
    return out


def corpus_tree(source, dest):
    """A small --root tree from tests/fuzz/corpus: one APU with a KFD node."""
    corpus = os.path.join(source, "tests", "fuzz", "corpus")
    layout = {
        "etc/os-release": "os_release/ubuntu_2404",
        "etc/group": "group/typical",
        "etc/passwd": "passwd/typical",
        "proc/meminfo": "meminfo/apu_32g",
        "proc/cmdline": "cmdline/strix_halo",
        "etc/modprobe.d/amdgpu.conf": "modprobe/mixed",
        "sys/class/kfd/kfd/topology/nodes/0/properties": "kfd_properties/cpu_node",
        "sys/class/kfd/kfd/topology/nodes/1/properties": "kfd_properties/gpu_gfx1103",
        "sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties": "kfd_properties/mem_bank_apu",
        "sys/devices/pci0000:00/0000:c4:00.0/uevent": "sysfs_values/uevent_radeon_vii",
        "sys/devices/pci0000:00/0000:c4:00.0/mem_info_vram_total": "sysfs_values/vram_total",
        "sys/devices/pci0000:00/0000:c4:00.0/vendor": "sysfs_values/vendor",
        "sys/module/ttm/parameters/pages_limit": "sysfs_values/pages_limit",
        "amdml-host.json": "manifest/full.json",
    }
    for rel, src in layout.items():
        path = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.copyfile(os.path.join(corpus, src), path)
    with open(os.path.join(dest, "sys/devices/pci0000:00/0000:c4:00.0/device"), "w") as f:
        f.write("0x15bf\n")
    os.makedirs(os.path.join(dest, "proc/sys/kernel"), exist_ok=True)
    with open(os.path.join(dest, "proc/sys/kernel/osrelease"), "w") as f:
        f.write("6.8.0-45-generic\n")
    os.makedirs(os.path.join(dest, "sys/class/drm/card0"), exist_ok=True)
    os.symlink("../../../devices/pci0000:00/0000:c4:00.0", os.path.join(dest, "sys/class/drm/card0/device"))
    os.makedirs(os.path.join(dest, "sys/module/amdgpu"), exist_ok=True)
    return dest


def walk(tree):
    """Files, directories and symlinks of a tree (relative paths), manifest excluded."""
    files, dirs, links = [], [], []
    for d, subdirs, names in os.walk(tree):
        for n in subdirs:
            p = os.path.join(d, n)
            (links if os.path.islink(p) else dirs).append(os.path.relpath(p, tree))
        for n in names:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, tree)
            if rel == "amdml-host.json":
                continue
            if os.path.islink(p):
                links.append(rel)
            elif os.path.isfile(p):
                files.append(rel)
    return sorted(files), sorted(dirs), sorted(links)


def read(p):
    with open(p, "rb") as f:
        return f.read()


def write(p, data):
    with open(p, "wb") as f:
        f.write(data)


def replace_number(data, rng, make):
    spans = []
    i = 0
    while i < len(data):
        if 48 <= data[i] <= 57:
            j = i
            while j < len(data) and 48 <= data[j] <= 57:
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    if not spans:
        return None
    a, b = rng.choice(spans)
    return data[:a] + make(data[a:b]) + data[b:]


# Each file mutation returns a short description, or None when it did not apply.
def m_truncate(tree, rel, rng):
    p = os.path.join(tree, rel)
    data = read(p)
    n = rng.randrange(len(data) + 1)
    write(p, data[:n])
    return f"truncate {rel} to {n}"


def m_garbage(tree, rel, rng):
    p = os.path.join(tree, rel)
    data = bytearray(read(p))
    k = rng.randrange(1, 16)
    for _ in range(k):
        if data and rng.random() < 0.6:
            data[rng.randrange(len(data))] = rng.randrange(256)
        else:
            data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
    write(p, bytes(data))
    return f"garbage {k} bytes in {rel}"


def m_binary(tree, rel, rng):
    write(os.path.join(tree, rel), bytes(rng.randrange(256) for _ in range(rng.randrange(1, 600))))
    return f"binary {rel}"


def m_huge(tree, rel, rng):
    big = rng.choice([b"18446744073709551615", b"18446744073709551616", b"99999999999999999999999999",
                      b"4294967296", b"9223372036854775807", b"1" * 400])
    out = replace_number(read(os.path.join(tree, rel)), rng, lambda _: big)
    if out is None:
        return None
    write(os.path.join(tree, rel), out)
    return f"huge number in {rel}"


def m_negative(tree, rel, rng):
    out = replace_number(read(os.path.join(tree, rel)), rng, lambda d: b"-" + d)
    if out is None:
        return None
    write(os.path.join(tree, rel), out)
    return f"negative number in {rel}"


def m_zero(tree, rel, rng):
    out = replace_number(read(os.path.join(tree, rel)), rng, lambda _: b"0")
    if out is None:
        return None
    write(os.path.join(tree, rel), out)
    return f"zero in {rel}"


def m_empty(tree, rel, rng):
    write(os.path.join(tree, rel), b"")
    return f"empty {rel}"


def m_remove(tree, rel, rng):
    os.unlink(os.path.join(tree, rel))
    return f"remove {rel}"


def m_huge_file(tree, rel, rng):
    write(os.path.join(tree, rel), read(os.path.join(tree, rel)) + b"x" * (rng.choice([1, 4, 9]) << 20))
    return f"grow {rel} by megabytes"


def m_self_loop(tree, rel, rng):
    p = os.path.join(tree, rel)
    os.unlink(p)
    os.symlink(os.path.basename(rel), p)
    return f"symlink loop {rel} -> itself"


def m_pair_loop(tree, rel, rng):
    p = os.path.join(tree, rel)
    os.unlink(p)
    os.symlink(os.path.basename(rel) + ".loop", p)
    os.symlink(os.path.basename(rel), p + ".loop")
    return f"symlink loop {rel} <-> {rel}.loop"


def m_abs_escape(tree, rel, rng):
    p = os.path.join(tree, rel)
    os.unlink(p)
    target = rng.choice(["/", "/etc/shadow", "/../../../../etc/passwd", "/proc/self/mem", "/dev/zero"])
    os.symlink(target, p)
    return f"symlink {rel} -> {target}"


def m_to_dir(tree, rel, rng):
    p = os.path.join(tree, rel)
    os.unlink(p)
    os.mkdir(p)
    return f"{rel} is a directory"


def m_to_fifo(tree, rel, rng):
    p = os.path.join(tree, rel)
    os.unlink(p)
    os.mkfifo(p)
    return f"{rel} is a FIFO"


FILE_MUTATIONS = [m_truncate, m_garbage, m_binary, m_huge, m_negative, m_zero, m_empty, m_remove,
                  m_huge_file, m_self_loop, m_pair_loop, m_abs_escape, m_to_dir, m_to_fifo]


def m_remove_dir(tree, rel, rng):
    shutil.rmtree(os.path.join(tree, rel))
    return f"remove directory {rel}"


def m_dir_loop(tree, rel, rng):
    p = os.path.join(tree, rel)
    shutil.rmtree(p)
    os.symlink(rng.choice([".", "..", "/", "/" + os.path.dirname(rel)]), p)
    return f"directory {rel} is a symlink loop"


def m_dir_entries(tree, rel, rng):
    p = os.path.join(tree, rel)
    for i in range(rng.choice([1, 50, 300])):
        name = rng.choice(["%d" % rng.randrange(10 ** rng.randrange(1, 25)), "-1", "card%d" % i, "x" * 200])
        try:
            os.mkdir(os.path.join(p, name))
        except OSError:
            pass
    return f"many odd entries in {rel}"


DIR_MUTATIONS = [m_remove_dir, m_dir_loop, m_dir_entries]


def m_link_retarget(tree, rel, rng):
    p = os.path.join(tree, rel)
    os.unlink(p)
    os.symlink(rng.choice(["nowhere", "../../../../../../../../..", "/sys/class/drm", rel.split("/")[-1]]), p)
    return f"retarget symlink {rel}"


# Manifest mutations: (function, malformed). A schema-valid change must still give 0/1.
def manifest_valid(doc, rng):
    choice = rng.randrange(9)
    if choice == 0:
        doc.setdefault("env", {})["HSA_OVERRIDE_GFX_VERSION"] = rng.choice(
            ['"11.0.0"', "", "11", "99.99.99", "11.0.0 ", "gfx1103", "-1.0.0", "10.3.0\n", "1" * 300, "0.0.0"])
        return "odd HSA_OVERRIDE_GFX_VERSION"
    if choice == 1:
        doc["process"] = {"user": rng.choice(["", "root", "x" * 500]), "uid": rng.choice([0, 4294967295, 65534]),
                          "groups": [rng.randrange(2 ** 32) for _ in range(rng.randrange(0, 70))]}
        return "odd process identity"
    if choice == 2:
        doc.pop(rng.choice(["process", "env", "devices", "uname", "hsa", "commands", "container"]), None)
        return "manifest key removed"
    if choice == 3:
        doc["devices"] = {}
        return "no device nodes"
    if choice == 4:
        doc["uname"] = {"release": rng.choice(["", "6", "999999999999.1.1", "v", "4.4.0-xyz", "6.8.0" * 50]),
                        "machine": "x86_64"}
        return "odd kernel release"
    if choice == 5:
        doc["unknown_key_%d" % rng.randrange(100)] = rng.choice([None, [], {"a": [1, {"b": None}]}, "s", 1.5])
        return "unknown manifest key"
    if choice == 6:
        doc["hsa"] = rng.choice([None, {}, [], "ok", {"status": "ok", "agents": None},
                                 {"status": "ok", "agents": [{"name": 5, "node": "x"}, None, []]},
                                 {"status": rng.choice(["failed", "timeout", "crashed", ""]), "error": "x"}])
        return "odd recorded hsa result"
    if choice == 7:
        doc["commands"] = {rng.choice(["ollama --version", "systemctl show ollama", "rocminfo"]):
                           rng.choice(["", {"exit_code": 127}, {"stdout": "\x00\xff"}, {},
                                       {"exit_code": -9, "signal": 9, "timed_out": True}])}
        return "odd recorded command"
    devs = doc.setdefault("devices", {}) if isinstance(doc.get("devices"), dict) else {}
    doc["devices"] = devs
    devs[rng.choice(["/dev/kfd", "/dev/dri/renderD128", "/dev/dri/card0", "/dev/dri/renderD9999999999"])] = {
        "type": rng.choice(["char", "block", "dir"]), "mode": rng.choice(["0000", "7777", 0, 4095]),
        "uid": rng.choice([0, 4294967295]), "gid": rng.choice([0, 992, 4294967295]),
        "open": rng.choice(["ok", "EACCES", "EPERM", "EINVAL", "EWHATEVER"])}
    return "odd device node"


def manifest_malformed(doc, rng):
    choice = rng.randrange(5)
    if choice == 0:
        doc["format"] = rng.choice([2, "1", 0, -1, 1.5])
        return "manifest: bad format"
    if choice == 1:
        doc["process"] = {"uid": rng.choice([-1, "1000", 1.5, [], {}])}
        return "manifest: bad uid type"
    if choice == 2:
        doc["env"] = rng.choice([[], "PATH=/bin", {"PATH": 5}])
        return "manifest: bad env"
    if choice == 3:
        doc["devices"] = {"/dev/kfd": {"mode": rng.choice(["0999", "rw", -1, 99999])}}
        return "manifest: bad device mode"
    doc["container"] = rng.choice(["vmware", 5, []])
    return "manifest: bad container"


def mutate_manifest(tree, rng):
    """Returns (description, malformed)."""
    p = os.path.join(tree, "amdml-host.json")
    if not os.path.exists(p):
        return None, False
    kind = rng.randrange(10)
    if kind < 8:
        try:
            doc = json.loads(read(p))
        except ValueError:
            return None, False  # already damaged by an earlier mutation of this tree
    if kind < 6:
        what = manifest_valid(doc, rng)
        write(p, json.dumps(doc).encode())
        return what, False
    if kind < 8:
        what = manifest_malformed(doc, rng)
        write(p, json.dumps(doc).encode())
        return what, True
    if kind == 8:
        data = read(p)
        write(p, data[:rng.randrange(len(data) + 1)])
        return "manifest: truncated", True
    os.unlink(p)
    return "manifest: removed", False


def mutate_tree(tree, rng, kinds):
    """Applies 1-5 mutations; counts each applied one in kinds (by mutation name)."""
    notes, malformed = [], False
    for _ in range(rng.randrange(1, 6)):
        files, dirs, links = walk(tree)
        r = rng.random()
        what, kind = None, None
        if r < 0.15:
            what, bad = mutate_manifest(tree, rng)
            malformed = malformed or bad
            kind = "manifest_malformed" if bad else "manifest_valid"
        elif r < 0.25 and dirs:
            fn = rng.choice(DIR_MUTATIONS)
            what, kind = fn(tree, rng.choice(dirs), rng), fn.__name__[2:]
        elif r < 0.30 and links:
            what, kind = m_link_retarget(tree, rng.choice(links), rng), "link_retarget"
        elif files:
            fn = rng.choice(FILE_MUTATIONS)
            what, kind = fn(tree, rng.choice(files), rng), fn.__name__[2:]
        if what:
            notes.append(what)
            kinds[kind] = kinds.get(kind, 0) + 1
    return notes, malformed


def check_run(amdml, tree, malformed, timeout, fmt="json"):
    """Runs doctor; returns (problem or None, seconds)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMDML_")}
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    t0 = time.monotonic()
    try:
        p = subprocess.run([amdml, "doctor", "--root", tree, "--format", fmt, "--color", "never"]
                           if fmt == "text" else [amdml, "doctor", "--root", tree, "--format", fmt],
                           capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout}s", timeout
    dt = time.monotonic() - t0
    err = p.stderr.decode("utf-8", "replace")
    for mark in SANITIZER_MARKS:
        if mark in err:
            return f"sanitizer report: {err[-2000:]}", dt
    allowed = {0, 1, 2} if malformed else {0, 1}
    if p.returncode not in allowed:
        return f"exit {p.returncode} (allowed {sorted(allowed)}); stderr: {err[-600:]}", dt
    if fmt != "json":
        return None, dt
    try:
        doc = json.loads(p.stdout.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        return f"stdout is not one JSON document ({e}); stdout starts {p.stdout[:200]!r}", dt
    if not isinstance(doc, dict) or doc.get("schema") != "amdml.doctor/1":
        return "JSON without schema amdml.doctor/1", dt
    if p.returncode == 2:
        if not doc.get("error"):
            return "exit 2 without an error in the JSON", dt
        return None, dt
    errors = doc.get("summary", {}).get("errors")
    if not isinstance(errors, int) or (errors > 0) != (p.returncode == 1):
        return f"exit {p.returncode} but summary.errors = {errors!r}", dt
    if not isinstance(doc.get("gpus"), list) or not isinstance(doc.get("findings"), list):
        return "gpus/findings missing from the JSON", dt
    return None, dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--amdml", required=True)
    ap.add_argument("--source", required=True, help="the amdml source tree")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--max-time", type=float, default=0, help="stop after this many seconds (0: no limit)")
    ap.add_argument("--timeout", type=float, default=30, help="seconds one doctor run may take")
    ap.add_argument("--keep", default=None, help="copy failing trees here")
    ap.add_argument("--stats", default=None, help="write a JSON summary here")
    a = ap.parse_args()

    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="amdml-tree-fuzz-")
    bases = fixture_trees(a.source)
    bases.append(corpus_tree(a.source, os.path.join(work, "corpus-tree")))
    failures, kinds, runs, slowest = [], {}, 0, 0.0
    start = time.monotonic()
    try:
        for i in range(a.iterations):
            if a.max_time and time.monotonic() - start > a.max_time:
                break
            base = rng.choice(bases)
            tree = os.path.join(work, "t%d" % i)
            shutil.copytree(base, tree, symlinks=True)
            notes, malformed = mutate_tree(tree, rng, kinds)
            fmt = "text" if rng.random() < 0.2 else "json"
            problem, dt = check_run(a.amdml, tree, malformed, a.timeout, fmt)
            runs += 1
            slowest = max(slowest, dt)
            if problem:
                label = f"#{i} base={os.path.basename(base)} seed={a.seed} format={fmt}"
                failures.append(f"{label}: {problem}\n    mutations: {'; '.join(notes)}")
                print(f"FAIL {label}: {problem}\n    mutations: {'; '.join(notes)}", file=sys.stderr)
                if a.keep:
                    dest = os.path.join(a.keep, "seed%d-iter%d" % (a.seed, i))
                    shutil.rmtree(dest, ignore_errors=True)
                    shutil.copytree(tree, dest, symlinks=True)
                    write(os.path.join(dest, "..", "seed%d-iter%d.txt" % (a.seed, i)),
                          (f"{label}\n{problem}\n" + "\n".join(notes) + "\n").encode())
            for d, _, names in os.walk(tree):  # FIFOs and odd modes must not stop the cleanup
                for n in names:
                    try:
                        os.chmod(os.path.join(d, n), 0o600, follow_symlinks=False)
                    except (OSError, NotImplementedError):
                        pass
            shutil.rmtree(tree, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = {"seed": a.seed, "runs": runs, "bases": [os.path.basename(b) for b in bases], "failures": len(failures),
               "mutations": dict(sorted(kinds.items())), "slowest_run_seconds": round(slowest, 3),
               "seconds": round(time.monotonic() - start, 1)}
    print(json.dumps(summary))
    if a.stats:
        write(a.stats, json.dumps(summary, indent=1).encode())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
