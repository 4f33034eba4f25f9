#!/usr/bin/env python3
"""Live check of rollcall's Claude Code prompt view against the released client.

Resumes each given transcript with the real Claude Code 2.1.328 (`claude -p --resume ID PROMPT
--output-format json`) against a local mock of the Anthropic Messages API, captures the request
that carries the conversation, strips what this resume added, and compares the rest with
`rollcall repair-view --format json FILE`, message by message, as parsed JSON.

Usage:
    python3 scripts/live/claude.py [--capture] [--rollcall BIN] [--keep DIR] [--model M]
                                   [--timeout S] [--jobs N] [--json OUT] PATH...

PATH is a transcript (`<session id>.jsonl`, the stem is the session id) or a fixture story folder
(its log is the one `*.jsonl` whose stem looks like a session id; `replay.jsonl` and `view.jsonl`
are never logs). A subagent's transcript (`<session id>/subagents/agent-<agent id>.jsonl` beside
`<session id>.jsonl`) is not resumable by id; Claude Code resumes it when a message is sent to the
agent. So for such a PATH (or, with `--agents`, for each one under a story folder) the session is
resumed, the mock answers the prompt with one `SendMessage` call to the agent, and the request
the resumed agent sends is the one captured: its additions are the agent entries the client
appended in this run (the message, as an `isMeta` user entry, and the attachments). `--capture` writes `<dir>/capture.claude-code-2.1.328.json` next to each
transcript. `--keep DIR` keeps, per transcript, every raw request body the client sent, its stdout,
stderr and the entries it appended to the transcript. `--model M` passes `--model M` to the
client. `--json OUT` writes the per-transcript results as JSON. A subagent's capture is
`<story>/capture.claude-code-2.1.328.agent-<agent id>.json`.

Needs: Python 3 (stdlib only), `npm` (only to install the client once, into
`${ROLLCALL_LIVE_CACHE:-$HOME/.cache/rollcall-live}/claude-code-2.1.328`, outside the repository),
`unshare` and `ip` (util-linux, iproute2), and root or unprivileged user namespaces
(`unshare -rn` is used when not root).

Network rule: the client only ever runs inside a network namespace that has loopback alone
(`unshare -n`, then `ip link set lo up`), with nonessential traffic, the autoupdater, telemetry
and error reporting off, `ANTHROPIC_BASE_URL` pointing at the mock on 127.0.0.1 in that same
namespace and a dummy API key. Nothing else is reachable from there.

What is stripped from the captured request (exactly the additions of this resume, SPEC §11.1):
  * the prompt: a text block equal to PROMPT (a distinctive string) in the last user message;
  * `<system-reminder>` text blocks in that last user message whose text equals the `rendered`
    content of an `attachment` entry the client appended to the transcript in this run (we read
    the bytes appended after the original length; the client never rewrites earlier bytes);
  * `role: "system"` messages (per-turn control, sent to models that take it, e.g. the default
    claude-opus-5-5): those whose every text is the rendered contents of appended attachments,
    without their `<system-reminder>` wrappers, in order, joined by "\n\n"; and those with no
    content that carry only
    control members (e.g. `"output_config": {"effort": "medium"}`);
  * the last user message itself if nothing of it is left.
  In a user message the client appends "\n" to a reminder followed by another entry's text
  (SPEC §11.3 rule 1), so a reminder matches its rendered text with or without that "\n".
Anything else is kept exactly as sent, and a `role: "system"` message that is not from this run is
kept (so it shows up as a difference).

Normalizations before comparing (and only these):
  1. `cache_control` members of content blocks are dropped (the client adds them for prompt
     caching; they are not part of the history).
  2. A string `content` equals `[{"type": "text", "text": S}]` (the client sends a string when the
     transcript has one; the API reads both the same).
Comparison is of parsed JSON (Python `json`): object member order is ignored, and an integer and
a float of equal value (e.g. `1` and `1.0`) compare equal, as they do for the API.

The main request is the `POST /v1/messages` whose last message ends with the PROMPT text block;
other requests (none seen in `-p` mode with nonessential traffic off) are answered and ignored.
"""

import argparse
import concurrent.futures
import datetime
import hashlib
import http.server
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

