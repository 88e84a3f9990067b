//! The list of pruning and reduction techniques, written once. It indexes the prune counters
//! ([`PruneStats`]); their printed line, their JSON and every report follow from it, so adding a
//! technique touches this list and the parameter table.

use std::fmt;
use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

macro_rules! techniques {
    ($( $variant:ident $name:literal $doc:literal; )*) => {
        /// A technique that cuts or reduces the search; each counts what it did.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Technique {
            $( #[doc = $doc] $variant, )*
        }

        impl Technique {
            /// Every technique, in the order of the search.
            pub const ALL: &'static [Technique] = &[$( Technique::$variant, )*];

            /// The snake_case name used in JSON and printed lines.
            pub fn name(self) -> &'static str {
                match self { $( Technique::$variant => $name, )* }
            }

            /// What its counter counts.
            pub fn doc(self) -> &'static str {
                match self { $( Technique::$variant => $doc, )* }
            }
        }
    };
}

techniques! {
    DeepFutility "deep_futility" "Nodes cut by deep futility pruning.";
    Razor "razor" "Depth-3 nodes reduced by razoring.";
    NullMove "null_move" "Null-move cut-offs.";
    FutilityNodes "futility_nodes" "Frontier nodes cut whole by the node-level futility modes (quiescence or evaluation).";
    Futility "futility" "Moves skipped by frontier futility (depth 1).";
    ExtFutility "ext_futility" "Moves skipped by extended futility (depth 2).";
    LateMove "late_move" "Quiet moves skipped by late move pruning.";
    Lmr "lmr" "Moves searched with a late move reduction.";
    DeltaNodes "delta_nodes" "Quiescence nodes left early because even the biggest swing cannot raise alpha.";
    Delta "delta" "Captures skipped by delta pruning in quiescence.";
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How often each technique fired during one search (or the sum of many).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PruneStats([u64; Technique::ALL.len()]);

impl PruneStats {
    /// Adds another search's counts.
    pub fn add(&mut self, other: &PruneStats) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }

    /// Each technique with its count, in [`Technique::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Technique, u64)> + '_ {
        Technique::ALL.iter().map(|&t| (t, self[t]))
    }
}

impl Index<Technique> for PruneStats {
    type Output = u64;

    fn index(&self, t: Technique) -> &u64 {
        &self.0[t as usize]
    }
}

impl IndexMut<Technique> for PruneStats {
    fn index_mut(&mut self, t: Technique) -> &mut u64 {
        &mut self.0[t as usize]
    }
}

impl<'a> std::iter::Sum<&'a PruneStats> for PruneStats {
    fn sum<I: Iterator<Item = &'a PruneStats>>(iter: I) -> PruneStats {
        let mut total = PruneStats::default();
        for s in iter {
            total.add(s);
        }
        total
    }
}

impl fmt::Display for PruneStats {
    /// `name count, name count, ...` for every technique, in search order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (t, n)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{t} {n}")?;
        }
        Ok(())
    }
}

impl Serialize for PruneStats {
    /// A map of technique name to count.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(Technique::ALL.len()))?;
        for (t, n) in self.iter() {
            map.serialize_entry(t.name(), &n)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for PruneStats {
    /// A map of technique name to count; missing techniques count 0, unknown names are errors.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let map = std::collections::BTreeMap::<String, u64>::deserialize(deserializer)?;
        let mut stats = PruneStats::default();
        for (name, n) in map {
            let t = Technique::ALL
                .iter()
                .find(|t| t.name() == name)
                .ok_or_else(|| D::Error::custom(format!("unknown technique '{name}'")))?;
            stats[*t] = n;
        }
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_follow_the_list() {
        let mut a = PruneStats::default();
        a[Technique::Futility] += 3;
        a[Technique::Delta] += 1;
        let mut b = a;
        b.add(&a);
        assert_eq!((b[Technique::Futility], b[Technique::Delta]), (6, 2));
        let line = b.to_string();
        for t in Technique::ALL {
            assert!(line.contains(t.name()), "{line}");
        }
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(serde_json::from_str::<PruneStats>(&json).unwrap(), b);
        assert!(serde_json::from_str::<PruneStats>(r#"{"no_such": 1}"#).is_err());
        let names: std::collections::HashSet<_> = Technique::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names.len(), Technique::ALL.len());
    }
}
