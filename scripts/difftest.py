#!/usr/bin/env python3
"""Randomized differential test: the rollcall binary against scripts/model.py (stdlib only).

    python3 scripts/difftest.py --bin target/release/rollcall --seed S --count N [--keep DIR]
    python3 scripts/difftest.py --bin target/release/rollcall --files a.jsonl b.jsonl   # given files

For every generated rollout it runs, on the binary and on the model:
  replay FILE, replay - (stdin), repair-view FILE, repair-view --modalities M FILE for
  M in text / text,image / text,audio / text,image,audio, repair-view with --truncation
  tokens:3 / bytes:7 / tokens:0 / none and --no-resume-prep (SPEC §8), and
  replay --report --json FILE;
then checks exit codes, stdout (verbatim items byte for byte, synthetic/changed items by JSON
value and then by bytes, since the model writes the conventional bytes of conventions.md), the
report keys of SPEC §7, one-line stderr naming the file on errors, idempotence of repair-view
(its output wrapped as a mini rollout and normalized again must not change), determinism, and
that the source file is untouched. Mismatches are grouped into classes; for each class the
smallest failing case is kept under --keep and shrunk line by line.
"""

import argparse
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_cases  # noqa: E402
import model  # noqa: E402

MODALITY_SETS = ["text", "text,image", "text,audio", "text,image,audio"]
# SPEC §8 options of repair-view, run with the default modalities.
PREP_SETS = [["--truncation", "tokens:3"], ["--truncation", "bytes:7"], ["--truncation", "tokens:0"],
             ["--truncation", "none"], ["--no-resume-prep"]]
REPORT_KEYS = ["thread_id", "parse_errors", "error_lines", "history_items", "incomplete_turn",
               "incomplete_turn_id", "repairs.missing_outputs", "repairs.orphan_outputs"]
# Not required by SPEC §7's JSON list, compared only when the binary prints them.
SOFT_REPORT_KEYS = ["unknown_records", "torn_tail", "abandoned_turns", "compactions", "rollbacks", "lines"]


def jload(b, exact=True):
    if isinstance(b, bytes):
        b = b.decode("utf-8")
    if exact:
        return json.loads(b, parse_float=Decimal, parse_int=Decimal)
    return json.loads(b)


def short(b, n=300):
    if isinstance(b, bytes):
        b = b.decode("utf-8", "backslashreplace")
    return b if len(b) <= n else b[:n] + "..."


def item_type(text):
    try:
        v = jload(text)
        return v.get("type") if isinstance(v, dict) else type(v).__name__
    except Exception:
        return "?"


class Runner:
    def __init__(self, binary, timeout):
        self.binary = binary
        self.timeout = timeout
        self.tmp = tempfile.mkdtemp(prefix="difftest-")
        self.n = 0

    def write(self, data):
        self.n += 1
        p = os.path.join(self.tmp, "case-%d.jsonl" % (self.n % 8))
        with open(p, "wb") as f:
            f.write(data)
        return p

    def bin(self, args, stdin=None):
        try:
            r = subprocess.run([self.binary] + args, input=stdin if stdin is not None else b"",
                               capture_output=True, timeout=self.timeout)
            return r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            return "timeout", b"", b""


# ---------------------------------------------------------------------------------------------
# checks: each returns a list of (class, detail)