CLIENT_PACKAGE = "@anthropic-ai/claude-code"
CLIENT_VERSION = "2.1.328"
CLIENT_LABEL = "%s %s" % (CLIENT_PACKAGE, CLIENT_VERSION)
CAPTURE_NAME = "capture.claude-code-%s.json" % CLIENT_VERSION
PROMPT = "ROLLCALL-LIVE-PROBE-9c41e7 (reply with one word)"
# What the mock has the session send to a subagent (agent mode), and how the agent's request is
# told from the others: its last user message ends with a text holding this.
AGENT_PROMPT = "ROLLCALL-LIVE-AGENT-PROBE-51d2a8 (reply with one word)"
AGENT_FILE = re.compile(r"^agent-(.+)\.jsonl$")
DEFAULT_ROLLCALL = "/tmp/rollcall-base"
UUIDISH = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
STRIPPED = ("the prompt, the <system-reminder> blocks of the attachment entries the client appended "
            "in this run, and the role:system per-turn-control messages (those attachments' texts, "
            "effort settings)")


# ---------------------------------------------------------------------------------------------
# The client


def cache_dir():
    base = os.environ.get("ROLLCALL_LIVE_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "rollcall-live")
    return os.path.join(base, "claude-code-%s" % CLIENT_VERSION)


def find_client(prefix):
    """The native binary of the platform package, else the wrapper package's bin (which the
    postinstall replaces with the native binary), else a cli.js run by node (older layouts)."""
    mods = os.path.join(prefix, "node_modules", "@anthropic-ai")
    if os.path.isdir(mods):
        for name in sorted(os.listdir(mods)):
            if name.startswith("claude-code-linux-"):
                exe = os.path.join(mods, name, "claude")
                if os.path.isfile(exe) and os.access(exe, os.X_OK):
                    return [exe]
    wrapper = os.path.join(mods, "claude-code")
    exe = os.path.join(wrapper, "bin", "claude.exe")
    if os.path.isfile(exe):
        with open(exe, "rb") as f:
            if f.read(4) == b"\x7fELF":
                return [exe]
    cli = os.path.join(wrapper, "cli.js")
    if os.path.isfile(cli):
        return ["node", cli]
    wrap = os.path.join(wrapper, "cli-wrapper.cjs")
    if os.path.isfile(wrap):
        return ["node", wrap]
    return None


def ensure_client():
    prefix = cache_dir()
    cmd = find_client(prefix)
    if cmd:
        return cmd
    os.makedirs(prefix, exist_ok=True)
    print("installing %s@%s into %s" % (CLIENT_PACKAGE, CLIENT_VERSION, prefix), file=sys.stderr)
    subprocess.run(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund",
                    "%s@%s" % (CLIENT_PACKAGE, CLIENT_VERSION)], check=True)
    cmd = find_client(prefix)
    if not cmd:
        sys.exit("claude.py: installed %s but found no binary under %s" % (CLIENT_PACKAGE, prefix))
    return cmd


# ---------------------------------------------------------------------------------------------
# The mock Messages API (runs inside the namespace, in the --inner process)


def sse(events):
    return "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in events).encode()


class MockHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_dir = None
    # Agent mode: the agent id the reply to the prompt sends a message to.
    agent = None
    counter = [0]
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def _record(self, method, body):
        with self.lock:
            n = self.counter[0]
            self.counter[0] += 1
        with open(os.path.join(self.log_dir, "request-%03d.json" % n), "w") as f:
            json.dump({"method": method, "path": self.path, "headers": dict(self.headers),
                       "body": body.decode("utf-8", "replace")}, f)
        return n

    def _send(self, status, ctype, out):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(out)

    def _handle(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        n = self._record(self.command, body)
        path = self.path.split("?")[0]
        if self.command == "POST" and path.endswith("/messages/count_tokens"):
            return self._send(200, "application/json", b'{"input_tokens": 1}')
        if self.command == "POST" and path.endswith("/messages"):
            try:
                req = json.loads(body or b"{}")
            except ValueError:
                req = {}
            model = req.get("model") or "claude-mock"
            mid = "msg_rollcall_mock_%03d" % n
            usage = {"input_tokens": 1, "output_tokens": 1}
            msgs = req.get("messages") or []
            last = content_list(msgs[-1].get("content")) if msgs else []
            if self.agent and req.get("stream") and last and block_text(last[-1]) == PROMPT:
                call = {"type": "tool_use", "id": "toolu_rollcall_mock_%03d" % n,
                        "name": "SendMessage", "input": {}}
                args = json.dumps({"to": self.agent, "message": AGENT_PROMPT})
                out = sse([
                    ("message_start", {"type": "message_start", "message": {
                        "id": mid, "type": "message", "role": "assistant", "model": model,
                        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}),
                    ("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": call}),
                    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "input_json_delta", "partial_json": args}}),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    ("message_delta", {"type": "message_delta", "delta": {
                        "stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                    ("message_stop", {"type": "message_stop"}),
                ])
                return self._send(200, "text/event-stream", out)
            if req.get("stream"):
                out = sse([
                    ("message_start", {"type": "message_start", "message": {
                        "id": mid, "type": "message", "role": "assistant", "model": model,
                        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}),
                    ("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": {"type": "text", "text": ""}}),
                    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "text_delta", "text": "OK"}}),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    ("message_delta", {"type": "message_delta", "delta": {
                        "stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                    ("message_stop", {"type": "message_stop"}),
                ])
                return self._send(200, "text/event-stream", out)
            out = json.dumps({"id": mid, "type": "message", "role": "assistant", "model": model,
                              "content": [{"type": "text", "text": "OK"}], "stop_reason": "end_turn",
                              "stop_sequence": None, "usage": usage}).encode()
            return self._send(200, "application/json", out)
        # Anything else (model lists, account/quota probes, ...): an empty success.
        return self._send(200, "application/json", b"{}")

    do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = _handle


def inner_main(argv):
    """Runs inside the loopback-only namespace: mock on 127.0.0.1, then the client."""
    spec = json.loads(argv[0])
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    MockHandler.log_dir = spec["log_dir"]
    MockHandler.agent = spec.get("agent")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), MockHandler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": spec["home"],
        "TMPDIR": spec["home"],
        "LANG": "C.UTF-8",
        "CLAUDE_CONFIG_DIR": spec["config_dir"],
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % port,
        "ANTHROPIC_API_KEY": "sk-ant-rollcall-dummy-key",
    }
    try:
        p = subprocess.run(spec["argv"], cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=spec["timeout"])
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or b"", e.stderr or b""
    with open(os.path.join(spec["log_dir"], "client.json"), "w") as f:
        json.dump({"rc": rc, "stdout": out.decode("utf-8", "replace"),
                   "stderr": err.decode("utf-8", "replace")}, f)
    server.shutdown()
    return 0


# ---------------------------------------------------------------------------------------------
# One resume


def project_folder(d):
    return re.sub(r"[^A-Za-z0-9]", "-", d)


def agent_of(transcript):
    """(session id, agent id, the session's transcript) when TRANSCRIPT is a subagent's transcript
    beside its session (`<id>/subagents/agent-<agent>.jsonl` next to `<id>.jsonl`), else None."""
    m = AGENT_FILE.match(os.path.basename(transcript))
    subagents = os.path.dirname(os.path.abspath(transcript))
    folder = os.path.dirname(subagents)
    if not m or os.path.basename(subagents) != "subagents":
        return None
    main = folder + ".jsonl"
    if not os.path.isfile(main):
        return None
    return os.path.basename(folder), m.group(1), main


def run_client(client, transcript, session_id, model, timeout):
    """Resume TRANSCRIPT once (a subagent's, through its session and a message to the agent).
    Returns (requests, client_result, appended_entries, command)."""
    agent = agent_of(transcript)
    work = tempfile.mkdtemp(prefix="rollcall-claude-")
    home = os.path.join(work, "home")
    config_dir = os.path.join(work, "config")
    cwd = os.path.join(work, "D")
    log_dir = os.path.join(work, "log")
    for d in (home, config_dir, cwd, log_dir):
        os.makedirs(d)
    proj = os.path.join(config_dir, "projects", project_folder(cwd))
    os.makedirs(proj)
    if agent:
        session_id, agent_id, main = agent
        shutil.copyfile(main, os.path.join(proj, session_id + ".jsonl"))
        shutil.copytree(main[:-len(".jsonl")], os.path.join(proj, session_id))
        dest = os.path.join(proj, session_id, "subagents", os.path.basename(transcript))
    else:
        agent_id = None
        dest = os.path.join(proj, session_id + ".jsonl")
        shutil.copyfile(transcript, dest)
    orig_len = os.path.getsize(dest)
    argv = client + ["-p", "--resume", session_id, PROMPT, "--output-format", "json"]
    if model:
        argv += ["--model", model]
    spec = {"log_dir": log_dir, "home": home, "config_dir": config_dir, "cwd": cwd,
            "argv": argv, "timeout": timeout, "agent": agent_id}
    inner = [sys.executable, os.path.abspath(__file__), "--inner", json.dumps(spec)]
    ns = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]
    subprocess.run(ns + inner, check=True, timeout=timeout + 30)
    requests = []
    for name in sorted(os.listdir(log_dir)):
        if name.startswith("request-"):
            with open(os.path.join(log_dir, name)) as f:
                requests.append(json.load(f))
    with open(os.path.join(log_dir, "client.json")) as f:
        result = json.load(f)
    with open(dest, "rb") as f:
        data = f.read()
    appended = []
    intact = data[:orig_len] == open(transcript, "rb").read()
    for line in data[orig_len:].split(b"\n"):
        if line.strip():
            try:
                appended.append(json.loads(line))
            except ValueError:
                pass
    result["transcript_intact"] = intact
    command = " ".join(["claude"] + [shlex.quote(a) for a in argv[len(client):]])
    if agent_id:
        command += " (the mock answers with SendMessage to agent %s: %s)" % (
            agent_id, shlex.quote(AGENT_PROMPT))
    shutil.rmtree(work, ignore_errors=True)
    return requests, result, appended, command


