//! What normalization changed, item by item against the history: inserted outputs, removed
//! orphans, replaced media. Untouched items are not shown.

use std::io::{self, Write};

use super::{Paint, plural};
use crate::escape::escape;
use crate::item::{CallId, Item, ItemKind};
use crate::normalize::{self, Family, PromptView, Step};

pub fn write(
    name: &str,
    view: &PromptView<'_>,
    paint: Paint,
    out: &mut impl Write,
) -> io::Result<()> {
    let history = view.history;
    let m = view.modalities;
    let modalities = match (m.image, m.audio) {
        (true, true) => "text,image,audio",
        (true, false) => "text,image",
        (false, true) => "text,audio",
        (false, false) => "text",
    };
    writeln!(
        out,
        "{}",
        paint.bold(&format!(
            "prompt view of {} (modalities {modalities}): history {} items → view {} items",
            escape(name),
            history.len(),
            view.steps.len()
        ))
    )?;

    let mut removed = view.removed.iter().copied().peekable();
    let (mut inserted, mut orphans, mut rewritten) = (0u64, 0u64, 0u64);
    for (at, step) in view.steps.iter().enumerate() {
        let position = format!("view #{}", at + 1);
        match *step {
            Step::Keep(i) | Step::Rewrite(i) => {
                while let Some(r) = removed.next_if(|&r| r < i) {
                    orphan(&history[r], r, paint, out)?;
                    orphans += 1;
                }
                if let Step::Rewrite(i) = *step {
                    rewritten += 1;
                    let item = &history[i];
                    writeln!(
                        out,
                        "\n{} {position:<10} {} (history #{})",
                        paint.yellow("~"),
                        kind_name(item),
                        i + 1
                    )?;
                    writeln!(out, "             {}", media_change(item, view.modalities))?;
                }
            }
            Step::Insert(call, family) => {
                inserted += 1;
                let item = &history[call];
                let id = match item.id.as_deref() {
                    Some(id) => format!("  id={}", normalize::synthetic_id(family, id)),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "\n{} {position:<10} {}  call_id={}{id}  {}",
                    paint.green("+"),
                    family.output_type(),
                    call_id(item),
                    match family {
                        Family::Function | Family::Custom => r#"output="aborted""#,
                        Family::ToolSearch => "tools=[] (client)",
                    }
                )?;
                writeln!(
                    out,
                    "             inserted after the {} at history #{}, which has no output",
                    kind_name(item),
                    call + 1
                )?;
            }
        }
    }
    for r in removed {
        orphan(&history[r], r, paint, out)?;
        orphans += 1;
    }

    if inserted + orphans + rewritten == 0 {
        writeln!(out, "\nno changes: the prompt view is the history as it is")?;
    } else {
        writeln!(
            out,
            "\n{inserted} {} inserted, {orphans} {} removed, {rewritten} {} with media replaced",
            plural(inserted, "output", "outputs"),
            plural(orphans, "orphan", "orphans"),
            plural(rewritten, "item", "items"),
        )?;
    }
    Ok(())
}

fn orphan(item: &Item, at: usize, paint: Paint, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "\n{} {:<10} {}  call_id={}",
        paint.red("-"),
        format!("history #{}", at + 1),
        kind_name(item),
        call_id(item)
    )?;
    let calls = match normalize::family_of_output(item.kind) {
        Some(Family::Function) | None => "function_call or local_shell_call",
        Some(Family::Custom) => "custom_tool_call",
        Some(Family::ToolSearch) => "tool_search_call",
    };
    match item.call_id {
        CallId::Str(_) | CallId::Lone { .. } => writeln!(
            out,
            "             orphan removed: no {calls} has this call_id"
        ),
        CallId::Other(_) | CallId::None => writeln!(
            out,
            "             orphan removed: its call_id is not a string, so no call can match it"
        ),
    }
}

fn media_change(item: &Item, modalities: normalize::Modalities) -> String {
    let mut changes = Vec::new();
    if !modalities.image && item.media.images > 0 {
        changes.push(format!(
            "{} input_image {} replaced with placeholder text",
            item.media.images,
            plural(item.media.images, "part", "parts")
        ));
    }
    if !modalities.audio && item.media.audio > 0 {
        changes.push(format!(
            "{} input_audio {} replaced with placeholder text",
            item.media.audio,
            plural(item.media.audio, "part", "parts")
        ));
    }
    if !modalities.image && item.media.image_result {
        changes.push(r#"generated image result cleared to """#.to_string());
    }
    changes.join("; ")
}

fn kind_name(item: &Item) -> &'static str {
    match item.kind {
        ItemKind::Message => "message",
        ItemKind::FunctionCall => "function_call",
        ItemKind::FunctionCallOutput => "function_call_output",
        ItemKind::LocalShellCall => "local_shell_call",
        ItemKind::CustomToolCall => "custom_tool_call",
        ItemKind::CustomToolCallOutput => "custom_tool_call_output",
        ItemKind::ToolSearchCall => "tool_search_call",
        ItemKind::ToolSearchOutput => "tool_search_output",
        ItemKind::ImageGenerationCall => "image_generation_call",
        ItemKind::GhostSnapshot => "ghost_snapshot",
        ItemKind::Other => "item",
    }
}

/// A call id as JSON spells it: a string quoted, anything else as it was.
fn call_id(item: &Item) -> String {
    match &item.call_id {
        CallId::Str(id) => format!("\"{}\"", escape(id)),
        other => escape(other.display()).into_owned(),
    }
}
