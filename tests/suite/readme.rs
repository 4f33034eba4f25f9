//! The README's console examples are what the binary prints: every `$ rollcall …` line of a
//! ```` ```console ```` block is run from the repository root with `HOME=fixtures/home` (a home
//! folder of both agents, shown as `~`), and its output must be the lines below it. A line `…`
//! stands for any number of lines.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::path::Path;

use assert_cmd::Command;

/// Each example: its command line (without `$ `) and the lines it prints.
fn examples(markdown: &str) -> Vec<(String, Vec<String>)> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut inside = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            inside = line == "```console";
            continue;
        }
        if !inside {
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(command) => found.push((command.to_owned(), Vec::new())),
            None => {
                if let Some((_, lines)) = found.last_mut() {
                    lines.push(line.to_owned());
                }
            }
        }
    }
    found
}

/// Whether `actual` is `expected`, where an expected `…` line stands for any run of lines.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "…" => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            actual.first().is_some_and(|a| a == first) && matches(rest, &actual[1..])
        }
    }
}

#[test]
fn every_console_example_is_what_the_binary_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let home = root.join("fixtures/home");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 5, "the README's examples were not found");
    let mut failures = Vec::new();
    for (command, expected) in &examples {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[0], "rollcall", "{command}: only rollcall is run");
        let out = Command::cargo_bin("rollcall")
            .unwrap()
            .current_dir(root)
            .env("HOME", &home)
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("NO_COLOR")
            .args(&words[1..])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout)
            .unwrap()
            .replace(&format!("{}/", home.display()), "~/");
        let actual: Vec<&str> = text.lines().collect();
        if !matches(expected, &actual) {
            failures.push(format!(
                "$ {command}\n--- README\n{}\n--- rollcall\n{text}",
                expected.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn an_ellipsis_stands_for_any_run_of_lines() {
    let e = |lines: &[&str]| lines.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "…", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&e(&["a", "…", "d"]), &["a", "d"]));
    assert!(!matches(&e(&["a", "…", "d"]), &["a", "b"]));
    assert!(!matches(&e(&["a", "b"]), &["a", "b", "c"]));
}
