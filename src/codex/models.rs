//! The model Codex resumes with, and what its catalog entry changes in the view: the truncation
//! policy of R1, the input modalities, and whether requests go through Responses Lite (which
//! sends no image `detail`). The table is the catalog bundled in Codex 0.169.0 (the
//! `models.json` in its binary); a slug is matched as Codex matches it (`construct_model_info_
//! from_candidates`): the longest catalog slug it starts with, then the same after one
//! `namespace/`; anything else gets Codex's fallback metadata (`model_info_from_slug`).

use std::path::Path;

use super::truncate::Policy;

/// Input kinds the target model takes besides text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modalities {
    pub image: bool,
    pub audio: bool,
}

impl Default for Modalities {
    /// `text,image`, as SPEC §6 says.
    fn default() -> Self {
        Modalities {
            image: true,
            audio: false,
        }
    }
}

impl Modalities {
    pub fn name(self) -> &'static str {
        match (self.image, self.audio) {
            (true, true) => "text,image,audio",
            (true, false) => "text,image",
            (false, true) => "text,audio",
            (false, false) => "text",
        }
    }
}

/// The model Codex 0.169.0 resumes with when none is configured: its catalog's first by priority.
pub(crate) const DEFAULT: &str = "gpt-6.1-sol";

/// One catalog entry, as far as the view needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CatalogEntry {
    slug: &'static str,
    truncation: Policy,
    modalities: Modalities,
    /// `use_responses_lite`: Codex strips `detail` from every image it sends.
    lite: bool,
}

const TEXT_IMAGE: Modalities = Modalities {
    image: true,
    audio: false,
};

/// Codex 0.169.0's bundled catalog, in its order.
const CATALOG: &[CatalogEntry] = &[
    lite("gpt-6-astra"),
    lite("gpt-6.1-sol"),
    lite("gpt-6.1-terra"),
    lite("gpt-6-sol"),
    lite("gpt-6-luna"),
    lite("gpt-5.6-sol"),
    lite("gpt-5.6-terra"),
    lite("gpt-5.6-luna"),
    lite("gpt-daybreak-blue-latest"),
    lite("gpt-daybreak-red-latest"),
    CatalogEntry {
        lite: false,
        ..lite("gpt-5.5")
    },
    lite("codex-auto-review"),
];

/// Every entry of the catalog has tokens:10000 and text and image input.
const fn lite(slug: &'static str) -> CatalogEntry {
    CatalogEntry {
        slug,
        truncation: Policy::Tokens(10_000),
        modalities: TEXT_IMAGE,
        lite: true,
    }
}

/// Where the model's name came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--model`.
    Flag,
    /// `model` in this `config.toml` (or its selected profile's).
    Config(std::path::PathBuf),
    /// Nothing names one: Codex's default.
    Default,
}

/// The model a view is made for, with the facts of its catalog entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    pub slug: String,
    pub source: Source,
    /// Whether the catalog knows it (else Codex uses its fallback metadata).
    pub known: bool,
    pub truncation: Policy,
    pub modalities: Modalities,
    /// Requests go through Responses Lite: images are sent without `detail`.
    pub lite: bool,
    /// `supports_image_detail_original`: every catalog model; not the fallback.
    pub original_detail: bool,
}

impl Default for Model {
    fn default() -> Self {
        Model::new(DEFAULT.to_string(), Source::Default)
    }
}

impl Model {
    /// The model `slug`, looked up in the catalog as Codex looks it up.
    pub fn new(slug: String, source: Source) -> Model {
        let by_prefix = |name: &str| {
            CATALOG
                .iter()
                .filter(|e| name.starts_with(e.slug))
                .max_by_key(|e| e.slug.len())
        };
        let namespaced = || {
            let (namespace, rest) = slug.split_once('/')?;
            let simple = !namespace.is_empty()
                && !rest.contains('/')
                && namespace
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
            simple.then(|| by_prefix(rest)).flatten()
        };
        match by_prefix(&slug).or_else(namespaced) {
            Some(entry) => Model {
                known: true,
                truncation: entry.truncation,
                modalities: entry.modalities,
                lite: entry.lite,
                original_detail: true,
                slug,
                source,
            },
            // `model_info_from_slug`: bytes:10000, text and image, not Responses Lite.
            None => Model {
                known: false,
                truncation: Policy::Bytes(10_000),
                modalities: TEXT_IMAGE,
                lite: false,
                original_detail: false,
                slug,
                source,
            },
        }
    }

