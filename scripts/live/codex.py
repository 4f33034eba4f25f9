#!/usr/bin/env python3
"""Live check: resume rollouts with the released Codex CLI and compare with rollcall.

What it does, for every rollout given on the command line:

1. Installs ``@openai/codex@0.169.0`` (once) into
   ``${ROLLCALL_LIVE_CACHE:-$HOME/.cache/rollcall-live}/codex-0.169.0`` with
   ``npm install --prefix DIR --no-audit --no-fund`` and runs the native binary of the platform
   package (``node_modules/@openai/codex-<platform>/vendor/<triple>/bin/codex``) directly.
2. Re-executes itself inside a fresh network namespace that has only loopback
   (``unshare -n``, then ``ip link set lo up``).  Nothing below this point can reach any
   address but 127.0.0.1.
3. Starts a mock of the Responses API on 127.0.0.1 (the websocket attempt on ``.../responses``
   gets HTTP 426; ``POST /v1/responses`` gets a minimal SSE stream that completes the turn).
4. Makes a throw-away ``CODEX_HOME`` with a config.toml (SPEC §11.1: ``openai_base_url`` at the
   mock, dummy ``OPENAI_API_KEY``, ``model = "gpt-5.5"`` unless ``--model``, a
   ``[model_providers.<id>]`` table for the rollout's own non-openai provider, update checks,
   analytics, feedback and otel exporters off), places the rollout as
   ``sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`` (and lineage parents found next to
   it, by ``history_base.thread_id``), and runs
   ``codex exec --skip-git-repo-check resume <thread id> PROMPT`` with a timeout.
5. Takes the first model request, strips what this resume added (the ``additional_tools`` item
   and the base-instructions developer message at the front; at the end, the new turn's items,
   which are exactly the ``response_item`` records Codex appended to the rollout in this run, or a
   trailing ``compaction_trigger`` when Codex compacts first), and compares the rest with
   ``rollcall repair-view --format json FILE`` item by item as parsed JSON, after undoing only the
   pure re-encodings listed in ``REENCODINGS`` below.

Prints one line per rollout (``agree`` / ``differ`` with the first differing index and a short
diff / ``refused-by-client`` with Codex's message) and a summary table.

Usage::

    python3 scripts/live/codex.py [--capture] [--keep DIR] [--rollcall BIN] [--model SLUG]
        [--timeout S] [--json OUT] ROLLOUT_OR_DIR...

A directory argument means ``DIR/rollout.jsonl`` (a story folder such as
``fixtures/codex/fork``).  ``--capture`` writes ``capture.codex-0.169.0.json`` next to the
rollout: the history exactly as Codex sent it, minus the resume's additions.  A capture is client
data: never edit one by hand, never make one from rollcall output.

Needs: Python 3 (stdlib only), ``npm`` (for the one-time install, outside the namespace),
``unshare`` and ``ip`` (util-linux, iproute2) with permission to make a network namespace
(root, or user namespaces enabled), and a rollcall binary (default ``/tmp/rollcall-base``).
"""

import argparse
import base64
import datetime
import hashlib
import http.server
import json
import os
import re
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import uuid

CODEX_VERSION = "0.169.0"
CLIENT = f"@openai/codex {CODEX_VERSION}"
CAPTURE_NAME = f"capture.codex-{CODEX_VERSION}.json"
PROMPT = "Say ok."
DUMMY_KEY = "sk-rollcall-live-check-dummy"

# Pure re-encodings undone before comparing (applied to both sides alike; each only changes
# how the same typed item is spelled, never what it says):
#  1. A member whose value is null is not sent: Codex's typed ResponseItem skips `None` fields.
#  2. `"id": ""` is not sent: an empty id is skipped the same way.
#  3. `content_item_kinds` inside `internal_chat_message_metadata_passthrough` is an annotation
#     Codex adds on the wire (the kinds of the message's content parts, recomputed from the
#     content); it is removed, and a passthrough object left empty by that is removed too.
REENCODINGS = [
    "null members are not sent",
    'an empty "id" is not sent',
    "the content_item_kinds annotation Codex adds to passthrough metadata",
]


