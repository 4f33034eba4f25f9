#!/usr/bin/env python3
"""Seeded random rollout generator for differential testing (stdlib only).

    python3 scripts/gen_cases.py --seed N --out DIR --count K [--profile core|edge|mixed]

profile `core` only produces inputs whose meaning SPEC.md states plainly; `edge` also produces
inputs where the spec needs reading closely or is silent (lone surrogates, 1e400, duplicate
keys, non-string ids, `payload: null`, exotic whitespace, ...). `mixed` (default) picks per file.
Besides the records of §1-§4, files carry the material of the later sections: every contextual
fragment of §2.1 and near misses, developer context and `<model_switch>` bundles with turn ids,
inter_agent_communication records and inter-agent assistant messages, legacy compactions and
rollbacks inside turn scenarios, image / audio parts with real tiny media headers and broken URLs
(§8 R2), array outputs with encrypted and unknown elements (§8 R1), and 2025 pre-envelope files
(§9, dialect codex-2025).
Each case is a pure function of (seed, index, profile).
"""

import argparse
import json
import os
import random

# ---------------------------------------------------------------------------------------------
# JSON text with controlled spelling


class O:
    """A JSON object as ordered (key, value) pairs; duplicates allowed."""

    def __init__(self, *pairs):
        self.pairs = list(pairs)

    @staticmethod
    def of(d):
        return O(*d.items())


class Num:
    """A number with an exact spelling."""

    def __init__(self, text):
        self.text = text


class Raw:
    """Already-serialized JSON text, inserted as is."""

    def __init__(self, text):
        self.text = text


class Writer:
    def __init__(self, rng, edge):
        self.rng = rng
        self.edge = edge
        r = rng.random()
        # per-file style: compact, spaced, or chaotic
        self.ws_style = "compact" if r < 0.45 else ("spaced" if r < 0.8 else "chaotic")
        self.escape_rate = rng.choice([0.0, 0.0, 0.05, 0.3])

    def ws(self):
        if self.ws_style == "compact":
            return ""
        if self.ws_style == "spaced":
            return self.rng.choice(["", " "])
        return self.rng.choice(["", "", " ", "  ", "\t", " \t ", "\r"])

    def string(self, s):
        rng = self.rng
        out = ['"']
        for ch in s:
            o = ord(ch)
            if ch == '"':
                out.append('\\"' if rng.random() > self.escape_rate else "\\u0022")
            elif ch == "\\":
                out.append("\\\\" if rng.random() > self.escape_rate else "\\u005c")
            elif 0xD800 <= o <= 0xDFFF:  # lone surrogate (only reachable from edge cases)
                out.append("\\u%04x" % o)
            elif o < 0x20:
                short = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}.get(ch)
                if short and rng.random() > self.escape_rate:
                    out.append(short)
                else:
                    out.append(rng.choice(["\\u%04x", "\\u%04X"]) % o)
            elif ch == "/":
                out.append("\\/" if rng.random() < max(self.escape_rate, 0.2) else "/")
            elif o < 0x80:
                out.append(ch if rng.random() >= self.escape_rate * 0.3 else "\\u%04x" % o)
            elif rng.random() < self.escape_rate * 2:
                if o > 0xFFFF:
                    v = o - 0x10000
                    hi, lo = 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)
                    out.append(rng.choice(["\\u%04x\\u%04x", "\\u%04X\\u%04X"]) % (hi, lo))
                else:
                    out.append(rng.choice(["\\u%04x", "\\u%04X"]) % o)
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)

    def dump(self, v):
        w = self.ws
        if isinstance(v, O):
            if not v.pairs:
                return "{" + w() + "}"
            return "{" + w() + ("," + w()).join(
                self.string(k) + w() + ":" + w() + self.dump(x) + w() for k, x in v.pairs
            ) + "}"
        if isinstance(v, dict):
            return self.dump(O.of(v))
        if isinstance(v, list):
            if not v:
                return "[" + w() + "]"
            return "[" + w() + ("," + w()).join(self.dump(x) + w() for x in v) + "]"
        if isinstance(v, (Num, Raw)):
            return v.text
        if isinstance(v, str):
            return self.string(v)
        if v is True:
            return "true"
        if v is False:
            return "false"
        if v is None:
            return "null"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return repr(v)
        raise TypeError(type(v))

    def line(self, v):
        return (self.ws() + self.dump(v) + self.ws()).encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------------------------
# Content pools