def block_text(block):
    if isinstance(block, dict) and block.get("type") == "text":
        return block.get("text")
    return None


def content_list(content):
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def last_user_index(msgs):
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i].get("role") == "user":
            return i
    return None


def is_prompt(text, agent):
    """Whether TEXT is this resume's prompt: PROMPT itself, or (agent mode) the message the
    client gives the resumed agent, which holds AGENT_PROMPT."""
    if text is None:
        return False
    return AGENT_PROMPT in text if agent else text == PROMPT


def main_request(requests, agent=False):
    for r in requests:
        if r["method"] != "POST" or not r["path"].split("?")[0].endswith("/v1/messages"):
            continue
        try:
            body = json.loads(r["body"])
        except ValueError:
            continue
        msgs = body.get("messages") or []
        i = last_user_index(msgs)
        if i is not None:
            last = content_list(msgs[i].get("content"))
            if last and is_prompt(block_text(last[-1]), agent):
                return body
    return None


REMINDER_HEAD, REMINDER_TAIL = "<system-reminder>\n", "\n</system-reminder>"


def unwrap(r):
    if r.startswith(REMINDER_HEAD) and r.endswith(REMINDER_TAIL):
        return r[len(REMINDER_HEAD):-len(REMINDER_TAIL)]
    return r


def joined_reminders(text, rendered):
    """Whether TEXT is some of the RENDERED reminders, in order, unwrapped and joined by a blank
    line: the form a per-turn-control role:system message gives them."""
    rest = text
    for r in rendered:
        u = unwrap(r)
        if rest.startswith(u):
            rest = rest[len(u):]
            if not rest:
                return True
            if rest.startswith("\n\n"):
                rest = rest[2:]
    return rest == ""


def strip_additions(messages, appended, agent=False):
    """Remove exactly this run's additions (see the module docstring). Returns (history, notes)."""
    rendered = []
    for e in appended:
        if e.get("type") == "attachment":
            for r in e.get("rendered") or []:
                if isinstance(r, dict) and isinstance(r.get("content"), str):
                    rendered.append(r["content"])
    # A role:system message carries the reminder without its <system-reminder> wrapper; a user
    # message carries it as rendered, with "\n" appended when another entry's text follows it
    # in the same message (SPEC §11.3 rule 1).
    variants = {}
    for r in rendered:
        variants.setdefault(r, r)
        variants.setdefault(r + "\n", r)
        if r.startswith(REMINDER_HEAD) and r.endswith(REMINDER_TAIL):
            variants.setdefault(r[len(REMINDER_HEAD):-len(REMINDER_TAIL)], r)
    notes = []
    out = []
    for i, m in enumerate(messages):
        if m.get("role") == "system":
            blocks = content_list(m.get("content"))
            texts = [block_text(b) for b in blocks]
            if not blocks and set(m) - {"role", "content"}:
                notes.append("stripped per-turn control %s at %d" % (
                    json.dumps({k: v for k, v in m.items() if k not in ("role", "content")}), i))
                continue
            if texts and all(t is not None and joined_reminders(t, rendered) for t in texts):
                notes.append("stripped a role:system message of %d appended attachment(s) at %d" % (len(texts), i))
                continue
            notes.append("kept a role:system message at %d that is not from this run" % i)
        out.append(m)
    # The last user message: the prompt (its last block) and this run's reminders before it.
    idx = last_user_index(out)
    last = dict(out[idx])
    blocks = content_list(last.get("content"))
    assert is_prompt(block_text(blocks[-1]), agent)
    kept = []
    n = 0
    for b in blocks[:-1]:
        t = block_text(b)
        if t is not None and t.startswith(REMINDER_HEAD) and t in variants:
            n += 1
            continue
        kept.append(b)
    notes.append("stripped the prompt and %d reminder block(s) of message %d" % (n, idx))
    if kept:
        last["content"] = kept
        out[idx] = last
        notes.append("the prompt's user message kept %d block(s)" % len(kept))
    else:
        del out[idx]
    return out, notes


