//! What the Codex prompt view did to the history, in the words both the view and its
//! descriptions share: the changes to one item, and the stable ids of synthetic outputs.

use uuid::Uuid;

use super::item::Family;
use super::prep::Prepared;

/// What the view did to one history item.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Resume preparation's changes.
    pub prepared: Prepared,
    /// Parts the modalities replaced (§6): images (a cleared image result counts), audio.
    pub images: u64,
    pub audio: u64,
    pub image_result: bool,
    /// Sent as Codex's typed item re-encodes it (SPEC §11.2 #4), not as the log spells it.
    pub reencoded: bool,
    /// Images sent without their `detail` (a Responses Lite model).
    pub details: u64,
    /// The indexes of the parts the modalities replaced.
    pub replaced: Vec<u32>,
    /// The provenance of its parts was added to its passthrough metadata (a Responses Lite
    /// model).
    pub provenance: bool,
}

impl Changes {
    pub fn any(&self) -> bool {
        !self.prepared.changes.is_empty()
            || self.images + self.audio > 0
            || self.image_result
            || self.reencoded
            || self.details > 0
            || self.provenance
    }
}

const NAMESPACE: Uuid = Uuid::from_u128(0x90d38d3e_6a5b_4d52_bfe2_2f1e634bfac4);

/// The id of the synthetic output for the call whose `id` is `call_item_id`: stable across
/// runs, so that provider prompt caches keep hitting.
pub(crate) fn synthetic_id(family: Family, call_item_id: &str) -> String {
    let prefix = family.id_prefix();
    let name = format!("{prefix}:{call_item_id}");
    format!("{prefix}_{}", Uuid::new_v5(&NAMESPACE, name.as_bytes()))
}
