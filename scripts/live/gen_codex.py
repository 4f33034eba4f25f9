#!/usr/bin/env python3
"""Seeded generator of small Codex rollouts for the live check (scripts/live/codex.py).

    python3 scripts/live/gen_codex.py [--seed N] [--out DIR]   # default /tmp/codex-gen

Writes DIR/<NNN>-<case>/rollout.jsonl, one story per folder, the same bytes for the same seed.
The records copy the layout of the real rollouts in fixtures/codex/real_* (session_meta with
base_instructions, task_started / turn_context / response_item / event_msg user_message /
agent_message / token_count / task_complete per turn, ids like msg_<uuid7>, passthrough
turn_id).  Cases cover every call family (function, custom, local_shell, tool_search,
web_search, image_generation, mcp), orphans and unanswered calls, replacement and legacy
compactions, rollbacks (also over compactions), images of every kind and format (PNG, JPEG,
WebP, GIF; small and over Codex's resize limits; bad base64; remote URLs; wrong MIME), audio,
long outputs, torn tails and bad lines, unknown item types and fields Codex's typed items lack.

Python 3 stdlib only; the images are made here (PNG with zlib, baseline JPEG with DC-only
blocks, lossless WebP with one-symbol prefix codes, GIF with 8-bit uncompressed LZW).
"""

import argparse
import base64
import json
import os
import random
import shutil
import struct
import uuid
import zlib

BASE_INSTRUCTIONS = "You are Codex, a coding agent based on GPT-5. You and the user share the same workspace."
MODEL = "gpt-5.5"


# --------------------------------------------------------------------------------------------
# Images (stdlib only)
# --------------------------------------------------------------------------------------------