# --------------------------------------------------------------------------------------------
# Installing and finding the client
# --------------------------------------------------------------------------------------------

def cache_dir():
    base = os.environ.get("ROLLCALL_LIVE_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "rollcall-live")
    return os.path.join(base, f"codex-{CODEX_VERSION}")


def find_codex_binary(prefix):
    root = os.path.join(prefix, "node_modules", "@openai")
    if not os.path.isdir(root):
        return None
    for pkg in sorted(os.listdir(root)):
        if not pkg.startswith("codex-"):
            continue
        vendor = os.path.join(root, pkg, "vendor")
        if not os.path.isdir(vendor):
            continue
        for triple in sorted(os.listdir(vendor)):
            exe = os.path.join(vendor, triple, "bin", "codex")
            if os.path.isfile(exe) and os.access(exe, os.X_OK):
                return exe
    return None


def ensure_codex():
    prefix = cache_dir()
    exe = find_codex_binary(prefix)
    if exe:
        return exe
    os.makedirs(prefix, exist_ok=True)
    print(f"installing @openai/codex@{CODEX_VERSION} into {prefix}", file=sys.stderr)
    subprocess.run(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund",
                    f"@openai/codex@{CODEX_VERSION}"], check=True)
    exe = find_codex_binary(prefix)
    if not exe:
        sys.exit(f"codex.py: no native codex binary under {prefix}/node_modules/@openai")
    return exe


# --------------------------------------------------------------------------------------------
# The mock Responses API (only ever bound to 127.0.0.1 inside the namespace)
# --------------------------------------------------------------------------------------------

def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def answer_stream(body):
    """A minimal Responses SSE stream: one assistant message, then response.completed."""
    rid = "resp_rollcall_live"
    out = []
    inputs = body.get("input") if isinstance(body, dict) else None
    compacting = isinstance(inputs, list) and any(
        isinstance(i, dict) and i.get("type") == "compaction_trigger" for i in inputs)
    if compacting:
        item = {"type": "compaction", "id": "cmp_live", "encrypted_content": "bGl2ZQ=="}
    else:
        item = {"type": "message", "role": "assistant", "id": "msg_live",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
                "status": "completed"}
    out.append(sse("response.created", {"type": "response.created",
                                        "response": {"id": rid, "status": "in_progress"}}))
    out.append(sse("response.output_item.added", {"type": "response.output_item.added",
                                                  "output_index": 0, "item": item}))
    out.append(sse("response.output_item.done", {"type": "response.output_item.done",
                                                 "output_index": 0, "item": item}))
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 11}
    out.append(sse("response.completed", {"type": "response.completed",
                                          "response": {"id": rid, "status": "completed",
                                                       "output": [item], "usage": usage}}))
    return b"".join(out)


class MockState:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []  # (method, path, headers, raw body bytes)


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _record(self, body):
            with state.lock:
                state.requests.append((self.command, self.path, dict(self.headers.items()), body))

        def _send(self, code, ctype, payload, extra=None):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            self._record(b"")
            if self.headers.get("Upgrade", "").lower() == "websocket":
                # Refuse the websocket transport: Codex falls back to plain HTTP at once.
                self._send(426, "text/plain", b"upgrade required")
            elif self.path.split("?")[0].endswith("/models"):
                self._send(200, "application/json", b'{"models":[]}')
            else:
                self._send(404, "text/plain", b"not found")

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n)
            self._record(raw)
            path = self.path.split("?")[0]
            try:
                body = json.loads(decode_body(raw, self.headers.get("Content-Encoding")))
            except Exception:
                body = None
            if path.endswith("/responses/compact"):
                payload = json.dumps({"output": [
                    {"type": "compaction", "encrypted_content": "bGl2ZQ=="}]}).encode()
                self._send(200, "application/json", payload)
            elif path.endswith("/responses"):
                self._send(200, "text/event-stream", answer_stream(body))
            else:
                self._send(404, "text/plain", b"not found")

    return Handler


class QuietServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # Codex drops connections when it is done; that is not news


def decode_body(raw, encoding):
    if encoding and encoding.lower() == "zstd":
        try:
            from compression import zstd  # Python 3.14+
            return zstd.decompress(raw)
        except ImportError:
            raise RuntimeError("request body is zstd-compressed and this Python has no zstd")
    return raw


# --------------------------------------------------------------------------------------------
# Placing a rollout in a CODEX_HOME
# --------------------------------------------------------------------------------------------

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def first_record(data):
    line = data.split(b"\n", 1)[0].rstrip(b"\r")
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    try:
        return json.loads(line.decode("utf-8"))
    except Exception:
        return None


def session_info(data):
    """(thread id, timestamp string, model_provider, history_base) as well as can be read."""
    rec = first_record(data)
    meta = None
    if isinstance(rec, dict) and rec.get("type") == "session_meta" and isinstance(
            rec.get("payload"), dict):
        meta = rec["payload"]
    elif isinstance(rec, dict) and "id" in rec and "type" not in rec:
        meta = rec  # 2025 pre-envelope: a bare session object first
    tid = meta.get("id") if meta else None
    if not (isinstance(tid, str) and UUID_RE.fullmatch(tid)):
        # No usable id (no session_meta at all): make one from the content, so the file can
        # still be placed and Codex asked for it (it refuses; that refusal is the datum).
        tid = str(uuid.uuid5(uuid.NAMESPACE_URL, hashlib.sha256(data).hexdigest()))
    ts = None
    for src in (meta or {}, rec if isinstance(rec, dict) else {}):
        if isinstance(src.get("timestamp"), str):
            ts = src["timestamp"]
            break
    provider = (meta or {}).get("model_provider")
    base = (meta or {}).get("history_base")
    return tid, ts, provider, base


def file_time(ts):
    try:
        t = datetime.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except Exception:
        t = datetime.datetime(2026, 1, 1, 0, 0, 0)
    return t


def rollout_name(data, tid):
    tid2, ts, _, _ = session_info(data)
    t = file_time(ts)
    return t, f"rollout-{t.strftime('%Y-%m-%dT%H-%M-%S')}-{tid}.jsonl"


def lineage_parents(path, data):
    """Parent rollouts of a fork/revert: files next to it whose thread id is history_base's."""
    found = []
    seen = {os.path.abspath(path)}
    current = data
    while True:
        _, _, _, base = session_info(current)
        if not isinstance(base, dict) or not isinstance(base.get("thread_id"), str):
            return found
        want = base["thread_id"]
        hit = None
        for dirpath, _, files in os.walk(os.path.dirname(os.path.abspath(path))):
            for f in sorted(files):
                p = os.path.join(dirpath, f)
                if p in seen or not f.endswith(".jsonl") or f.startswith("capture."):
                    continue
                with open(p, "rb") as fh:
                    d = fh.read()
                tid, _, _, _ = session_info(d)
                if tid == want or want in f:
                    hit = (p, d)
                    break
            if hit:
                break
        if not hit:
            return found
        seen.add(hit[0])
        found.append(hit)
        current = hit[1]


def toml_str(s):
    return json.dumps(s)