FRAGMENTS = [
    ("# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),  # no longer contextual (SPEC §2.1)
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<recommended_plugins>", "</recommended_plugins>"),
]

# Case-sensitive fragments of SPEC §2.1 (whole texts), and near misses.
EXACT_FRAGMENTS = [
    "<external_slack>ping</external_slack>", "<external_></external_>", "<external_a b>x</external_a b>",
    "<external_Slack>x</external_slack>", "<goal_context>ship it</goal_context>",
    '<codex_internal_context source="memory">m</codex_internal_context>',
    '<codex_internal_context source="Memory">m</codex_internal_context>',
    '<codex_internal_context source="">m</codex_internal_context>',
    '<hook_prompt hook_run_id="h1">run the linter</hook_prompt>',
    '<hook_prompt hook_run_id=" ">blank id</hook_prompt>', '<hook_prompt hook_run_id="h2"></hook_prompt>',
    '<other hook_run_id="h3">any root name</other>', '<hook_prompt hook_run_id="h4">x</hook_prompt> trailing',
    "Warning: The maximum number of unified exec processes you can keep open is 8.",
    "Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead of exec_command.",
    "Warning: apply_patch was requested via exec_command.",
    "Warning: Your account was flagged for potentially high-risk cyber activity.",
]

DEV_MARKERS = ["<permissions instructions>", "Approved command prefix saved:", "<collaboration_mode>", "<tools>",
               "<context_window>", "<context_window_guidance>", "<PERMISSIONS INSTRUCTIONS>", "<not_a_marker>"]
MODEL_SWITCH = ("<model_switch>\nThe user was previously using a different model. Please continue the conversation "
                "according to the following instructions:\n\nBe brief.\n</model_switch>")
SUMMARY_PREFIX = ("Another language model started to solve this problem and produced a summary of its thinking "
                  "process. You also have access to the state of the tools that were used by that language model. "
                  "Use this to build on the work that has already been done and avoid duplicating work. Here is the "
                  "summary produced by the other language model, use the information in this summary to assist with "
                  "your own analysis:")

# Media for SPEC §8 R2: tiny real headers.
PNG_1x1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
PNG_BIG = "iVBORw0KGgoAAAANSUhEUgAACAEAAAABCAMAAAAA"  # header of a 2049x1 PNG (would resize)
GIF_1x1 = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs="
JPEG_HDR = "/9j/4AAQSkZJRgABAQAAAQABAAD/wAARCAAIAAgDASIAAhEBAxEB/9k="
WEBP_1x1 = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="
WAV_SHORT = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
IMAGE_URLS = [
    "data:image/png;base64," + PNG_1x1, "data:image/jpeg;base64," + PNG_1x1, "DATA:image/png;BASE64," + PNG_1x1,
    "data:image/png;name=a.png;base64," + PNG_1x1, "data:;base64," + PNG_1x1, "data:image/gif;base64," + GIF_1x1,
    "data:image/png;base64," + GIF_1x1, "data:image/jpg;base64," + JPEG_HDR, "data:image/webp;base64," + WEBP_1x1,
    "data:image/png;base64," + PNG_BIG, "data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,%%%",
    "data:image/png," + PNG_1x1, "data:image/png;base64", "https://example.com/a.png", "HTTP://example.com/b.png",
    "file:///tmp/c.png", " https://example.com/d.png", "", "data:image/png;base64,bm90IGFuIGltYWdl",
]
AUDIO_URLS = [
    "data:audio/wav;base64," + WAV_SHORT, "data:audio/x-wav;base64," + WAV_SHORT, "data:audio/mp3;base64,YXVkaW8=",
    "data:audio/webm;codecs=opus;base64,YXVkaW8=", "data:audio/flac,xyz", "data:audio/aac;base64,YXVkaW8=",
    "data:audio/wav;base64,YXVkaW9=", "https://example.com/a.wav", "audio:one", "data:;base64,YXVkaW8=",
    "data:audio/wav;base64,",
]

TEXTS = [
    "hello",
    "fix the bug in main.rs",
    "caf\u00e9 \u65e5\u672c\u8a9e \U0001f600 emoji",
    'quote " and backslash \\ and slash /',
    "line1\nline2\ttab",
    "ctrl \x01\x1f",
    "",
    "   ",
    "</skill>",
    "<skill>",
    "path C:\\x\\y and http://e.x/a/b",
    "\u2028\u2029 separators",
    "del \x7f and nbsp \u00a0",
]


def rand_case(rng, s):
    m = rng.random()
    if m < 0.5:
        return s
    if m < 0.7:
        return s.upper()
    if m < 0.8:
        return s.lower()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in s)