def png(w, h, rgb=(10, 20, 30), alpha=False):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    px = bytes(rgb) + (b"\xff" if alpha else b"")
    raw = b"".join(b"\x00" + px * w for _ in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6 if alpha else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def jpeg(w, h):
    """A grey baseline JPEG: one component, every 8x8 block DC diff 0 and EOB."""
    def seg(m, d):
        return b"\xff" + bytes([m]) + struct.pack(">H", len(d) + 2) + d
    out = b"\xff\xd8"
    out += seg(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    out += seg(0xDB, b"\x00" + bytes([1] * 64))
    out += seg(0xC0, struct.pack(">BHHB", 8, h, w, 1) + b"\x01\x11\x00")
    # Standard luminance DC table (class 0 id 0) and AC table (class 1 id 0).
    dc_bits = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    dc_vals = list(range(12))
    ac_bits = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
    ac_vals = bytes.fromhex(
        "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa")
    out += seg(0xC4, b"\x00" + bytes(dc_bits) + bytes(dc_vals))
    out += seg(0xC4, b"\x10" + bytes(ac_bits) + ac_vals)
    out += seg(0xDA, b"\x01\x01\x00\x00\x3f\x00")
    blocks = ((w + 7) // 8) * ((h + 7) // 8)
    # DC category 0 = code "00", AC EOB = code "1010": 6 bits per block.
    bits = "001010" * blocks
    bits += "1" * (-len(bits) % 8)
    data = bytearray()
    for i in range(0, len(bits), 8):
        b = int(bits[i:i + 8], 2)
        data.append(b)
        if b == 0xFF:
            data.append(0)
    return out + bytes(data) + b"\xff\xd9"


class BitWriter:
    def __init__(self):
        self.bits = []

    def put(self, value, n):
        for i in range(n):
            self.bits.append((value >> i) & 1)

    def bytes(self):
        out = bytearray()
        for i in range(0, len(self.bits), 8):
            b = 0
            for j, bit in enumerate(self.bits[i:i + 8]):
                b |= bit << j
            out.append(b)
        return bytes(out)


def webp(w, h, argb=(255, 10, 20, 30)):
    """Lossless WebP (VP8L) of one colour: every prefix code has one symbol, so 0 bits/pixel."""
    bw = BitWriter()
    bw.put(0x2F, 8)
    bw.put(w - 1, 14)
    bw.put(h - 1, 14)
    bw.put(0, 1)  # alpha hint
    bw.put(0, 3)  # version
    bw.put(0, 1)  # no transform
    bw.put(0, 1)  # no colour cache
    bw.put(0, 1)  # no meta prefix codes
    a, r, g, b = argb
    for sym in (g, r, b, a, 0):  # green, red, blue, alpha, distance
        bw.put(1, 1)  # simple code
        bw.put(0, 1)  # one symbol
        bw.put(1, 1)  # 8-bit symbol
        bw.put(sym, 8)
    data = bw.bytes()
    if len(data) % 2:
        data += b"\x00"
    chunk = b"VP8L" + struct.pack("<I", len(bw.bytes())) + data
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def gif(w, h):
    """A GIF with a 128-colour table and uncompressed 8-bit LZW (a clear code every 126 codes)."""
    out = b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF6, 0, 0)
    out += b"".join(bytes((i * 2 % 256, (255 - i * 2) % 256, 100)) for i in range(128))
    out += b"\x2c" + struct.pack("<HHHHB", 0, 0, w, h, 0)
    min_code = 7
    clear, end = 1 << min_code, (1 << min_code) + 1
    bw = BitWriter()
    n = w * h
    i = 0
    while i < n:
        bw.put(clear, 8)
        for _ in range(min(126, n - i)):
            bw.put(5, 8)
            i += 1
    bw.put(end, 8)
    data = bw.bytes()
    out += bytes([min_code])
    for j in range(0, len(data), 255):
        blk = data[j:j + 255]
        out += bytes([len(blk)]) + blk
    out += b"\x00\x3b"
    return out


def data_url(mime, raw):
    return f"data:{mime};base64," + base64.b64encode(raw).decode()


# --------------------------------------------------------------------------------------------
# Rollout writer
# --------------------------------------------------------------------------------------------

class Rollout:
    def __init__(self, rng, provider="openai", meta_extra=None, paginated=False, originator=None):
        self.rng = rng
        self.lines = []
        self.t = 1785225600.0 + rng.randrange(0, 86400 * 30)
        self.thread = self.uuid7()
        self.paginated = paginated
        self.ordinal = 0
        meta = {"session_id": self.thread, "id": self.thread, "timestamp": self.ts(),
                "cwd": "/home/dev/project", "originator": originator or rng.choice(
                    ["codex_vscode", "codex_cli_rs"]),
                "cli_version": rng.choice(["0.146.0", "0.150.2", "0.160.0"]),
                "source": rng.choice(["vscode", "cli"]), "thread_source": "user",
                "model_provider": provider,
                "base_instructions": {"text": BASE_INSTRUCTIONS},
                "history_mode": "paginated" if paginated else "legacy"}
        if meta_extra:
            meta.update(meta_extra)
        self.meta = meta
        self.rec("session_meta", meta)
        self.turn = None
        self.first_turn = True

    def uuid7(self):
        ms = int(self.t * 1000)
        rnd = self.rng.getrandbits(74)
        v = (ms << 80) | (0x7 << 76) | ((rnd >> 62) << 64) | (0b10 << 62) | (rnd & ((1 << 62) - 1))
        return str(uuid.UUID(int=v))

    def ts(self):
        self.t += self.rng.random() * 2
        import datetime
        return datetime.datetime.fromtimestamp(self.t, datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

    def rec(self, kind, payload, raw=None):
        obj = {"timestamp": self.ts()}
        if self.paginated:
            obj["ordinal"] = self.ordinal
            self.ordinal += 1
        obj["type"] = kind
        obj["payload"] = payload
        self.lines.append(raw if raw is not None else json.dumps(obj, ensure_ascii=False,
                                                                 separators=(",", ":")))

    def item(self, payload):
        self.rec("response_item", payload)
        return payload

    def event(self, payload):
        self.rec("event_msg", payload)

    def msg(self, role, parts, phase=None, with_id=True, passthrough=True):
        m = {"type": "message"}
        if with_id:
            m["id"] = "msg_" + self.uuid7()
        m["role"] = role
        m["content"] = parts
        if phase:
            m["phase"] = phase
        if passthrough and self.turn:
            m["internal_chat_message_metadata_passthrough"] = {"turn_id": self.turn}
        return self.item(m)

    def start_turn(self, user_text=None, user_parts=None):
        self.turn = self.uuid7()
        self.event({"type": "task_started", "turn_id": self.turn, "started_at": int(self.t),
                    "model_context_window": 258400, "collaboration_mode_kind": "default"})
        if self.first_turn:
            self.msg("developer", [{"type": "input_text", "text":
                     "<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>"}])
            self.msg("user", [{"type": "input_text", "text":
                     "# AGENTS.md instructions for /home/dev/project\n\n<INSTRUCTIONS>\nBe brief.\n</INSTRUCTIONS>"},
                              {"type": "input_text", "text":
                     "<environment_context>\n  <cwd>/home/dev/project</cwd>\n  <shell>bash</shell>\n</environment_context>"}])
            self.first_turn = False
        self.rec("turn_context", {"turn_id": self.turn, "cwd": "/home/dev/project",
                                  "current_date": "2026-07-28", "timezone": "UTC",
                                  "approval_policy": "on-request",
                                  "sandbox_policy": {"type": "workspace-write"},
                                  "model": MODEL, "effort": "medium", "summary": "auto"})
        parts = user_parts if user_parts is not None else [
            {"type": "input_text", "text": user_text or self.words(6)}]
        self.msg("user", parts)
        self.event({"type": "user_message", "message": user_text or "look", "images": [],
                    "local_images": [], "text_elements": []})

    def reasoning(self):
        self.item({"type": "reasoning", "id": "rs_" + self.hex(40), "summary": [
            {"type": "summary_text", "text": "**" + self.words(3) + "**"}],
            "encrypted_content": "gAAAAA" + self.hex(40)})

    def answer(self, text=None):
        text = text or self.words(8)
        self.event({"type": "agent_message", "message": text})
        self.msg("assistant", [{"type": "output_text", "text": text}], phase="final_answer")

    def end_turn(self, aborted=False):
        self.event({"type": "token_count", "info": {"total_token_usage": {
            "input_tokens": 1000, "cached_input_tokens": 0, "output_tokens": 10,
            "reasoning_output_tokens": 0, "total_tokens": 1010}}})
        if aborted:
            self.event({"type": "turn_aborted", "turn_id": self.turn, "reason": "interrupted"})
        else:
            self.event({"type": "task_complete", "turn_id": self.turn,
                        "last_agent_message": "done"})

    def simple_turn(self, text=None):
        self.start_turn(text)
        self.reasoning()
        self.answer()
        self.end_turn()

    def call_id(self):
        return "call_" + "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789")
                                 for _ in range(24))

    def hex(self, n):
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def words(self, n):
        w = ["rust", "file", "parse", "index", "check", "build", "cache", "token", "line", "test",
             "merge", "split", "fix", "read", "write", "loop"]
        return " ".join(self.rng.choice(w) for _ in range(n))

    def text(self):
        return "\n".join(self.lines) + "\n"


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------

CASES = []


def case(name, n=1):
    def deco(fn):
        CASES.append((name, n, fn))
        return fn
    return deco


def tool_turn(r, calls_outputs, answer=True):
    r.start_turn()
    r.reasoning()
    for it in calls_outputs:
        if it is not None:
            r.item(it)
    if answer:
        r.answer()
    r.end_turn()


@case("function_call", 4)
def _(r, v):
    cid = r.call_id()
    call = {"type": "function_call", "id": "fc_" + r.hex(20), "name": "exec_command",
            "arguments": json.dumps({"cmd": "ls", "workdir": "/home/dev/project"}), "call_id": cid}
    outs = [{"type": "function_call_output", "call_id": cid, "output": "Process exited with code 0\nOutput:\nsrc\n"},
            {"type": "function_call_output", "call_id": cid, "output": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]},
            None,
            {"type": "function_call_output", "id": "fco_" + r.hex(8), "call_id": cid, "output": "ok", "status": "completed"}]
    if v == 2:
        tool_turn(r, [call], answer=False)
        r.simple_turn()
    else:
        tool_turn(r, [call, outs[v]])