def write_config(home, port, model, provider):
    # An empty --model leaves `model` out: Codex then picks the model itself.
    lines = [f"model = {toml_str(model)}"] if model else []
    lines += [
        f'openai_base_url = "http://127.0.0.1:{port}/v1"',
        "check_for_update_on_startup = false",
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
    ]
    if provider and provider != "openai":
        lines.append(f"model_provider = {toml_str(provider)}")
    lines += ["", "[analytics]", "enabled = false", "", "[feedback]", "enabled = false", "",
              "[otel]", 'exporter = "none"', 'trace_exporter = "none"',
              'metrics_exporter = "none"', "log_user_prompt = false"]
    if provider and provider != "openai":
        lines += ["", f"[model_providers.{toml_str(provider)}]", f"name = {toml_str(provider)}",
                  f'base_url = "http://127.0.0.1:{port}/v1"', 'env_key = "OPENAI_API_KEY"',
                  'wire_api = "responses"']
    with open(os.path.join(home, "config.toml"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


# --------------------------------------------------------------------------------------------
# Comparing
# --------------------------------------------------------------------------------------------

def undo_reencodings(v, top=True):
    """Apply the pure re-encodings of REENCODINGS to a parsed item (a copy is returned)."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if x is None:
                continue
            if k == "id" and x == "":
                continue
            if k == "internal_chat_message_metadata_passthrough" and isinstance(x, dict):
                x = {kk: vv for kk, vv in x.items() if kk != "content_item_kinds"}
                x = undo_reencodings(x, False)
                if not x:
                    continue
                out[k] = x
                continue
            out[k] = undo_reencodings(x, False)
        return out
    if isinstance(v, list):
        return [undo_reencodings(x, False) for x in v]
    return v


def short(v, n=300):
    s = json.dumps(v, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= n else s[:n] + "…"


def first_diff(a, b, path=""):
    """A short description of where two JSON values first differ."""
    if type(a) is not type(b):
        return f"{path or '.'}: {short(a, 120)} vs {short(b, 120)}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in b:
                return f"{path}.{k}: only in codex ({short(a[k], 120)})"
            if k not in a:
                return f"{path}.{k}: only in rollcall ({short(b[k], 120)})"
            if a[k] != b[k]:
                return first_diff(a[k], b[k], f"{path}.{k}")
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_diff(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path}: length {len(a)} (codex) vs {len(b)} (rollcall)"
        return None
    if a != b:
        return f"{path or '.'}: {short(a, 160)} vs {short(b, 160)}"
    return None


def compare(sent, view):
    a = [undo_reencodings(x) for x in sent]
    b = [undo_reencodings(x) for x in view]
    for i in range(max(len(a), len(b))):
        if i >= len(a):
            return i, f"rollcall has more items ({len(b)} vs {len(a)}); next: {short(b[i], 200)}"
        if i >= len(b):
            return i, f"codex sent more items ({len(a)} vs {len(b)}); next: {short(a[i], 200)}"
        if a[i] != b[i]:
            return i, f"[{a[i].get('type') if isinstance(a[i], dict) else '?'}] " + (
                first_diff(a[i], b[i]) or "?")
    return None, None


# --------------------------------------------------------------------------------------------
# One rollout
# --------------------------------------------------------------------------------------------

def appended_response_items(before, after):
    """The response_item payloads Codex appended to the rollout in this run."""
    if after.startswith(before):
        tail = after[len(before):]
    else:
        old = set(before.split(b"\n"))
        tail = b"\n".join(x for x in after.split(b"\n") if x not in old)
    items = []
    for line in tail.split(b"\n"):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except Exception:
            continue
        if isinstance(rec, dict) and rec.get("type") == "response_item":
            items.append(rec.get("payload"))
    return items


def strip_resume_additions(inputs, appended, base_instructions):
    """Split the first request's input into (history, description of what was stripped)."""
    inputs = list(inputs)
    front = []
    if inputs and isinstance(inputs[0], dict) and inputs[0].get("type") == "additional_tools":
        front.append("the additional_tools item")
        inputs.pop(0)
    if inputs and is_base_instructions(inputs[0], base_instructions):
        front.append("the base-instructions developer message")
        inputs.pop(0)
    back = []
    if inputs and isinstance(inputs[-1], dict) and inputs[-1].get("type") == "compaction_trigger":
        inputs.pop()
        back.append("the compaction_trigger item")
    else:
        # The new turn's items: the longest run at the end of input equal to the start of what
        # Codex appended to the rollout (the appended run goes on with the model's answer).
        # Matched without passthrough metadata: the rollout keeps `content_item_metadata` there,
        # which the wire does not carry.
        norm_app = [without_passthrough(x) for x in appended]
        # With a Responses Lite model Codex writes the additional_tools item and the
        # base-instructions message to the rollout as the new turn's first items; with an empty
        # history they are also the input's first, and were stripped above.
        for _ in front:
            if norm_app and isinstance(appended[0], dict) and (
                    appended[0].get("type") == "additional_tools"
                    or is_base_instructions(appended[0], base_instructions)):
                appended, norm_app = appended[1:], norm_app[1:]
        k_best = 0
        for k in range(min(len(inputs), len(norm_app)), 0, -1):
            if [without_passthrough(x) for x in inputs[-k:]] == norm_app[:k]:
                k_best = k
                break
        if k_best:
            del inputs[-k_best:]
            back.append(f"the new turn's {k_best} item(s) Codex appended to the rollout")
        else:
            back.append("nothing at the end (no appended items matched)")
    sentence = ("Stripped " + (" and ".join(front) if front else "nothing") +
                " at the front, and " + " and ".join(back) + " at the end.")
    return inputs, sentence


def without_passthrough(item):
    item = undo_reencodings(item)
    if isinstance(item, dict):
        item.pop("internal_chat_message_metadata_passthrough", None)
    return item


def is_base_instructions(item, base_instructions):
    """The developer message Codex puts first: its parts are marked `model.base_instructions`."""
    if not (isinstance(item, dict) and item.get("type") == "message"
            and item.get("role") == "developer"):
        return False
    meta = item.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    if isinstance(kinds, list) and kinds:
        return all(k == "model.base_instructions" for k in kinds)
    content = item.get("content")
    if not isinstance(content, list) or not content:
        return False
    text = content[0].get("text") if isinstance(content[0], dict) else None
    if base_instructions is not None:
        return text == base_instructions
    return isinstance(text, str) and text.startswith("You are ")


def rollcall_view(rollcall, path, home):
    env = dict(os.environ, CODEX_HOME=home)
    p = subprocess.run([rollcall, "repair-view", "--format", "json", path], env=env,
                       capture_output=True, timeout=120)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()
    try:
        return json.loads(p.stdout), None
    except Exception as e:
        return None, f"rollcall output not JSON: {e}"


def client_error(stderr, stdout):
    text = (stderr + "\n" + stdout).strip()
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    for x in lines:
        if re.search(r"\berror\b|Error|cannot|Cannot|refus|failed|Failed", x):
            return re.sub(r"\x1b\[[0-9;]*m", "", x)
    return re.sub(r"\x1b\[[0-9;]*m", "", lines[-1]) if lines else "no request and no message"


def run_one(codex, rollout, args, index):
    with open(rollout, "rb") as fh:
        data = fh.read()
    tid, ts, provider, _ = session_info(data)
    work = tempfile.mkdtemp(prefix="codex-live-")
    home = os.path.join(work, "home")
    cwd = os.path.join(work, "cwd")
    os.makedirs(home)
    os.makedirs(cwd)
    state = MockState()
    server = QuietServer(("127.0.0.1", 0), make_handler(state))
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        write_config(home, port, args.model, provider)
        t, name = rollout_name(data, tid)
        day = os.path.join(home, "sessions", t.strftime("%Y"), t.strftime("%m"), t.strftime("%d"))
        os.makedirs(day, exist_ok=True)
        placed = os.path.join(day, name)
        with open(placed, "wb") as fh:
            fh.write(data)
        for ppath, pdata in lineage_parents(rollout, data):
            ptid, _, _, _ = session_info(pdata)
            pt, pname = rollout_name(pdata, ptid)
            base = os.path.basename(ppath)
            if base.startswith("rollout-"):
                pname = base  # keep a reverted file's <thread>_<rollout id> name
            pday = os.path.join(home, "sessions", pt.strftime("%Y"), pt.strftime("%m"),
                                pt.strftime("%d"))
            os.makedirs(pday, exist_ok=True)
            with open(os.path.join(pday, pname), "wb") as fh:
                fh.write(pdata)
        view, view_err = rollcall_view(args.rollcall, placed, home)
        cmd = [codex, "exec", "--skip-git-repo-check", "resume", tid, PROMPT]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "CODEX"))}
        env.update(CODEX_HOME=home, OPENAI_API_KEY=DUMMY_KEY, HOME=work, NO_COLOR="1",
                   RUST_LOG="error")
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=args.timeout,
                               stdin=subprocess.DEVNULL)
            out, err, rc = p.stdout.decode(errors="replace"), p.stderr.decode(
                errors="replace"), p.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace")
            err = (e.stderr or b"").decode(errors="replace") + "\n(timed out)"
            rc = None
        with open(placed, "rb") as fh:
            after = fh.read()
    finally:
        server.shutdown()
        server.server_close()
    shown_cmd = f"codex exec --skip-git-repo-check resume {tid} {json.dumps(PROMPT)}"
    responses = []
    for method, path, headers, body in state.requests:
        if method == "POST" and path.split("?")[0].endswith(("/responses", "/responses/compact")):
            responses.append((path, headers, body))
    if args.keep:
        kd = os.path.join(args.keep, f"{index:04d}-{os.path.basename(os.path.dirname(rollout))}"
                          f"-{os.path.basename(rollout)}")
        os.makedirs(kd, exist_ok=True)
        for j, (path, headers, body) in enumerate(responses):
            with open(os.path.join(kd, f"request-{j}.json"), "wb") as fh:
                fh.write(decode_body(body, headers.get("Content-Encoding")))
            with open(os.path.join(kd, f"request-{j}.headers.json"), "w") as fh:
                json.dump({"path": path, "headers": headers}, fh, indent=2)
        with open(os.path.join(kd, "stderr.txt"), "w") as fh:
            fh.write(err)
        with open(os.path.join(kd, "stdout.txt"), "w") as fh:
            fh.write(out)
        if view is not None:
            with open(os.path.join(kd, "rollcall-view.json"), "w") as fh:
                json.dump(view, fh, indent=2)
        with open(os.path.join(kd, "appended.jsonl"), "wb") as fh:
            fh.write(after[len(data):] if after.startswith(data) else after)
    shutil.rmtree(work, ignore_errors=True)
    result = {"file": rollout, "thread_id": tid, "command": shown_cmd, "rc": rc,
              "sha256": hashlib.sha256(data).hexdigest()}
    if not responses:
        # The message names the throw-away CODEX_HOME; spell it $CODEX_HOME so it is stable.
        result.update(outcome="refused", error=client_error(err, out).replace(home, "$CODEX_HOME"))
        return result, None
    path, headers, raw = responses[0]
    body = json.loads(decode_body(raw, headers.get("Content-Encoding")))
    result["request_kind"] = request_kind(path, headers, body)
    result["model"] = body.get("model")
    base_instr = base_instructions_text(data)
    history, sentence = strip_resume_additions(body.get("input") or [],
                                               appended_response_items(data, after), base_instr)
    result.update(outcome="resumed", error=None, stripped=sentence, history=history)
    if view is None:
        result["compare"] = ("rollcall-failed", None, view_err)
    else:
        idx, msg = compare(history, view)
        result["compare"] = ("agree" if idx is None else "differ", idx, msg)
    return result, body