# ---------------------------------------------------------------------------------------------
# Comparison


def normalize_block(b):
    if isinstance(b, dict):
        return {k: v for k, v in b.items() if k != "cache_control"}
    return b


def normalize(messages):
    return [{"role": m.get("role"), "content": [normalize_block(b) for b in content_list(m.get("content"))]}
            | {k: v for k, v in m.items() if k not in ("role", "content")}
            for m in messages]


def first_diff(a, b, path=""):
    """Path and the two values of the first difference between parsed JSON values a and b."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return path + "." + k, a.get(k, "<absent>"), b.get(k, "<absent>")
            d = first_diff(a[k], b[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i in range(min(len(a), len(b))):
            d = first_diff(a[i], b[i], "%s[%d]" % (path, i))
            if d:
                return d
        if len(a) != len(b):
            return path + ".length", len(a), len(b)
        return None
    if a == b and type(a) in (int, float) and type(b) in (int, float):
        return None
    if a == b and type(a) == type(b):
        return None
    return path, a, b


def short(v, n=160):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 1] + "…"


def rollcall_view(rollcall, transcript):
    p = subprocess.run([rollcall, "repair-view", "--format", "json", transcript],
                       capture_output=True, timeout=120)
    if p.returncode not in (0, 3):
        return None, "rollcall exit %s: %s" % (p.returncode, p.stderr.decode("utf-8", "replace").strip()[:300])
    try:
        return json.loads(p.stdout), None
    except ValueError as e:
        return None, "rollcall output is not JSON: %s" % e


# ---------------------------------------------------------------------------------------------
# Per transcript


def session_log_of(path):
    if os.path.isfile(path):
        return path
    logs = [f for f in sorted(os.listdir(path)) if f.endswith(".jsonl")
            and f not in ("replay.jsonl", "view.jsonl")]
    uuidish = [f for f in logs if UUIDISH.match(f[:-6])]
    pick = uuidish or logs
    if not pick:
        return None
    return os.path.join(path, pick[0])


def client_error(result):
    try:
        j = json.loads(result["stdout"])
        if isinstance(j, dict):
            msg = j.get("result") or j.get("error") or j.get("errors")
            if msg:
                return msg if isinstance(msg, str) else json.dumps(msg)
    except (ValueError, TypeError):
        pass
    text = (result.get("stderr") or "").strip() or (result.get("stdout") or "").strip()
    if result.get("rc") == "timeout":
        text = "timeout " + text
    return text or "exit status %s" % result.get("rc")


def check_one(path, args, client):
    transcript = session_log_of(path)
    if not transcript:
        return {"path": path, "status": "error", "detail": "no session log"}
    session_id = os.path.basename(transcript)[:-len(".jsonl")]
    agent = agent_of(transcript) is not None
    requests, result, appended, command = run_client(client, transcript, session_id,
                                                     args.model, args.timeout)
    body = main_request(requests, agent)
    rec = {"path": transcript, "session_id": session_id, "command": command,
           "requests": len(requests), "client_rc": result.get("rc"),
           "transcript_intact": result.get("transcript_intact")}
    if args.keep:
        kd = os.path.join(args.keep, keep_name(transcript))
        os.makedirs(kd, exist_ok=True)
        for i, r in enumerate(requests):
            with open(os.path.join(kd, "request-%03d.json" % i), "w") as f:
                json.dump(r, f, indent=1, ensure_ascii=False)
        with open(os.path.join(kd, "client.json"), "w") as f:
            json.dump(result, f, indent=1, ensure_ascii=False)
        with open(os.path.join(kd, "appended.jsonl"), "w") as f:
            for e in appended:
                f.write(json.dumps(e, ensure_ascii=False) + "\n")
        with open(os.path.join(kd, "source"), "w") as f:
            f.write(os.path.abspath(transcript) + "\n")
    if body is None:
        rec.update(status="refused-by-client", error=client_error(result), model=None, history=None)
    else:
        history, notes = strip_additions(body["messages"], appended, agent)
        rec.update(status="resumed", error=None, model=body.get("model"), history=history,
                   notes=notes)
    if args.capture:
        write_capture(transcript, rec)
    if body is None:
        return rec
    view, err = rollcall_view(args.rollcall, transcript)
    if err:
        rec.update(status="differ", detail=err, index=None)
        return rec
    a, b = normalize(rec["history"]), normalize(view)
    for i in range(max(len(a), len(b))):
        ma = a[i] if i < len(a) else "<absent>"
        mb = b[i] if i < len(b) else "<absent>"
        d = first_diff(ma, mb)
        if d:
            rec.update(status="differ", index=i,
                       detail="msg %d%s: client %s / rollcall %s" % (i, d[0], short(d[1]), short(d[2])),
                       client_len=len(a), rollcall_len=len(b))
            return rec
    rec.update(status="agree")
    return rec


def keep_name(transcript):
    parent = os.path.basename(os.path.dirname(os.path.abspath(transcript)))
    return "%s__%s" % (parent, os.path.basename(transcript)[:-len(".jsonl")])


def write_capture(transcript, rec):
    with open(transcript, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    agent = agent_of(transcript)
    story = os.path.dirname(os.path.abspath(transcript))
    name, session_file = CAPTURE_NAME, os.path.basename(transcript)
    if agent:
        story = os.path.dirname(os.path.abspath(agent[2]))
        name = CAPTURE_NAME[:-len(".json")] + ".agent-%s.json" % agent[1]
        session_file = os.path.relpath(os.path.abspath(transcript), story)
    cap = {
        "client": CLIENT_LABEL,
        "captured_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "session_file": session_file,
        "session_sha256": sha,
        "command": rec["command"],
        "model": rec["model"],
        "outcome": "resumed" if rec["status"] == "resumed" else "refused",
        "error": rec["error"],
        "stripped": ("Stripped " + STRIPPED + ".") if rec["status"] == "resumed" else "Nothing: the client sent no request.",
        "history": rec["history"] if rec["history"] is not None else [],
    }
    out = os.path.join(story, name)
    with open(out, "w") as f:
        json.dump(cap, f, indent=2, ensure_ascii=False)
        f.write("\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        return inner_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--capture", action="store_true")
    ap.add_argument("--rollcall", default=DEFAULT_ROLLCALL)
    ap.add_argument("--keep")
    ap.add_argument("--model")
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--agents", action="store_true",
                    help="also resume each subagent transcript of a story folder, through its session")
    args = ap.parse_args()
    if args.agents:
        paths = []
        for p in args.paths:
            paths.append(p)
            log = session_log_of(p) if os.path.isdir(p) else None
            sub = os.path.join(log[:-len(".jsonl")], "subagents") if log else None
            if sub and os.path.isdir(sub):
                paths += [os.path.join(sub, f) for f in sorted(os.listdir(sub)) if AGENT_FILE.match(f)]
        args.paths = paths
    client = ensure_client()
    counts = {}
    results = []

    def one(p):
        try:
            return check_one(p, args, client)
        except Exception as e:  # noqa: BLE001 - report and go on
            return {"path": p, "status": "error", "detail": "%s: %s" % (type(e).__name__, e)}

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for rec in pool.map(one, args.paths):
            results.append(rec)
            st = rec["status"]
            st = "agree" if st == "agree" else st
            counts[st] = counts.get(st, 0) + 1
            label = rec.get("path")
            if st == "agree":
                print("agree             %s" % label)
            elif st == "differ":
                print("differ            %s  %s" % (label, rec.get("detail")))
            elif st == "refused-by-client":
                print("refused-by-client %s  %s" % (label, short(rec.get("error"), 200)))
            else:
                print("%-17s %s  %s" % (st, label, rec.get("detail")))
            sys.stdout.flush()
    print()
    print("%-18s %6s" % ("outcome", "count"))
    for k in ("agree", "differ", "refused-by-client", "error"):
        print("%-18s %6d" % (k, counts.get(k, 0)))
    print("%-18s %6d" % ("total", len(results)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{k: v for k, v in r.items() if k != "history"} for r in results], f, indent=1,
                      ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
