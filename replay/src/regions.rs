//! The region table: names and kinds of the region ids found in records.
//!
//! Built from the instrumentation metadata of the profiled kernel; ids that
//! appear in records but not in the metadata are added on the fly with a
//! synthetic name (`region_<id>`) and counted, so nothing is dropped.

use kperf_dialects::abi::RegionId;
use kperf_dialects::meta::{displayable_name, KernelMeta, RegionKind};
use kperf_runtime::profile::RunInfo;
use serde::{Deserialize, Serialize};

const NO_INDEX: u32 = u32::MAX;

/// Longest region name or location kept from a profile, in bytes: names come
/// from untrusted files and are written once per event, so an oversized one
/// would make a trace out of proportion to its records.
pub const MAX_NAME_BYTES: usize = 256;

/// `text` fit to show ([`displayable_name`]): control characters
/// escaped, cut to `MAX_NAME_BYTES`; `None` when it needs neither.
pub fn capped(text: &str) -> Option<String> {
    displayable_name(text, MAX_NAME_BYTES)
}

/// `text` as [`capped`] shows it, or as it is.
pub fn shown(text: &str) -> String {
    capped(text).unwrap_or_else(|| text.to_string())
}

/// One region as replay knows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegionInfo {
    pub id: RegionId,
    pub name: String,
    pub kind: RegionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<RegionId>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub location: String,
    /// For an async wait region: the issue region whose START is CLK1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs_with: Option<RegionId>,
    /// False for ids found only in the records.
    pub in_meta: bool,
}

/// Dense lookup from region id to a table index.
#[derive(Clone, Debug)]
pub struct RegionTable {
    regions: Vec<RegionInfo>,
    index: Vec<u32>,
    /// Table index of the issue region, for async wait regions that name one.
    wait_issue: Vec<Option<u32>>,
    /// Whether some wait region names this region as its issue.
    is_issue: Vec<bool>,
    /// Findings made while building the table.
    pub(crate) notes: Vec<String>,
}

impl RegionTable {
    /// The metadata of the profiled kernel: the one named in `info.kernel`,
    /// or the only kernel of the module.
    pub fn kernel_meta(info: &RunInfo) -> Option<&KernelMeta> {
        info.meta
            .kernel(&info.kernel)
            .or(match info.meta.kernels.as_slice() {
                [only] => Some(only),
                _ => None,
            })
    }

    /// Build the table from a run's metadata.
    pub fn from_info(info: &RunInfo) -> RegionTable {
        let mut t = RegionTable {
            regions: Vec::new(),
            index: vec![NO_INDEX; 1 << 16],
            wait_issue: Vec::new(),
            is_issue: Vec::new(),
            notes: Vec::new(),
        };
        match Self::kernel_meta(info) {
            Some(k) => {
                for r in &k.regions {
                    let mut name = r.name.clone();
                    if let Some(cut) = capped(&name) {
                        t.notes.push(if name.len() > MAX_NAME_BYTES {
                            format!(
                                "region id {}'s name is {} bytes long: cut to {MAX_NAME_BYTES}",
                                r.id.0,
                                name.len()
                            )
                        } else {
                            format!(
                                "region id {}'s name holds control characters: shown escaped",
                                r.id.0
                            )
                        });
                        name = cut;
                    }
                    if t.index[r.id.0 as usize] != NO_INDEX {
                        t.notes.push(format!(
                            "metadata lists region id {} twice (`{name}`); the first entry is used",
                            r.id.0
                        ));
                        continue;
                    }
                    let location = capped(&r.location).unwrap_or_else(|| r.location.clone());
                    t.push(RegionInfo {
                        id: r.id,
                        name,
                        kind: r.kind,
                        parent: r.parent,
                        location,
                        pairs_with: r.pairs_with,
                        in_meta: true,
                    });
                }
                t.check_parents();
            }
            None => t.notes.push(format!(
                "no instrumentation metadata for kernel `{}`: regions are named by id",
                capped(&info.kernel).unwrap_or_else(|| info.kernel.clone())
            )),
        }
        for i in 0..t.regions.len() {
            let r = &t.regions[i];
            if r.kind != RegionKind::AsyncWait {
                continue;
            }
            match r.pairs_with.map(|p| t.index[p.0 as usize]) {
                Some(j) if j != NO_INDEX && j as usize != i => {
                    t.wait_issue[i] = Some(j);
                    t.is_issue[j as usize] = true;
                }
                _ => {
                    let msg = format!(
                        "async wait region `{}` names no usable issue region (pairs_with): \
                         it is replayed as an ordinary START/END region",
                        r.name
                    );
                    t.notes.push(msg);
                }
            }
        }
        t
    }