def base_instructions_text(data):
    rec = first_record(data)
    try:
        return rec["payload"]["base_instructions"]["text"]
    except Exception:
        return None


def request_kind(path, headers, body):
    if path.split("?")[0].endswith("/responses/compact"):
        return "compaction (remote /responses/compact)"
    for k, v in headers.items():
        if k.lower() == "x-codex-turn-metadata":
            try:
                kind = json.loads(v).get("request_kind")
            except Exception:
                kind = None
            if kind:
                return kind
    md = body.get("client_metadata") if isinstance(body, dict) else None
    if isinstance(md, dict) and md.get("request_kind"):
        return md["request_kind"]
    inputs = body.get("input") or []
    if inputs and isinstance(inputs[-1], dict) and inputs[-1].get("type") == "compaction_trigger":
        return "compaction"
    return "turn"


def write_capture(rollout, res):
    cap = {
        "client": CLIENT,
        "captured_at": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"),
        "session_file": os.path.basename(rollout),
        "session_sha256": res["sha256"],
        "command": res["command"],
        "model": res.get("model"),
        "outcome": res["outcome"],
        "error": res.get("error"),
        "stripped": res.get("stripped") or "Nothing: Codex sent no model request.",
        "history": res.get("history") if res["outcome"] == "resumed" else [],
    }
    with open(os.path.join(os.path.dirname(os.path.abspath(rollout)), CAPTURE_NAME), "w") as fh:
        json.dump(cap, fh, indent=2, ensure_ascii=False)
        fh.write("\n")


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