def compare_jsonl(label, m, b):
    """m = (code, lines, kinds, err) from the model; b = (code, stdout, stderr) from the binary."""
    mc, mlines, mkinds, _ = m
    bc, bout, berr = b
    out = []
    if bc == "timeout":
        return [(f"{label}: binary timed out", "")]
    if mc != bc:
        return [(f"{label}: exit code model={mc} binary={bc}", f"binary stderr: {short(berr)}")]
    if mc != 0:
        if bout:
            out.append((f"{label}: stdout not empty on error", short(bout)))
        return out
    if bout and not bout.endswith(b"\n"):
        out.append((f"{label}: output does not end with a newline", short(bout[-100:])))
    blines = bout.split(b"\n")
    if blines and blines[-1] == b"":
        blines.pop()
    menc = [x.encode("utf-8") for x in mlines]
    if len(blines) != len(menc):
        # align on item types to name the first extra / missing item
        mt = [(item_type(x), k) for x, k in zip(menc, mkinds)]
        bt = [item_type(x) for x in blines]
        sm = difflib.SequenceMatcher(a=[t for t, _ in mt], b=bt, autojunk=False)
        what = "line count differs"
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                continue
            if tag in ("delete", "replace") and i2 > i1:
                kinds = "".join(sorted(set(k for _, k in mt[i1:i2])))
                what = f"binary lacks item(s) of type {mt[i1][0]} (model kind {kinds})"
            else:
                what = f"binary has extra item(s) of type {bt[j1]}"
            break
        detail = f"model {len(menc)} lines, binary {len(blines)} lines\n" + "\n".join(
            difflib.unified_diff([short(x, 400) for x in menc], [short(x, 400) for x in blines],
                                 "model", "binary", lineterm="", n=1))
        return [(f"{label}: {what}", detail)]
    for i, (ml, bl, k) in enumerate(zip(menc, blines, mkinds)):
        t = item_type(ml)
        if k == "v":
            if ml == bl:
                continue
            try:
                same_val = jload(ml) == jload(bl)
            except Exception:
                same_val = False
            if same_val:
                out.append((f"{label}: unchanged item re-encoded, not verbatim (type {t})",
                            f"line {i + 1}\n model : {short(ml)}\n binary: {short(bl)}"))
            else:
                out.append((f"{label}: verbatim item differs (type {t})",
                            f"line {i + 1}\n model : {short(ml)}\n binary: {short(bl)}"))
        else:
            what = "synthetic item" if k == "s" else "changed item"
            try:
                bv = jload(bl)
            except Exception as e:
                out.append((f"{label}: {what} is not valid JSON (type {t})", f"line {i + 1}: {e}\n binary: {short(bl)}"))
                continue
            if jload(ml) == bv:
                if ml != bl:
                    out.append((f"{label}: {what} has the right value but not the conventional bytes (type {t})",
                                f"line {i + 1}\n model : {short(ml)}\n binary: {short(bl)}"))
                continue
            try:
                loose = jload(ml, exact=False) == jload(bl, exact=False)
            except Exception:
                loose = False
            cls = "number precision lost" if loose else "differs"
            out.append((f"{label}: {what} {cls} (type {t})",
                        f"line {i + 1}\n model : {short(ml)}\n binary: {short(bl)}"))
    return out


def get_key(d, dotted):
    for k in dotted.split("."):
        if not isinstance(d, dict) or k not in d:
            return "<missing>"
        d = d[k]
    return d


def compare_report(m, b):
    mc, mlines, _, _ = m
    bc, bout, berr = b
    if bc == "timeout":
        return [("report: binary timed out", "")]
    if mc != bc:
        return [(f"report: exit code model={mc} binary={bc}", f"binary stderr: {short(berr)}")]
    if mc != 0:
        return []
    try:
        br = json.loads(bout)
    except Exception as e:
        return [("report: output is not one JSON object", f"{e}: {short(bout)}")]
    mr = json.loads(mlines[0])
    out = []
    for key in REPORT_KEYS:
        mv, bv = get_key(mr, key), get_key(br, key)
        if mv != bv:
            out.append((f"report: `{key}` differs", f"model : {json.dumps(mv)}\n binary: {json.dumps(bv)}"))
    for key in SOFT_REPORT_KEYS:
        mv, bv = get_key(mr, key), get_key(br, key)
        if bv != "<missing>" and mv != bv:
            out.append((f"report: extra key `{key}` differs", f"model : {json.dumps(mv)}\n binary: {json.dumps(bv)}"))
    return out


def check_stderr(label, path, b):
    bc, _, berr = b
    if bc in (0, "timeout"):
        return []
    text = berr.decode("utf-8", "replace")
    lines = text.rstrip("\n").split("\n")
    if len(lines) != 1 or os.path.basename(path) not in text:
        return [(f"{label}: error is not one stderr line naming the file", short(berr))]
    return []