@case("function_call_variants", 6)
def _(r, v):
    cid = r.call_id()
    base = {"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"pwd\"}", "call_id": cid}
    variants = [
        dict(base, namespace="mcp__files"),                     # namespace field
        dict(base, status="completed"),                         # status field
        {k: v for k, v in base.items() if k != "call_id"},      # no call_id (undeserializable)
        dict(base, id=""),                                      # empty id
        dict(base, id=None, x_extra=1),                          # null id + unknown field
        dict(base, arguments={"cmd": "pwd"}),                   # arguments as an object
    ]
    out = {"type": "function_call_output", "call_id": cid, "output": "/home/dev/project"}
    tool_turn(r, [variants[v], out])


@case("function_output_variants", 7)
def _(r, v):
    cid = r.call_id()
    call = {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": cid}
    outputs = [
        {"content": "x", "success": True},                       # object output
        [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": ""}, {"type": "input_text", "text": "b"}],
        [{"type": "output_text", "text": "a"}],                 # output_text in an array
        [],                                                      # empty array
        [{"type": "input_image", "image_url": data_url("image/png", png(4, 4))}, {"type": "input_text", "text": "img"}],
        "",
        [{"type": "input_text", "text": "a", "x_extra": True}],
    ]
    tool_turn(r, [call, {"type": "function_call_output", "call_id": cid, "output": outputs[v]}])


@case("mcp", 4)
def _(r, v):
    cid = r.call_id()
    call = {"type": "function_call", "id": "fc_" + r.hex(20), "name": "mcp__github__search_issues",
            "arguments": json.dumps({"query": "bug"}), "call_id": cid}
    if v == 1:
        call = dict(call, name="search_issues", namespace="mcp__github__")
    outs = [
        "{\"content\":[{\"type\":\"text\",\"text\":\"3 issues\"}],\"isError\":false}",
        [{"type": "input_text", "text": "3 issues"}],
        [{"type": "input_text", "text": "chart"}, {"type": "input_image", "image_url": data_url("image/png", png(8, 8))}],
        None,
    ]
    items = [call] + ([{"type": "function_call_output", "call_id": cid, "output": outs[v]}] if outs[v] is not None else [])
    tool_turn(r, items)


@case("custom_tool", 6)
def _(r, v):
    cid = r.call_id()
    call = {"type": "custom_tool_call", "id": "ctc_" + r.hex(20), "status": "completed", "call_id": cid,
            "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}
    if v == 1:
        call.pop("call_id")
    if v == 2:
        call.pop("status")
    if v == 3:
        call["x_extra"] = "y"
    out = {"type": "custom_tool_call_output", "id": "ctco_" + r.uuid7(), "call_id": cid, "output": "Success."}
    if v == 4:
        out["output"] = [{"type": "input_text", "text": "Script completed"}, {"type": "input_text", "text": ""},
                         {"type": "input_image", "image_url": data_url("image/png", png(2, 2)), "detail": "high"}]
    if v == 5:
        tool_turn(r, [call], answer=False)
        r.simple_turn()
        return
    tool_turn(r, [call, out])


@case("local_shell", 5)
def _(r, v):
    cid = "shell-" + r.hex(6)
    call = {"type": "local_shell_call", "id": "lsh_" + r.hex(10), "call_id": cid, "status": "completed",
            "action": {"type": "exec", "command": ["ls", "-la"], "timeout_ms": None,
                       "working_directory": None, "env": None, "user": None}}
    out = {"type": "function_call_output", "call_id": cid, "output": "total 0"}
    if v == 1:
        call.pop("call_id")
        tool_turn(r, [call])
    elif v == 2:
        tool_turn(r, [call], answer=False)
        r.simple_turn()
    elif v == 3:
        call["status"] = "weird"
        tool_turn(r, [call, out])
    elif v == 4:
        call["action"] = {"type": "exec", "command": ["echo", "hi"], "timeout_ms": 1000,
                          "working_directory": "/tmp", "env": {"A": "1"}, "user": "dev"}
        tool_turn(r, [call, out])
    else:
        tool_turn(r, [call, out])


@case("tool_search", 6)
def _(r, v):
    cid = "ts_" + r.hex(8)
    call = {"type": "tool_search_call", "id": "tsc_" + r.hex(12), "call_id": cid, "status": "completed",
            "execution": "client", "arguments": {"query": "calendar"}}
    out = {"type": "tool_search_output", "call_id": cid, "status": "completed", "execution": "client",
           "tools": [{"type": "function", "name": "cal", "description": "d",
                      "parameters": {"type": "object", "properties": {}}}]}
    if v == 1:
        tool_turn(r, [call], answer=False)
        r.simple_turn()
    elif v == 2:
        tool_turn(r, [dict(out, call_id="ts_orphan")])
    elif v == 3:
        tool_turn(r, [dict(out, call_id="ts_orphan", execution="server")])
    elif v == 4:
        call.pop("call_id")
        tool_turn(r, [call])
    elif v == 5:
        tool_turn(r, [dict(call, x_extra=1), dict(out, x_extra=2)])
    else:
        tool_turn(r, [call, out])


@case("web_search", 6)
def _(r, v):
    actions = [{"type": "search", "query": "rust serde"}, {"type": "open_page", "url": "https://docs.rs"},
               {"type": "find_in_page", "url": "https://docs.rs", "pattern": "serde"},
               {"type": "search", "query": "q", "sources": [{"type": "url", "url": "https://a"}]},
               {"type": "teleport"}, None]
    ws = {"type": "web_search_call", "id": "ws_" + r.hex(12), "status": "completed"}
    if actions[v] is not None:
        ws["action"] = actions[v]
    tool_turn(r, [ws])


@case("image_generation", 5)
def _(r, v):
    ig = {"type": "image_generation_call", "id": "ig_" + r.hex(10), "status": "completed",
          "revised_prompt": "a lobster", "result": base64.b64encode(png(3, 3)).decode()}
    if v == 1:
        ig["output_format"] = "png"
        ig["size"] = "1024x1024"
    if v == 2:
        ig.pop("revised_prompt")
    if v == 3:
        ig["result"] = ""
        ig["status"] = "generating"
    if v == 4:
        ig.pop("id")
    tool_turn(r, [ig])


@case("orphans", 4)
def _(r, v):
    kinds = [{"type": "function_call_output", "call_id": "call_orphan", "output": "x"},
             {"type": "custom_tool_call_output", "call_id": "call_orphan", "output": "x"},
             {"type": "tool_search_output", "call_id": "ts_orphan", "status": "completed", "execution": "client", "tools": []},
             {"type": "function_call_output", "output": "no call id"}]
    tool_turn(r, [kinds[v]])


@case("unanswered_mid", 3)
def _(r, v):
    cid = r.call_id()
    calls = [{"type": "function_call", "id": "fc_" + r.hex(8), "name": "exec_command", "arguments": "{}", "call_id": cid},
             {"type": "custom_tool_call", "id": "ctc_" + r.hex(8), "status": "completed", "call_id": cid, "name": "apply_patch", "input": "x"},
             {"type": "tool_search_call", "id": "tsc_" + r.hex(8), "call_id": cid, "status": "completed", "execution": "client", "arguments": {}}]
    r.start_turn()
    r.item(calls[v])
    r.end_turn(aborted=True)
    r.simple_turn()


@case("unknown_items", 4)
def _(r, v):
    items = [{"type": "agent_scratchpad", "id": "sp_1", "notes": ["x"]},
             {"type": "other"},
             {"type": "compaction", "encrypted_content": "Y29tcA=="},
             {"type": "ghost_snapshot", "ghost_commit": {"id": "ab", "parent": None,
                                                           "preexisting_untracked_files": [], "preexisting_untracked_dirs": []}}]
    tool_turn(r, [items[v]])


@case("message_fields", 8)
def _(r, v):
    r.simple_turn()
    r.start_turn()
    parts = [{"type": "output_text", "text": "hello"}]
    m = {"type": "message", "id": "msg_" + r.uuid7(), "role": "assistant", "content": parts}
    if v == 0:
        m["phase"] = "commentary"
    if v == 1:
        m["phase"] = "thinking_out_loud"        # unknown phase
    if v == 2:
        m["status"] = "completed"
        m["end_turn"] = True
    if v == 3:
        m["id"] = ""
    if v == 4:
        m["internal_chat_message_metadata_passthrough"] = {"turn_id": r.turn, "create_time": 1.5, "x_extra": 1,
                                                           "content_item_metadata": [{"provenance": {"type": "user"}}]}
    if v == 5:
        parts[0]["annotations"] = []
        parts[0]["logprobs"] = []
    if v == 6:
        m["content"] = [{"type": "refusal", "refusal": "no"}]
    if v == 7:
        m["role"] = "system"
        m["content"] = [{"type": "input_text", "text": "sys"}]
    r.item(m)
    r.end_turn()


@case("reasoning_fields", 4)
def _(r, v):
    rs = {"type": "reasoning", "id": "rs_" + r.hex(20), "summary": [], "encrypted_content": "gAAA"}
    if v == 0:
        rs["content"] = [{"type": "reasoning_text", "text": "think"}]
    if v == 1:
        rs["content"] = [{"type": "text", "text": "think"}]
    if v == 2:
        rs["encrypted_content"] = None
        rs["status"] = "completed"
    if v == 3:
        rs.pop("id")
    tool_turn(r, [rs])


@case("agent_message", 2)
def _(r, v):
    r.simple_turn()
    am = {"type": "agent_message", "author": "/root/worker", "recipient": "/root",
          "content": [{"type": "input_text", "text": "Done with the index."}]}
    if v == 1:
        am["id"] = "am_1"
        am["x_extra"] = 3
    r.item(am)
    r.simple_turn()


def image_parts(kind, r):
    big = {
        "png_small": ("image/png", png(16, 8)),
        "png_2048": ("image/png", png(2048, 16)),
        "png_2049": ("image/png", png(2049, 16)),
        "png_tiles_2500": ("image/png", png(1600, 1600)),   # 50x50 = 2500 tiles
        "png_tiles_2501": ("image/png", png(1601, 1600)),   # 51x50 tiles
        "png_6001": ("image/png", png(6001, 4)),
        "png_alpha": ("image/png", png(8, 8, alpha=True)),
        "jpeg_small": ("image/jpeg", jpeg(16, 16)),
        "jpeg_big": ("image/jpeg", jpeg(3000, 40)),
        "webp_small": ("image/webp", webp(16, 16)),
        "webp_big": ("image/webp", webp(4000, 30)),
        "gif_small": ("image/gif", gif(4, 4)),
        "gif_big": ("image/gif", gif(2500, 8)),
        "png_as_jpeg": ("image/jpeg", png(4, 4)),
        "jpeg_as_png": ("image/png", jpeg(8, 8)),
        "gif_as_png": ("image/png", gif(3, 3)),
        "webp_as_png": ("image/png", webp(5, 5)),
    }
    if kind in big:
        mime, raw = big[kind]
        return [{"type": "input_image", "image_url": data_url(mime, raw)}]
    special = {
        "bad_base64": "data:image/png;base64,%%%notbase64",
        "not_image": "data:image/png;base64," + base64.b64encode(b"hello world, not an image").decode(),
        "bmp": "data:image/bmp;base64," + base64.b64encode(b"BM" + b"\x00" * 60).decode(),
        "svg": "data:image/svg+xml;base64," + base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>").decode(),
        "remote_http": "http://example.com/a.png",
        "remote_https_upper": "HTTPS://EXAMPLE.COM/B.PNG",
        "file_url": "file:///tmp/a.png",
        "empty_payload": "data:image/png;base64,",
    }
    return [{"type": "input_image", "image_url": special[kind]}]


IMAGE_KINDS = ["png_small", "png_2048", "png_2049", "png_tiles_2500", "png_tiles_2501", "png_6001",
               "png_alpha", "jpeg_small", "jpeg_big", "webp_small", "webp_big", "gif_small", "gif_big",
               "png_as_jpeg", "jpeg_as_png", "gif_as_png", "webp_as_png", "bad_base64", "not_image", "bmp",
               "svg", "remote_http", "remote_https_upper", "file_url", "empty_payload"]


@case("image", len(IMAGE_KINDS) * 3)
def _(r, v):
    kind = IMAGE_KINDS[v % len(IMAGE_KINDS)]
    where = v // len(IMAGE_KINDS)
    parts = image_parts(kind, r)
    if where == 0:      # in a user message
        r.start_turn("look", [{"type": "input_text", "text": "look"}] + parts)
        r.answer()
        r.end_turn()
    elif where == 1:    # in a function output array
        cid = r.call_id()
        tool_turn(r, [{"type": "function_call", "name": "view_image", "arguments": "{}", "call_id": cid},
                      {"type": "function_call_output", "call_id": cid, "output": parts}])
    else:               # with a detail
        det = r.rng.choice(["low", "high", "auto", "original"])
        parts = [dict(p, detail=det) for p in parts]
        r.start_turn("look", [{"type": "input_text", "text": "look"}] + parts)
        r.answer()
        r.end_turn()


@case("image_detail_original", 3)
def _(r, v):
    raw = [png(6000, 4), png(6001, 4), png(1600, 1600)][v]
    r.start_turn("look", [{"type": "input_text", "text": "look"},
                          {"type": "input_image", "image_url": data_url("image/png", raw), "detail": "original"}])
    r.answer()
    r.end_turn()


AUDIO = ["data:audio/wav;base64,UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=",
         "data:audio/wav;base64,", "data:audio/mp3;base64,SUQz", "data:audio/flac;base64,ZkxhQw==",
         "data:audio/wav;base64,%%%", "https://example.com/a.wav", "data:audio/x-wav;base64,YXVkaW8=",
         "data:audio/ogg;base64,T2dnUw=="]


@case("audio", len(AUDIO) * 2)
def _(r, v):
    url = AUDIO[v % len(AUDIO)]
    part = {"type": "input_audio", "audio_url": url}
    if v < len(AUDIO):
        r.start_turn("listen", [{"type": "input_text", "text": "listen"}, part])
        r.answer()
        r.end_turn()
    else:
        cid = r.call_id()
        tool_turn(r, [{"type": "function_call", "name": "record", "arguments": "{}", "call_id": cid},
                      {"type": "function_call_output", "call_id": cid, "output": [{"type": "input_text", "text": "clip"}, part]}])


@case("long_output", 8)
def _(r, v):
    cid = r.call_id()
    n = [39000, 40000, 40001, 48000, 60000, 120000, 50000, 50000][v]
    line = "0123456789abcdef" * 4 + "\n"
    text = (line * (n // len(line) + 1))[:n]
    if v == 6:
        text = ("é" * (n // 2))
    if v < 6 or v == 6:
        out = text
    else:
        out = [{"type": "input_text", "text": text[:30000]}, {"type": "input_text", "text": text[:30000]},
               {"type": "input_image", "image_url": data_url("image/png", png(2, 2))}, {"type": "input_text", "text": "tail"}]
    kind = r.rng.choice(["function", "custom"])
    if kind == "function":
        items = [{"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": cid},
                 {"type": "function_call_output", "call_id": cid, "output": out}]
    else:
        items = [{"type": "custom_tool_call", "status": "completed", "call_id": cid, "name": "exec", "input": "x"},
                 {"type": "custom_tool_call_output", "call_id": cid, "output": out}]
    tool_turn(r, items)


def replacement(r, v):
    hist = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "earlier question"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "earlier answer"}]}]
    extra = [None, "not an object", {"type": "ghost_snapshot", "ghost_commit": {"id": "a"}},
             {"type": "message", "role": "system", "content": [{"type": "input_text", "text": "sys"}]},
             {"type": "unknown_future"}, {"type": "compaction", "encrypted_content": "Y29t"},
             {"type": "function_call", "name": "x", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "c", "output": "x" * 50000}]
    if extra[v % len(extra)] is not None:
        hist.append(extra[v % len(extra)])
    return hist


@case("compaction_replacement", 8)
def _(r, v):
    r.simple_turn()
    r.simple_turn()
    r.rec("compacted", {"message": "", "replacement_history": replacement(r, v)})
    r.simple_turn()


LEGACY_USERS = [
    lambda r: [{"type": "input_text", "text": "Please review "}, {"type": "input_text", "text": "this."}],
    lambda r: [{"type": "input_text", "text": "<image>"}, {"type": "input_image", "image_url": data_url("image/png", png(2, 2))}, {"type": "input_text", "text": "</image>"}, {"type": "input_text", "text": "what is it"}],
    lambda r: [{"type": "input_text", "text": "word " * 20000}],
    lambda r: [{"type": "input_text", "text": "é" * 50000}],
    lambda r: [{"type": "input_image", "image_url": data_url("image/png", png(2, 2))}],
    lambda r: [{"type": "input_text", "text": "plain question"}],
]


@case("compaction_legacy", 12)
def _(r, v):
    parts = LEGACY_USERS[v % len(LEGACY_USERS)](r)
    r.start_turn("q", parts)
    r.answer()
    r.end_turn()
    r.simple_turn()
    msg = "" if v >= 6 else "Summary: the user asked things."
    r.rec("compacted", {"message": msg})
    r.simple_turn()


@case("rollback", 10)
def _(r, v):
    n_turns = 2 + v % 3
    for _ in range(n_turns):
        r.simple_turn()
    k = [1, 2, n_turns, n_turns + 3][v % 4]
    r.event({"type": "thread_rolled_back", "num_turns": k})
    if v >= 5:
        r.simple_turn()


@case("rollback_over_compaction", 10)
def _(r, v):
    r.simple_turn("t1")
    r.simple_turn("t2")
    if v % 2 == 0:
        r.rec("compacted", {"message": "", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "t1"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "summary"}]}]})
    else:
        r.rec("compacted", {"message": "summary of t1 t2"})
    r.simple_turn("t3")
    k = [1, 2, 3, 1, 2][v // 2]
    if v // 2 == 3:
        r.rec("compacted", {"message": "", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "second"}]}]})
    r.event({"type": "thread_rolled_back", "num_turns": k})
    r.simple_turn("t4")