def expand(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            cands = [f for f in sorted(os.listdir(p))
                     if f.endswith((".jsonl", ".jsonl.zst")) and not f.startswith("capture.")]
            pick = "rollout.jsonl" if "rollout.jsonl" in cands else (cands[0] if cands else None)
            if pick:
                out.append(os.path.join(p, pick))
        else:
            out.append(p)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rollouts", nargs="+")
    ap.add_argument("--capture", action="store_true")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--rollcall", default="/tmp/rollcall-base", metavar="BIN")
    ap.add_argument("--model", default="gpt-5.5", metavar="SLUG")
    ap.add_argument("--timeout", type=float, default=90.0)
    ap.add_argument("--json", metavar="OUT", help="write every result as JSON lines here")
    ap.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--codex", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if not args.in_namespace:
        codex = ensure_codex()
        inner = ("ip link set lo up && exec " + " ".join(
            shlex_quote(x) for x in [sys.executable, os.path.abspath(__file__),
                                     "--in-namespace", "--codex", codex] + sys.argv[1:]))
        sys.exit(subprocess.call(["unshare", "-n", "sh", "-c", inner]))

    for x in (args.rollcall,):
        if not os.access(x, os.X_OK):
            sys.exit(f"codex.py: rollcall binary {x} not found")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    rollouts = expand(args.rollouts)
    tally = {"agree": 0, "differ": 0, "refused-by-client": 0, "rollcall-failed": 0}
    jout = open(args.json, "w") if args.json else None
    for i, r in enumerate(rollouts):
        try:
            res, _ = run_one(args.codex, r, args, i)
        except Exception as e:  # keep going: one broken case must not end the run
            print(f"{r}: error in the check: {e!r}", flush=True)
            continue
        if res["outcome"] == "refused":
            verdict = "refused-by-client"
            line = f"{verdict}: {res['error']}"
        else:
            verdict, idx, msg = res["compare"]
            kind = res.get("request_kind")
            extra = f" (first request: {kind})" if kind and kind != "turn" else ""
            line = verdict + extra + (f" at {idx}: {msg}" if verdict == "differ" else
                                      (f": {msg}" if verdict == "rollcall-failed" else ""))
        tally[verdict] += 1
        print(f"{r}: {line}", flush=True)
        if args.capture:
            write_capture(r, res)
        if jout:
            res2 = {k: v for k, v in res.items() if k != "history"}
            res2["verdict"] = verdict
            jout.write(json.dumps(res2) + "\n")
            jout.flush()
    print()
    print(f"{'cases':>6} {'agree':>6} {'differ':>6} {'refused':>8} {'rc-fail':>8}")
    print(f"{len(rollouts):>6} {tally['agree']:>6} {tally['differ']:>6} "
          f"{tally['refused-by-client']:>8} {tally['rollcall-failed']:>8}")


def shlex_quote(s):
    import shlex
    return shlex.quote(s)


if __name__ == "__main__":
    main()