def wrap_for_idempotence(lines):
    """The view as a mini rollout whose history is installed by a `compacted` replacement history
    (which filters nothing but ghost snapshots, so `system` messages and untyped objects stay) and
    gets no resume preparation (§8 is for Codex records)."""
    out = [b'{"type":"session_meta","thread_id":"idempotence"}']
    for ln in lines:
        try:
            jload(ln)
        except Exception:
            return None
    out.append(b'{"type":"compacted","replacement_history":[' + b",".join(lines) + b"]}")
    return b"\n".join(out) + b"\n"


def view_args(mods):
    return ["repair-view"] + (["--modalities", mods] if mods else [])


def check_case(runner, data, only=None):
    """Runs every check (or only those whose label starts with `only`). Returns [(class, detail)]."""
    path = runner.write(data)
    st = os.stat(path)
    before = (hashlib.sha256(data).hexdigest(), st.st_mtime_ns)
    res = []

    def want(label):
        return only is None or label == only

    if want("replay"):
        b = runner.bin(["replay", path])
        res += compare_jsonl("replay", model.run(["replay", path], data), b)
        res += check_stderr("replay", path, b)
    if want("replay -"):
        b = runner.bin(["replay", "-"], stdin=data)
        res += compare_jsonl("replay -", model.run(["replay", "-"], data), b)
    for mods in [None] + MODALITY_SETS:
        label = "repair-view" + (f" --modalities {mods}" if mods else "")
        ilabel = "idempotence" + (f" --modalities {mods}" if mods else "")
        if not (want(label) or want(ilabel)):
            continue
        margs = view_args(mods) + [path]
        m = model.run(margs, data)
        b = runner.bin(margs)
        if want(label):
            res += compare_jsonl(label, m, b)
        # model self-check: normalizing the model's own view again changes nothing
        if m[0] == 0 and want(label):
            w = wrap_for_idempotence([x.encode() for x in m[1]])
            if w is not None:
                m2 = model.run(view_args(mods) + ["x"], w)
                if [x.encode() for x in m2[1]] != [x.encode() for x in m[1]]:
                    res.append((f"MODEL BUG {ilabel}", "model view is not a fixed point"))
        if want(ilabel) and b[0] == 0:
            blines = b[1].split(b"\n")
            if blines and blines[-1] == b"":
                blines.pop()
            w = wrap_for_idempotence(blines)
            if w is None:
                res.append((f"{ilabel}: binary view has a line that is not JSON", ""))
            else:
                p2 = runner.write(w)
                b2 = runner.bin(view_args(mods) + [p2])
                if b2[0] != 0 or b2[1] != b[1]:
                    diff = "\n".join(difflib.unified_diff(
                        [short(x, 300) for x in blines],
                        [short(x, 300) for x in b2[1].split(b"\n")[:-1]], "first", "second", lineterm="", n=0))
                    res.append((f"{ilabel}: normalizing the view again changes it", f"exit {b2[0]}\n{diff}"))
        if want(label) and mods is None:
            b3 = runner.bin(margs)
            if b3[:2] != b[:2]:
                res.append(("repair-view: output differs between two runs", ""))
    for extra in PREP_SETS:
        label = "repair-view " + " ".join(extra)
        if not want(label):
            continue
        margs = ["repair-view"] + extra + [path]
        res += compare_jsonl(label, model.run(margs, data), runner.bin(margs))
    if want("report"):
        b = runner.bin(["replay", "--report", "--json", path])
        res += compare_report(model.run(["report", path], data), b)
    st2 = os.stat(path)
    with open(path, "rb") as f:
        after = (hashlib.sha256(f.read()).hexdigest(), st2.st_mtime_ns)
    if after != before:
        res.append(("source file changed", ""))
    return res


