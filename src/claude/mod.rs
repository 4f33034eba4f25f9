//! Claude Code's rules, in one place: what a transcript entry is (`entry`), how resume picks the
//! chain of entries it continues from (`chain`), and the Messages API view the chain becomes,
//! repaired (`view`), with Claude Code's words for people (`words`).

pub(crate) mod attach;
pub(crate) mod chain;
pub(crate) mod content;
pub(crate) mod entry;
pub(crate) mod facts;
pub(crate) mod home;
pub(crate) mod view;
pub(crate) mod wire;
pub(crate) mod words;
pub(crate) mod write;

pub(crate) use chain::State;

/// Test helpers: a transcript written as lines, replayed and viewed as the binary would.
#[cfg(test)]
pub(crate) mod testing {
    use super::chain::{Fold, State};
    use super::entry::Classifier;
    use super::view::View;
    use crate::findings::Findings;
    use crate::pipeline::{self, Options};
    use crate::source::{Source, SpanReader};

    /// The session of `lines` (one JSON entry each) and the source its spans point into.
    pub fn replayed(lines: &[String]) -> (State, Vec<Source>) {
        let mut text = lines.join("\n");
        text.push('\n');
        let opened = Source::stream(Box::new(std::io::empty()));
        opened.source.append(text.as_bytes()).expect("held");
        let mut fold = Fold::default();
        let mut findings = Findings::default();
        let mut options = Options {
            threads: false,
            max_line: 1 << 30,
            progress: &mut |_| {},
        };
        pipeline::run(
            std::io::Cursor::new(text.into_bytes()),
            true,
            &Classifier { facts: true },
            &mut fold,
            &mut findings,
            &mut options,
        )
        .expect("replays");
        let mut state = fold.finish();
        state.told = true;
        (state, vec![opened.source])
    }

    /// The prompt view of `lines` for `model`, one compact JSON message per entry.
    pub fn view(lines: &[String], model: Option<&str>) -> Vec<serde_json::Value> {
        let (state, sources) = replayed(lines);
        let mut reader = SpanReader::new(&sources);
        let view = View::new(&state, model).expect("a view");
        let mut out = Vec::new();
        crate::view::PromptView::entries(&view, &mut reader, &mut |e| {
            out.push(serde_json::from_slice(e.text).expect("JSON"));
            Ok(())
        })
        .expect("entries");
        out
    }

    /// A user entry of `content`, in the layout of 2.1.x transcripts.
    pub fn user(uuid: &str, parent: Option<&str>, content: serde_json::Value) -> String {
        entry(
            uuid,
            parent,
            serde_json::json!({"type": "user",
            "message": {"role": "user", "content": content}}),
        )
    }

    pub fn assistant(
        uuid: &str,
        parent: Option<&str>,
        id: &str,
        block: serde_json::Value,
    ) -> String {
        entry(
            uuid,
            parent,
            serde_json::json!({"type": "assistant",
            "message": {"model": "claude-opus-4-6", "id": id, "type": "message",
                "role": "assistant", "content": [block]}}),
        )
    }

    /// An entry of `body` with the chain members, all at one time unless `body` says otherwise.
    pub fn entry(uuid: &str, parent: Option<&str>, body: serde_json::Value) -> String {
        let mut e = serde_json::json!({"parentUuid": parent, "isSidechain": false,
            "sessionId": "5e55a0c2-0000-4000-8000-000000000000",
            "uuid": uuid, "timestamp": "2026-03-02T09:14:20.000Z"});
        for (k, v) in body.as_object().expect("an object") {
            e[k] = v.clone();
        }
        e.to_string()
    }
}