    /// Drop parent links that name no region, the region itself, or close a
    /// cycle, so that every analysis walking up the tree ends; each is noted.
    fn check_parents(&mut self) {
        for i in 0..self.regions.len() {
            let Some(parent) = self.regions[i].parent else {
                continue;
            };
            let problem = if parent == self.regions[i].id {
                Some("itself".to_string())
            } else if self.index[parent.0 as usize] == NO_INDEX {
                Some(format!("id {}, which the metadata does not list", parent.0))
            } else {
                // Walk up from the parent; coming back to i is a cycle. At
                // most len() steps: links already checked are acyclic, and a
                // longer walk repeats a region.
                let mut at = Some(parent);
                let mut steps = 0;
                while let Some(p) = at {
                    let j = self.index[p.0 as usize];
                    if j == NO_INDEX || steps > self.regions.len() {
                        break;
                    }
                    if j as usize == i {
                        break;
                    }
                    at = self.regions[j as usize].parent;
                    steps += 1;
                }
                at.filter(|p| self.index[p.0 as usize] as usize == i)
                    .map(|_| format!("id {}, which closes a cycle", parent.0))
            };
            if let Some(what) = problem {
                let msg = format!(
                    "region `{}` (id {}) names as its parent {what}: the link is ignored",
                    self.regions[i].name, self.regions[i].id.0
                );
                self.notes.push(msg);
                self.regions[i].parent = None;
            }
        }
    }

    fn push(&mut self, r: RegionInfo) -> u32 {
        let idx = self.regions.len() as u32;
        self.index[r.id.0 as usize] = idx;
        self.regions.push(r);
        self.wait_issue.push(None);
        self.is_issue.push(false);
        idx
    }

    /// Table index of `id`, adding a synthetic entry for an unknown id.
    pub fn ensure(&mut self, id: RegionId) -> u32 {
        match self.index[id.0 as usize] {
            NO_INDEX => self.push(RegionInfo {
                id,
                name: format!("region_{}", id.0),
                kind: RegionKind::Explicit,
                parent: None,
                location: String::new(),
                pairs_with: None,
                in_meta: false,
            }),
            i => i,
        }
    }

    /// Table index of `id`, if known.
    pub fn index_of(&self, id: RegionId) -> Option<u32> {
        match self.index[id.0 as usize] {
            NO_INDEX => None,
            i => Some(i),
        }
    }

    /// Table index of `id`; callers guarantee it was [`Self::ensure`]d.
    pub(crate) fn idx(&self, id: RegionId) -> usize {
        self.index[id.0 as usize] as usize
    }

    pub fn get(&self, idx: usize) -> Option<&RegionInfo> {
        self.regions.get(idx)
    }

    pub fn by_id(&self, id: RegionId) -> Option<&RegionInfo> {
        self.index_of(id).and_then(|i| self.regions.get(i as usize))
    }

    pub fn by_name(&self, name: &str) -> Option<&RegionInfo> {
        self.regions.iter().find(|r| r.name == name)
    }

    pub fn len(&self) -> usize {
        self.regions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &RegionInfo> {
        self.regions.iter()
    }

    /// For an async wait region with a usable issue region: the issue's index.
    pub(crate) fn wait_issue(&self, idx: usize) -> Option<usize> {
        self.wait_issue[idx].map(|j| j as usize)
    }

    pub(crate) fn is_issue(&self, idx: usize) -> bool {
        self.is_issue[idx]
    }

    /// Regions found in records but not in the metadata.
    pub fn unknown_count(&self) -> usize {
        self.regions.iter().filter(|r| !r.in_meta).count()
    }
}