def cli_checks(runner):
    """Fixed checks of SPEC §7 exit codes and output discipline. Returns [(class, detail)]."""
    res = []
    meta = b'{"type":"session_meta","thread_id":"T"}\n'
    good = runner.write(meta + b'{"type":"item","item":{"type":"function_call","call_id":"c"}}\n')
    noisy = runner.write(meta + b"garbage\n")
    open_turn = runner.write(meta + b'{"type":"turn_started","turn_id":"t"}\n')
    empty = runner.write(b"")
    nometa = runner.write(b'{"type":"item","item":{"type":"x"}}\n')
    notarollout = runner.write(b'{"type":"thread_goal","payload":{}}\nnot json\n[1]\n')
    missing = os.path.join(runner.tmp, "does-not-exist.jsonl")
    cases = [
        (["replay", good], 0), (["repair-view", good], 0), (["replay", "--report", good], 0),
        (["replay", "--report", "--json", good], 0), (["repair-view", "--format", "json", good], 0),
        (["repair-view", "--format", "text", good], 0), (["replay", noisy], 0), (["replay", open_turn], 0),
        (["replay", "--strict", noisy], 3), (["replay", "--strict", open_turn], 3), (["replay", "--strict", good], 0),
        (["repair-view", "--strict", noisy], 3), (["replay", empty], 1), (["replay", nometa], 0),
        (["replay", "--strict", nometa], 3), (["replay", notarollout], 1), (["repair-view", notarollout], 1),
        (["repair-view", empty], 1), (["replay", "--report", "--json", nometa], 0), (["replay", missing], 1),
        (["replay", runner.tmp], 1), (["repair-view", "--modalities", "video", good], 2),
        (["repair-view", "--modalities", "", good], 2), ([], 2), (["replay"], 2), (["frobnicate", good], 2),
        (["replay", "--no-such-flag", good], 2), (["repair-view", "--truncation", "tokens", good], 2),
        (["repair-view", "--truncation", "lines:5", good], 2), (["repair-view", "--truncation", "none", good], 0),
        (["repair-view", "--no-resume-prep", good], 0),
    ]
    for args, want in cases:
        code, out, err = runner.bin(args)
        if code != want:
            res.append((f"cli: exit code of `rollcall {' '.join(args).replace(runner.tmp, 'TMP')}` is {code}, want {want}",
                        short(err)))
        elif want == 1 and (err.decode("utf-8", "replace").rstrip("\n").count("\n") != 0
                            or os.path.basename(args[-1]) not in err.decode("utf-8", "replace")):
            res.append((f"cli: error of `rollcall {args[0]}` is not one stderr line naming the file", short(err)))
        elif want == 1 and out:
            res.append(("cli: stdout not empty on error", short(out)))
    # --format json is one JSON array of the JSONL items
    c1, o1, _ = runner.bin(["repair-view", good])
    c2, o2, _ = runner.bin(["repair-view", "--format", "json", good])
    try:
        if c2 == 0 and json.loads(o2) != [json.loads(x) for x in o1.splitlines()]:
            res.append(("cli: --format json differs from the JSONL items", short(o2)))
    except ValueError as e:
        res.append(("cli: --format json is not JSON", f"{e}: {short(o2)}"))
    # a closed stdout pipe ends the program quietly with status 0
    big = runner.write(meta + b'{"type":"item","item":{"type":"message","role":"user","content":"x"}}\n' * 200000)
    p = subprocess.Popen([runner.binary, "replay", big], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(10)
    p.stdout.close()
    err = p.stderr.read()
    code = p.wait()
    if code != 0 or err:
        res.append(("cli: closed stdout pipe is not quiet exit 0", f"exit {code}, stderr {short(err)}"))
    return res


def label_of(cls):
    return cls.split(": ", 1)[0]


def split_lines(data):
    """Split at \n only (bytes.splitlines would also split at a bare \r inside a record)."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def shrink(runner, data, cls, budget=400):
    """Greedy line-level delta debugging keeping `cls` among the mismatches."""
    label = label_of(cls)
    if label.startswith("MODEL BUG "):
        label = "repair-view" + label[len("MODEL BUG idempotence"):]
    only = None if label == "source file changed" else label

    def fails(d):
        return any(c == cls for c, _ in check_case(runner, d, only))

    lines = split_lines(data)
    n = max(1, len(lines) // 2)
    tries = 0
    while n >= 1 and tries < budget:
        i = 0
        changed = False
        while i < len(lines) and tries < budget:
            cand = lines[:i] + lines[i + n:]
            tries += 1
            if cand and fails(b"".join(cand)):
                lines = cand
                changed = True
            else:
                i += n
        if not changed:
            n //= 2
    return b"".join(lines)


def slug(s):
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-")[:90]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/rollcall")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--profile", choices=["core", "edge", "mixed"], default="mixed")
    ap.add_argument("--keep", default="/tmp/difftest-fail")
    ap.add_argument("--files", nargs="*", help="test these rollouts instead of generated ones")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()

    binary = os.path.abspath(a.bin)
    if not os.access(binary, os.X_OK):
        sys.exit(f"difftest: {binary}: not an executable")
    runner = Runner(binary, a.timeout)
    os.makedirs(a.keep, exist_ok=True)

    if a.files:
        cases = [(p, open(p, "rb").read(), "edge" in os.path.basename(p)) for p in a.files]
    else:
        cases = []
        for i in range(a.count):
            data, edge = gen_cases.generate(a.seed, i, a.profile)
            cases.append(("case-%d-%05d%s.jsonl" % (a.seed, i, "-edge" if edge else ""), data, edge))

    cli = cli_checks(runner)
    print("CLI checks: " + ("all passed" if not cli else f"{len(cli)} failed"))
    for cls, detail in cli:
        print(f"  {cls}\n    {detail}")

    classes = {}  # cls -> list of (size, name, data, detail, edge)
    per_label = {}
    failing_cases = 0
    for n, (name, data, edge) in enumerate(cases):
        res = check_case(runner, data)
        if res:
            failing_cases += 1
        seen = set()
        for cls, detail in res:
            if cls in seen:
                continue
            seen.add(cls)
            classes.setdefault(cls, []).append((len(data), name, data, detail, edge))
        for lab in set(label_of(c) for c, _ in res):
            per_label[lab] = per_label.get(lab, 0) + 1
        if a.verbose and res:
            print(f"{name}: " + "; ".join(sorted(seen)), file=sys.stderr)
        if (n + 1) % 50 == 0:
            print(f"... {n + 1}/{len(cases)} cases, {failing_cases} failing", file=sys.stderr)

    n_edge = sum(1 for c in cases if c[2])
    print(f"cases: {len(cases)} ({len(cases) - n_edge} core, {n_edge} edge); failing cases: {failing_cases}")
    labels = (["replay", "replay -", "repair-view"] + [f"repair-view --modalities {m}" for m in MODALITY_SETS]
              + ["repair-view " + " ".join(x) for x in PREP_SETS]
              + ["idempotence"] + [f"idempotence --modalities {m}" for m in MODALITY_SETS] + ["report"])
    print("mismatching cases per command:")
    for lab in labels + sorted(set(per_label) - set(labels)):
        print(f"  {lab:40s} {per_label.get(lab, 0)}")
    if not classes and not cli:
        print("no mismatches")
        return 0
    # One class per kind of difference; the commands it showed up in are listed with it.
    groups = {}
    for cls, lst in classes.items():
        sig = cls.split(": ", 1)[1] if ": " in cls else cls
        key = ("report: " + sig) if label_of(cls) == "report" else sig
        groups.setdefault(key, []).append(cls)
    print(f"\n{len(groups)} mismatch classes (kept under {a.keep}):")
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda c: -len(classes[c]))
        cls = members[0]
        lst = {}
        for c in members:
            for x in classes[c]:
                lst.setdefault(x[1], x)
        lst = sorted(lst.values(), key=lambda x: x[0])
        size, name, data, detail, _ = lst[0]
        core = sum(1 for x in lst if not x[4])
        base = slug(key)
        kept = os.path.join(a.keep, base + "--" + os.path.basename(name))
        with open(kept, "wb") as f:
            f.write(data)
        print(f"\n## {key}\n   in: {', '.join(sorted(label_of(c) for c in members))}"
              f"\n   cases: {len(lst)} ({core} core, {len(lst) - core} edge); smallest: {kept} ({size} bytes)")
        if not a.no_shrink:
            small = shrink(runner, data, cls)
            mpath = os.path.join(a.keep, base + ".min.jsonl")
            with open(mpath, "wb") as f:
                f.write(small)
            res = [d for c, d in check_case(runner, small) if c == cls]
            if res:
                detail = res[0]
            print(f"   shrunk ({label_of(cls)}): {mpath} ({len(small)} bytes, {len(split_lines(small))} lines)")
        print("   " + detail.replace("\n", "\n   "))
    shutil.rmtree(runner.tmp, ignore_errors=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