class Gen:
    def __init__(self, rng, edge):
        self.rng = rng
        self.edge = edge
        n = rng.randint(1, 6)
        self.call_ids = ["call_%d" % i for i in range(n)] + [""] * (1 if rng.random() < 0.1 else 0)
        self.turn_ids = ["turn-%d" % i for i in range(rng.randint(1, 4))]
        self.ids = 0

    def p(self, x):
        return self.rng.random() < x

    # --- scalars ----------------------------------------------------------------------------
    def number(self):
        rng = self.rng
        opts = [
            "1", "0", "-0", "1e5", "1E+2", "1.50", "-1.5e-3", "0.1", "123456789012345678901234567890",
            "-123456789012345678901234567890", "9007199254740993", "18446744073709551615",
            "18446744073709551616", "-9223372036854775808", "3.141592653589793238462643383279",
            "1.0", "2e-308", "0.000001",
        ]
        if self.edge:
            opts += ["1e400", "-1e400", "1e-400"]
        return Num(rng.choice(opts))

    def text(self):
        rng = self.rng
        if self.p(0.25):
            return self.fragment_text()
        if self.p(0.06):
            return rng.choice(EXACT_FRAGMENTS)
        if self.p(0.04):
            return rng.choice(["caf\u00e9 ", "\u65e5\u672c ", "\U0001f600", "ab"]) * rng.choice([5, 9, 40])
        t = rng.choice(TEXTS)
        if self.edge and self.p(0.05):
            t += "\ud800 lone"
        return t

    def fragment_text(self):
        rng = self.rng
        a, b = rng.choice(FRAGMENTS)
        mid = rng.choice(["", "x", "body\nmore", "</skill>", "<skill>"])
        a2, b2 = rand_case(rng, a), rand_case(rng, b)
        if self.p(0.1):  # broken fragment: missing the end marker or the start marker
            if self.p(0.5):
                b2 = ""
            else:
                a2 = ""
        ws = [" ", "\n", "\t", "\r\n", "", ""]
        if self.edge:
            ws += ["\u00a0", "\u3000", "\x0b", "\x0c", "\x1f", "\u200b"]
            if self.p(0.1):
                a2 = a2.replace("k", "\u212a").replace("K", "\u212a")  # Kelvin sign
        return rng.choice(ws) + rng.choice(ws) + a2 + mid + b2 + rng.choice(ws)

    def an_id(self, prefix):
        self.ids += 1
        m = self.rng.random()
        if m < 0.55:
            return ("id", "%s_%d" % (prefix, self.ids))
        if m < 0.75:
            return None
        if m < 0.85:
            return ("id", "")
        if m < 0.92:
            return ("id", None)
        if self.edge:
            return ("id", self.rng.choice([7, ["x"], "\u00e9\U0001f600"]))
        return ("id", "%s_\u00e9/%d" % (prefix, self.ids))

    def a_call_id(self, nullable=True):
        m = self.rng.random()
        if m < 0.85 or not nullable:
            return ("call_id", self.rng.choice(self.call_ids))
        if m < 0.92:
            return None
        if m < 0.97 or not self.edge:
            return ("call_id", None)
        return ("call_id", self.rng.choice([5, True, {"a": 1}]))

    def extras(self):
        d = []
        if self.p(0.01):
            d.append(("big", "x" * self.rng.choice([70000, 300000])))
        if self.edge and self.p(0.03):
            depth = self.rng.choice([100, 127, 128, 129, 200, 400])
            d.append(("deep", Raw("[" * depth + "1" + "]" * depth)))
        if self.p(0.2):
            d.append(("n", self.number()))
        if self.p(0.1):
            d.append(("nested", {"a": [self.number(), None, True, {"b": self.text()}]}))
        return d

    def build(self, pairs):
        pairs = [p for p in pairs if p is not None]
        if self.p(0.15):
            self.rng.shuffle(pairs)
        if self.edge and self.p(0.05) and pairs:
            k, v = self.rng.choice(pairs)
            if self.p(0.7):
                pairs.insert(0, (k, "DUP-" + str(k)))  # duplicate key, the later one wins
            else:
                pairs.append((k, self.rng.choice(["DUP-" + str(k), None, 5])))  # the duplicate overrides
        return O(*pairs)

    # --- items ------------------------------------------------------------------------------
    def part(self, kind=None):
        rng = self.rng
        kind = kind or rng.choice(["input_text"] * 4 + ["input_image", "input_audio", "output_text", "input_file"])
        if kind == "input_text":
            return self.build([("type", "input_text"), ("text", self.text())])
        if kind == "input_image":
            url = rng.choice(IMAGE_URLS) if self.p(0.7) else "data:image/png;base64,iVBORw0KGgo="
            return self.build([("type", "input_image"), ("image_url", url),
                               ("detail", rng.choice(["auto", "low", "high", "original"])) if self.p(0.5) else None])
        if kind == "input_audio":
            if self.p(0.3):
                return self.build([("type", "input_audio"), ("input_audio", {"data": "UklGRg==", "format": "wav"})])
            return self.build([("type", "input_audio"), ("audio_url", rng.choice(AUDIO_URLS))])
        if kind == "encrypted_content":
            return self.build([("type", "encrypted_content"), ("encrypted_content", "gAAAA")])
        if kind == "output_text":
            return self.build([("type", "output_text"), ("text", self.text()), ("annotations", [])])
        return self.build([("type", "input_file"), ("file_id", "file_1")])

    def passthrough(self):
        m = self.rng.random()
        if m < 0.6:
            return None
        pairs = []
        if self.p(0.8):
            pairs.append(("turn_id", self.rng.choice(self.turn_ids + [""]) if self.p(0.9) else None))
        if self.p(0.5):
            pairs.append(("create_time", self.number() if self.p(0.8) else None))
        if self.p(0.1):
            pairs.append(("executed_tool_calls", [1]))
        return ("internal_chat_message_metadata_passthrough", self.build(pairs) if self.p(0.95) else None)

    def labelled_media(self):
        rng = self.rng
        kind = rng.choice(["image", "audio"])
        media = self.part("input_" + kind)
        open_ = rng.choice(["<%s>" % kind, '<%s name="a.png">' % kind, "<%s name=x>" % kind, "<Image>"])
        parts = [self.build([("type", "input_text"), ("text", open_)]), media]
        if self.p(0.7):
            parts.append(self.build([("type", "input_text"), ("text", "</%s>" % kind)]))
        return parts

    def message(self, role=None):
        rng = self.rng
        role = role or rng.choice(["user"] * 6 + ["assistant"] * 3 + ["developer", "developer", "system"])
        parts = [self.part() for _ in range(rng.choice([0, 1, 1, 1, 2, 3]))]
        if role == "developer" and self.p(0.6):
            parts = [self.build([("type", "input_text"), ("text", rng.choice([MODEL_SWITCH, "  " + MODEL_SWITCH.upper()])
                                  if self.p(0.3) else rng.choice(DEV_MARKERS) + "\nbody")]) for _ in range(rng.randint(1, 3))] + parts
        if role == "user" and self.p(0.1):
            parts = self.labelled_media() + parts
        if role == "user" and self.p(0.05):
            parts = [self.build([("type", "input_text"), ("text", SUMMARY_PREFIX + rng.choice(["\nold summary", " no newline"]))])]
        if role == "assistant" and self.p(0.15):
            parts = [self.build([("type", rng.choice(["output_text", "input_text"])), ("text", self.iac_json())])]
        content = parts
        if self.edge and self.p(0.05):
            content = self.text()
        elif self.p(0.03):
            content = rng.choice([[1, None, "x"], []])
        return self.build([("type", "message"), ("role", role), ("content", content), *self.extras(),
                           ("id", "msg_%d" % self.ids) if self.p(0.3) else None, self.passthrough()])

    def agent_path(self):
        rng = self.rng
        if self.p(0.85):
            return rng.choice(["/root", "/root/worker", "/root/worker_1/sub", "/morpheus"])
        return rng.choice(["/worker", "/root/", "/root/root", "/root/Worker", "/root/my-worker", "root/x", 5])

    def iac_payload(self):
        """An InterAgentCommunication object (valid most of the time)."""
        rng = self.rng
        pairs = [("author", self.agent_path()), ("recipient", self.agent_path()),
                 ("content", self.text() if self.p(0.95) else 7)]
        m = rng.random()
        if m < 0.85:
            pairs.append(("trigger_turn", rng.choice([True, False])))
        elif m < 0.95:
            pairs.append(("trigger_turn", rng.choice(["true", 1, None])))
        if self.p(0.3):
            pairs.append(("id", rng.choice(["iac_%d" % self.ids, None, ""])))
        if self.p(0.3):
            pairs.append(("encrypted_content", rng.choice(["gAAAAB", "", None])))
        if self.p(0.2):
            pairs.append(("other_recipients", rng.choice([[], ["/root/a"], ["x"], None])))
        pt = self.passthrough()
        if pt is not None:
            pairs.append(pt)
        if self.p(0.03):
            pairs.append(("author", "/root/dup"))
        return self.build(pairs)

    def iac_json(self):
        return Writer(self.rng, False).dump(self.iac_payload())

    def output_payload(self):
        if self.p(0.6):
            return self.text() if self.p(0.5) else "ok"
        if self.p(0.03):
            return self.rng.choice([{"content": "x", "success": True}, None, 5])
        return [self.part(self.rng.choice(["input_text", "input_text", "input_image", "input_audio", "input_image",
                                           "encrypted_content", "output_text"]))
                for _ in range(self.rng.randint(0, 4))]

    def item(self):
        rng = self.rng
        k = rng.choices(
            ["message", "function_call", "function_call_output", "local_shell_call", "custom_tool_call",
             "custom_tool_call_output", "tool_search_call", "tool_search_output", "image_generation_call",
             "ghost_snapshot", "reasoning", "web_search_call", "future_item", "compaction", "agent_message"],
            [10, 5, 5, 2, 2, 2, 2, 2, 2, 1, 2, 1, 1, 1, 1],
        )[0]
        if k == "message":
            return self.message()
        if k == "agent_message":
            return self.build([("type", "agent_message"), ("author", "/root/worker"), ("recipient", "/root"),
                               ("content", [self.build([("type", "input_text"), ("text", self.text())])]),
                               self.passthrough()])
        if k == "function_call":
            return self.build([("type", "function_call"), self.an_id("fc"), self.a_call_id(),
                               ("name", "shell"), ("arguments", '{"cmd":["ls"]}'), *self.extras()])
        if k == "function_call_output":
            return self.build([("type", "function_call_output"), self.a_call_id(), ("output", self.output_payload()),
                               self.an_id("fco") if self.p(0.2) else None, *self.extras()])
        if k == "local_shell_call":
            return self.build([("type", "local_shell_call"), self.an_id("lsc"), self.a_call_id(),
                               ("status", "completed"), ("action", {"type": "exec", "command": ["ls", "-l"]})])
        if k == "custom_tool_call":
            return self.build([("type", "custom_tool_call"), self.an_id("ctc"), self.a_call_id(),
                               ("name", "apply_patch"), ("input", "*** Begin Patch")])
        if k == "custom_tool_call_output":
            return self.build([("type", "custom_tool_call_output"), self.a_call_id(), ("output", self.output_payload())])
        if k == "tool_search_call":
            return self.build([("type", "tool_search_call"), self.an_id("tsc"), self.a_call_id(),
                               ("execution", rng.choice(["client", "server"])) if self.p(0.5) else None,
                               ("arguments", {"q": "x"})])
        if k == "tool_search_output":
            ex = rng.choice(["server", "client", None, "SERVER"])
            return self.build([("type", "tool_search_output"), self.a_call_id(), ("status", "completed"),
                               ("execution", ex) if ex is not None or self.p(0.5) else None, ("tools", [])])
        if k == "image_generation_call":
            m = rng.random()
            res = None if m < 0.1 and self.edge else ("result", "" if m < 0.3 else "iVBORw0KGgoAAAANSUhEUg==")
            if self.edge and m > 0.95:
                res = ("result", None)
            return self.build([("type", "image_generation_call"), ("id", "ig_%d" % self.ids),
                               ("status", "completed"), res, ("revised_prompt", "a cat")])
        if k == "ghost_snapshot":
            return self.build([("type", "ghost_snapshot"), ("ghost_commit", {"id": "abc"})])
        if k == "reasoning":
            return self.build([("type", "reasoning"), ("id", "rs_1"), ("summary", []), ("encrypted_content", "gAAA")])
        if k == "web_search_call":
            return self.build([("type", "web_search_call"), ("status", "completed"), ("action", {"type": "search", "query": "x"})])
        if k == "compaction":
            return self.build([("type", "compaction"), ("encrypted_content", "xyz")])
        return self.build([("type", "future_item_kind"), ("data", [self.number(), self.text()])])

    def history_array(self):
        rng = self.rng
        arr = []
        for _ in range(rng.randint(0, 6)):
            m = rng.random()
            if m < 0.85:
                arr.append(self.item())
            elif m < 0.92:
                arr.append(rng.choice([1, "str", None, True, [], Num("1e5")]))
            else:
                arr.append(rng.choice([{}, {"no_type": 1}, {"type": 5}, {"type": None}]))
        return arr

    # --- records ----------------------------------------------------------------------------
    def ts(self):
        return ("timestamp", "2025-01-0%dT10:00:00.123Z" % self.rng.randint(1, 9))

    def codex(self, kind, payload, extra=True):
        pairs = [self.ts() if extra and self.p(0.8) else None, ("type", kind), ("payload", payload)]
        if extra and self.p(0.1):
            pairs.append(("ordinal", self.number()))
        if extra and self.p(0.05):
            pairs.append(("metadata", {"k": "v"}))
        return self.build(pairs)

    def turn_id_pair(self):
        m = self.rng.random()
        if m < 0.7:
            return ("turn_id", self.rng.choice(self.turn_ids))
        if m < 0.85:
            return None
        if m < 0.95 or not self.edge:
            return ("turn_id", None)
        return ("turn_id", self.rng.choice([3, "", {"x": 1}]))

    def session_meta(self, codex=None, tid=None):
        codex = self.p(0.5) if codex is None else codex
        tid = tid or "0199a1b2-%04d-7000-8000-%012d" % (self.rng.randint(0, 9999), self.rng.randint(0, 10**12))
        if codex:
            return self.codex("session_meta", self.build([("id", tid), ("cwd", "/tmp"), ("originator", "codex_cli_rs"),
                                                          ("cli_version", "0.50.0"), ("instructions", None)]))
        return self.build([("type", "session_meta"), ("thread_id", tid), self.ts() if self.p(0.3) else None])

    def rollback_n(self):
        rng = self.rng
        opts = [Num("1"), Num("1"), Num("2"), Num("3"), Num("0"), Num("-1"), Num("100"),
                Num("123456789012345678901234567890"), Num("2.0"), Num("1e0"), "1", None, Num("18446744073709551616"),
                Num("9223372036854775807"), Num("-9223372036854775809")]
        return rng.choice(opts)

    def event(self):
        rng = self.rng
        k = rng.choices(
            ["task_started", "turn_started", "task_complete", "turn_complete", "turn_aborted",
             "thread_rolled_back", "user_message", "agent_message", "token_count", "brand_new_event"],
            [4, 2, 3, 2, 2, 3, 2, 2, 2, 1],
        )[0]
        if k in ("task_started", "turn_started", "task_complete", "turn_complete", "turn_aborted"):
            return self.build([("type", k), self.turn_id_pair(), ("model_context_window", 272000) if self.p(0.3) else None])
        if k == "thread_rolled_back":
            return self.build([("type", k), ("num_turns", self.rollback_n()) if self.p(0.95) else None])
        if k == "user_message":
            return self.build([("type", k), ("message", self.text()), ("images", [])])
        if k == "agent_message":
            return self.build([("type", k), ("message", self.text())])
        if k == "token_count":
            return self.build([("type", k), ("info", {"total": self.number()})])
        return self.build([("type", k), ("whatever", [1, 2])])

    def garbage(self, w):
        """A line of bytes that is a parse error (one of every kind in SPEC §1)."""
        rng = self.rng
        k = rng.randrange(19)
        if k == 0:
            return rng.choice([b"not json", b"{", b'{"type":"item",}', b"{'type':'item'}", b'{"type":"item"} x',
                               b'{"type":"session_meta","thread_id":"x"}}', b"// comment", b'{"type":NaN}', b"NaN",
                               b'{"type":"item","item":{"type":"message"}', b'{"a":01}', b'{"a":1.}', b'{"a":"\\x"}',
                               b'{"a":"\\u12"}', b'{"a":tru}', b'{"a":"tab\there"}', b'\x00', b'{"type":"x"}\x00'])
        if k == 1:  # invalid UTF-8
            good = w.line(self.record_item())
            bad = rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\xf5\x80\x80\x80"])
            pos = good.find(b'"type"') + 2 if b'"type"' in good else 1
            return good[:pos] + bad + good[pos:]
        if k == 2:  # JSON, not an object
            return rng.choice([b"[]", b'["type","item"]', b"1", b'"type"', b"null", b"true", b"[{\"type\":\"item\"}]"])
        if k == 3:  # no string type
            return w.line(rng.choice([{}, {"type": 5}, {"type": None}, {"type": ["item"]}, {"payload": {"type": "message"}},
                                      {"Type": "item", "item": {"type": "message"}}, {"type": {"kind": "item"}}]))
        if k == 4:  # session_meta wrong shape
            return w.line(rng.choice([self.codex("session_meta", {"id": ""}), self.codex("session_meta", {"cwd": "/"}),
                                       self.codex("session_meta", {"id": 5}), {"type": "session_meta"},
                                       {"type": "session_meta", "thread_id": ""}, {"type": "session_meta", "thread_id": 7},
                                       {"type": "session_meta", "id": "looks-codex-but-flat"}]))
        if k == 5:  # response_item wrong shape
            return w.line(rng.choice([self.codex("response_item", {}), self.codex("response_item", {"type": 1}),
                                      self.codex("response_item", {"role": "user"})]))
        if k == 6:  # payload not an object
            kind = rng.choice(["response_item", "event_msg", "turn_context", "session_meta", "compacted", "world_state"])
            return w.line(O(("type", kind), ("payload", rng.choice([[], "x", 5, True, [self.item()]]))))
        if k == 7:  # codex-only kind without payload
            kind = rng.choice(["response_item", "event_msg", "turn_context", "inter_agent_communication",
                               "inter_agent_communication_metadata", "world_state", "token_usage_record",
                               "retained_context", "security_risk_score", "realtime_item"])
            return w.line(O(("type", kind), ("item", self.item())) if self.p(0.5) else O(("type", kind)))
        if k == 8:  # event_msg wrong shape
            return w.line(self.codex("event_msg", rng.choice([{}, {"type": 3}, {"turn_id": "x"}])))
        if k == 9:  # compacted wrong shape
            return w.line(rng.choice([self.codex("compacted", {}), self.codex("compacted", {"message": 5}),
                                      self.codex("compacted", {"message": "m", "replacement_history": {"a": 1}}),
                                      self.codex("compacted", {"message": "m", "replacement_history": "x"}),
                                      {"type": "compacted"}, {"type": "compacted", "message": "m"},
                                      {"type": "compacted", "replacement_history": {}}]))
        if k == 10:  # mini item wrong shape
            return w.line(rng.choice([{"type": "item"}, {"type": "item", "item": []}, {"type": "item", "item": "x"},
                                      {"type": "item", "item": {}}, {"type": "item", "item": {"type": None}}]))
        if k == 11:  # mini rolled_back wrong shape
            return w.line(rng.choice([{"type": "rolled_back"}, {"type": "rolled_back", "replacement_history": 3},
                                      {"type": "rolled_back", "num_turns": 1}]))
        if k == 12:  # BOM not at file start
            return b"\xef\xbb\xbf" + w.line(self.record_item())
        if k == 13:  # truncated valid record
            good = w.line(self.record_item())
            return good[: max(1, len(good) // 2)]
        if k == 14:  # two records on one line
            return w.line(self.record_item()) + b" " + w.line(self.record_item())
        if k == 15:  # control character / unescaped newline-ish in string
            return b'{"type":"item","item":{"type":"message","role":"user","content":"a\x01b"}}'
        if k == 16:
            return b'{"type":"item","item":{"type":"message"},}'
        if k == 17:
            return b'{"type":"response_item","payload":{"type":"message","role":"user","content":[]}]'
        return b'{"type":"item" "item":{"type":"x"}}'

    def record_item(self):
        if self.p(0.5):
            return self.codex("response_item", self.item())
        return self.build([("type", "item"), ("item", self.item())])

    def record(self, w, codex_share):
        rng = self.rng
        codex = rng.random() < codex_share
        k = rng.choices(
            ["item", "event", "mini_turn", "compacted", "rolled_back", "other_codex", "unknown", "garbage",
             "session_meta", "blank"],
            [30, 8, 5 * (1 - codex_share) + 1, 2, 1 + (1 - codex_share), 2, 1.5, 3, 0.7, 2],
        )[0]
        if k == "item":
            if codex:
                return w.line(self.codex("response_item", self.item()))
            return w.line(self.build([("type", "item"), ("item", self.item()), self.ts() if self.p(0.2) else None]))
        if k == "event":
            return w.line(self.codex("event_msg", self.event()))
        if k == "mini_turn":
            kind = rng.choice(["turn_started", "turn_started", "turn_completed", "turn_aborted"])
            pairs = [("type", kind), self.turn_id_pair()]
            if self.edge and self.p(0.05):
                pairs.append(("payload", {"type": "x"}))
            return w.line(self.build(pairs))
        if k == "compacted":
            if codex:
                pl = [("message", self.text() if self.p(0.7) else "Summary: " + self.text())]
                m = rng.random()
                if m < 0.5:
                    pl.append(("replacement_history", self.history_array()))
                elif self.edge and m < 0.6:
                    pl.append(("replacement_history", None))
                return w.line(self.codex("compacted", self.build(pl)))
            return w.line(self.build([("type", "compacted"), ("replacement_history", self.history_array()),
                                      ("message", "ignored") if self.p(0.2) else None]))
        if k == "rolled_back":
            if codex or self.p(0.3):
                return w.line(self.codex("event_msg", self.build([("type", "thread_rolled_back"), ("num_turns", self.rollback_n())])))
            return w.line(self.build([("type", "rolled_back"), ("replacement_history", self.history_array())]))
        if k == "other_codex" and self.p(0.4):
            return w.line(self.codex("inter_agent_communication", self.iac_payload()))
        if k == "other_codex":
            kind = rng.choice(["turn_context", "inter_agent_communication", "inter_agent_communication_metadata",
                               "world_state", "token_usage_record", "retained_context", "security_risk_score",
                               "realtime_item"])
            return w.line(self.codex(kind, self.build([("cwd", "/x"), ("model", "gpt-5"), ("items", [self.item()])])))
        if k == "unknown":
            return w.line(rng.choice([
                {"type": "brand_new_kind", "payload": {"a": 1}},
                {"type": "brand_new_kind", "payload": "not an object"},
                {"type": "Response_Item", "payload": {"type": "message"}},
                {"type": "", "payload": {}},
                {"type": "items", "item": {"type": "message"}},
                {"type": "event", "x": 1},
            ]))
        if k == "garbage":
            return self.garbage(w)
        if k == "session_meta":
            if self.edge and self.p(0.15):
                return w.line(rng.choice([O(("type", "session_meta"), ("payload", None), ("thread_id", "mini-with-null-payload")),
                                          O(("type", "compacted"), ("payload", None), ("replacement_history", []))]))
            return w.line(self.session_meta(codex))
        # blank / whitespace-only
        opts = [b"", b" ", b"\t", b"  \t  ", b"\r"]
        if self.edge:
            opts += [b"\x0b", b"\x0c", "\u00a0".encode(), "\u3000".encode(), b"\x1c"]
        return rng.choice(opts)


def scenario(g, w):
    """Sometimes emit a structured story instead of noise, to hit rollback/compaction logic."""
    rng = g.rng
    lines = []
    codex = g.p(0.5)

    def item(v):
        if codex:
            return w.line(g.codex("response_item", v))
        return w.line(g.build([("type", "item"), ("item", v)]))

    def user(text):
        return item(g.build([("type", "message"), ("role", "user"), ("content", [g.build([("type", "input_text"), ("text", text)])])]))

    for t in range(rng.randint(1, 5)):
        tid = rng.choice(g.turn_ids)
        pt = ("internal_chat_message_metadata_passthrough", {"turn_id": tid}) if g.p(0.5) else None
        if g.p(0.4):
            dev = [g.build([("type", "input_text"), ("text", rng.choice([MODEL_SWITCH, rng.choice(DEV_MARKERS) + "\nx"]))])
                   for _ in range(rng.randint(1, 3))]
            lines.append(item(g.build([("type", "message"), ("role", "developer"), ("content", dev), pt])))
        if g.p(0.5):
            lines.append(user(g.fragment_text()))
        if g.p(0.2):
            lines.append(w.line(g.codex("inter_agent_communication", g.iac_payload())))
        elif g.p(0.1):
            lines.append(item(g.build([("type", "message"), ("role", "user"), ("content", g.labelled_media()), pt])))
        else:
            lines.append(item(g.build([("type", "message"), ("role", "user"), ("content", [g.build(
                [("type", "input_text"), ("text", "turn %d %s" % (t, rng.choice(TEXTS)) if g.p(0.97) else "long " * 17000)])]), pt])))
        for _ in range(rng.randint(0, 3)):
            lines.append(item(g.item()))
        if g.p(0.3):
            lines.append(w.line(g.codex("event_msg", g.event())))
        if g.p(0.15):
            lines.append(w.line(g.codex("compacted", g.build([("message", rng.choice(["", "sum", SUMMARY_PREFIX + "\ns"]))]))))
        if g.p(0.15):
            lines.append(w.line(g.codex("event_msg", g.build([("type", "thread_rolled_back"), ("num_turns", rng.randint(1, 4))]))))
    return lines


def pre_envelope(g, w):
    """A 2025 pre-envelope rollout (SPEC §9, dialect codex-2025)."""
    rng = g.rng
    tid = "%08x-1111-4222-8333-%012x" % (rng.getrandbits(32), rng.getrandbits(48))
    lines = [w.line(g.build([("id", tid), ("timestamp", "2025-07-01T10:00:00.000Z"),
                             ("instructions", None) if g.p(0.5) else None,
                             ("git", {"commit_hash": "abc"}) if g.p(0.3) else None]))]
    for _ in range(rng.randint(1, 25)):
        m = rng.random()
        if m < 0.25:
            lines.append(w.line(O(("record_type", "state"))))
        elif m < 0.3:
            lines.append(g.garbage(w) if g.p(0.5) else rng.choice([b"", b"  "]))
        else:
            lines.append(w.line(g.item()))
    return lines


def generate(seed, index, profile="mixed"):
    """Returns (bytes, edge: bool)."""
    rng = random.Random("%s:%s:%s" % (seed, index, profile))
    if profile == "mixed":
        edge = rng.random() < 0.35
    else:
        edge = profile == "edge"
    g = Gen(rng, edge)
    w = Writer(rng, edge)

    m = rng.random()
    if m < 0.015:
        return b"", edge
    if m < 0.03:
        return rng.choice([b"\n\n", b"   \n\t\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\n \n", b"\r\n"]), edge

    if rng.random() < 0.06:
        lines = pre_envelope(g, w)
        data = b"".join(ln + (b"\r\n" if edge and g.p(0.3) else b"\n") for ln in lines)
        return data, edge

    codex_share = rng.choice([0.0, 1.0, 0.5, 0.8, 0.2])
    lines = []
    has_meta = rng.random() > 0.05
    later = None
    if has_meta:
        meta = w.line(g.session_meta(rng.random() < codex_share))
        if g.p(0.85):
            lines.append(meta)
        else:
            later = meta
    n = rng.choice([1, 3, 5, 10, 20, 40])
    for _ in range(n):
        if g.p(0.08):
            lines.extend(scenario(g, w))
        else:
            lines.append(g.record(w, codex_share))
    if later is not None:
        lines.insert(rng.randint(0, len(lines)), later)
    if has_meta and g.p(0.1):  # forked: a second session_meta with a different id
        lines.insert(rng.randint(0, len(lines)), w.line(g.session_meta()))

    crlf = rng.random()
    out = []
    for ln in lines:
        if crlf < 0.15 or (crlf < 0.25 and g.p(0.5)):
            out.append(ln + b"\r\n")
        else:
            out.append(ln + b"\n")
    data = b"".join(out)
    t = rng.random()
    if t < 0.12 and data:  # torn tail: drop the final newline, sometimes mid-record
        data = data.rstrip(b"\n")
        if t < 0.06:
            tail = w.line(g.record_item())
            data += b"\n" + tail[: rng.randint(1, max(1, len(tail) - 1))]
    if rng.random() < 0.08:
        data = b"\xef\xbb\xbf" + data
    return data, edge


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--profile", choices=["core", "edge", "mixed"], default="mixed")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.count):
        data, edge = generate(a.seed, i, a.profile)
        name = "case-%d-%05d%s.jsonl" % (a.seed, i, "-edge" if edge else "")
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(data)
    print("wrote %d cases to %s" % (a.count, a.out))


if __name__ == "__main__":
    main()