@case("bad_lines", 8)
def _(r, v):
    r.simple_turn()
    if v == 0:
        r.lines.append("this is not json")
    if v == 1:
        r.lines.append('{"timestamp":"x","type":"response_item","payload":"not an object"}')
    if v == 2:
        r.lines.append('{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"user"}}')
    if v == 3:
        r.lines.append('[1,2,3]')
    if v == 4:
        r.lines.append('{"timestamp":"x","type":"brand_new_kind","payload":{}}')
    if v == 5:
        r.lines.append('{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"user","content":"string content"}}')
    if v == 6:
        r.lines.append('{"timestamp":"x","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":"1"}}')
    if v == 7:
        r.lines.append('{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text"}]}}')
    r.simple_turn()


@case("torn_tail", 4)
def _(r, v):
    r.simple_turn()
    r.start_turn()
    cid = r.call_id()
    r.item({"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": cid})
    line = json.dumps({"timestamp": r.ts(), "type": "response_item", "payload": {
        "type": "function_call_output", "call_id": cid, "output": "partial output"}})
    cut = [len(line) // 2, len(line) - 1, 10, len(line) - 3][v]
    r.torn = line[:cut]


@case("meta_variants", 8)
def _(r, v):
    r.simple_turn()


META_VARIANTS = [
    {"base_instructions": "a string"},
    {"history_mode": "mystery"},
    {"base_instructions": None},
    {"model_provider": "local-proxy"},
    {"model_provider": "azure"},
    {"source": {"subagent": {"thread_spawn": {"parent_thread_id": "019f4efb-ae76-7e30-b44e-3fa464c16193",
                                             "depth": 1, "agent_path": "/root/x", "agent_nickname": "N",
                                             "agent_role": None}}}, "thread_source": "subagent"},
    {"source": "exec", "x_extra_meta": 1},
    {"history_mode": "paginated"},
]


def build(name, v, rng):
    if name == "meta_variants":
        mv = dict(META_VARIANTS[v])
        prov = mv.pop("model_provider", "openai")
        r = Rollout(rng, provider=prov, meta_extra=mv, paginated=(v == 7))
    else:
        r = Rollout(rng, paginated=(rng.random() < 0.2))
    fn = dict((n, f) for n, _, f in CASES)[name]
    fn(r, v)
    text = r.text()
    if getattr(r, "torn", None) is not None:
        text += r.torn
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=169)
    ap.add_argument("--out", default="/tmp/codex-gen")
    args = ap.parse_args()
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    rng = random.Random(args.seed)
    n = 0
    for name, count, _ in CASES:
        for v in range(count):
            text = build(name, v, rng)
            d = os.path.join(args.out, f"{n:03d}-{name}-{v}")
            os.makedirs(d)
            with open(os.path.join(d, "rollout.jsonl"), "wb") as fh:
                fh.write(text.encode())
            n += 1
    # Byte-level damage that JSON text cannot carry: a BOM, invalid UTF-8, CRLF line ends.
    for tag, mangle in [("bom", lambda b: b"\xef\xbb\xbf" + b),
                        ("invalid_utf8", lambda b: b + b'{"timestamp":"x","type":"event_msg","payload":{"type":"agent_message","message":"\xff\xfe"}}\n'),
                        ("crlf", lambda b: b.replace(b"\n", b"\r\n")),
                        ("blank_lines", lambda b: b.replace(b"\n", b"\n\n  \n"))]:
        text = build("function_call", 0, rng).encode()
        d = os.path.join(args.out, f"{n:03d}-bytes-{tag}")
        os.makedirs(d)
        with open(os.path.join(d, "rollout.jsonl"), "wb") as fh:
            fh.write(mangle(text))
        n += 1
    print(f"wrote {n} rollouts under {args.out}")


if __name__ == "__main__":
    main()