    /// The model for messages: its slug, and where it came from when Codex chose it or does not
    /// know it.
    pub fn describe(&self) -> String {
        match (&self.source, self.known) {
            (Source::Default, _) => format!("{} (Codex's default)", self.slug),
            (_, false) => format!("{} (not in Codex's catalog: its fallback)", self.slug),
            (_, true) => self.slug.clone(),
        }
    }

    /// The model Codex resumes with: `flag`, else the one `config.toml` in `home` names, else
    /// Codex's default.
    pub fn resolve(flag: Option<&str>, home: Option<&Path>) -> Model {
        if let Some(slug) = flag {
            return Model::new(slug.to_string(), Source::Flag);
        }
        let config = home.map(|home| home.join("config.toml"));
        if let Some(path) = config
            && let Some(slug) = configured(&path)
        {
            return Model::new(slug, Source::Config(path));
        }
        Model::default()
    }
}

/// The `model` a `config.toml` sets: its selected profile's (`profile = "NAME"`,
/// `[profiles.NAME]`), else its own. An unreadable or invalid file sets none, as a file Codex
/// would refuse to start with cannot be resumed with anyway.
fn configured(path: &Path) -> Option<String> {
    // A config file is a few kilobytes; a larger one is not read whole.
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let table: toml::Table = text.parse().ok()?;
    let model = |table: &toml::Table| table.get("model")?.as_str().map(str::to_string);
    let profile = table
        .get("profile")
        .and_then(|p| p.as_str())
        .and_then(|name| table.get("profiles")?.get(name)?.as_table())
        .and_then(model);
    profile.or_else(|| model(&table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_matched_as_codex_matches_them() {
        let m = |slug: &str| Model::new(slug.to_string(), Source::Flag);
        assert!(m("gpt-5.5").known && !m("gpt-5.5").lite);
        // The longest catalog slug the name starts with.
        assert!(m("gpt-5.5-2026-11-01").known && !m("gpt-5.5-2026-11-01").lite);
        assert!(m("gpt-6.1-sol-mini").lite);
        assert!(m("openai/gpt-5.6-sol").known && m("openai/gpt-5.6-sol").lite);
        for unknown in ["gpt-4.1", "a/b/gpt-5.5", "/gpt-5.5", "my model/gpt-5.5"] {
            let model = m(unknown);
            assert!(!model.known, "{unknown}");
            assert_eq!(model.truncation, Policy::Bytes(10_000));
            assert!(!model.lite);
        }
        assert_eq!(Model::default().slug, DEFAULT);
    }

    #[test]
    fn the_profile_model_wins_over_the_top_level_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let write = |text: &str| std::fs::write(&path, text).unwrap();
        write("model = \"gpt-5.5\"\n");
        assert_eq!(configured(&path).as_deref(), Some("gpt-5.5"));
        write("model = \"gpt-5.5\"\nprofile = \"fast\"\n[profiles.fast]\nmodel = \"gpt-6-luna\"\n");
        assert_eq!(configured(&path).as_deref(), Some("gpt-6-luna"));
        write("model = \"gpt-5.5\"\nprofile = \"none\"\n");
        assert_eq!(configured(&path).as_deref(), Some("gpt-5.5"));
        write("model = [\n");
        assert_eq!(configured(&path), None);
        let model = Model::resolve(None, Some(dir.path()));
        assert_eq!(
            (model.slug.as_str(), model.source),
            (DEFAULT, Source::Default)
        );
        let model = Model::resolve(Some("gpt-5.5"), Some(dir.path()));
        assert_eq!(model.source, Source::Flag);
    }
}
