//! Node kinds, fixed at compile time (so "never at the root" and "never at a PV node" cost
//! nothing), and the facts a node gathers before its techniques read them.

use super::{Board, MATE_BOUND};

/// The kind of an alpha-beta node, as a type parameter of the search.
///
/// The root is a PV node; a PV node's first child is a PV node and its later children are
/// searched as non-PV nodes (re-searched as PV nodes when they beat alpha); every child of a
/// non-PV node is a non-PV node.
pub(super) trait NodeType {
    /// The root: no draw or mate-distance check (it must return a move), no pruning, and its
    /// best move is the search's.
    const ROOT: bool;
    /// On the principal variation, with an open window: never cut short as a whole, so the
    /// PV it returns is never truncated.
    const PV: bool;
}

/// The root node (a PV node).
pub(super) struct Root;
/// A principal-variation node below the root.
pub(super) struct Pv;
/// A node searched with a null window, expected to fail high or low.
pub(super) struct NonPv;

impl NodeType for Root {
    const ROOT: bool = true;
    const PV: bool = true;
}

impl NodeType for Pv {
    const ROOT: bool = false;
    const PV: bool = true;
}

impl NodeType for NonPv {
    const ROOT: bool = false;
    const PV: bool = false;
}

/// What an alpha-beta node knows once it has its static evaluation (step 6): the facts the
/// techniques' guards read. The window is not here: alpha rises during the move loop.
#[derive(Clone, Copy)]
pub(super) struct Node<'a> {
    /// The position.
    pub(super) board: &'a Board,
    /// Distance from the root, plies.
    pub(super) ply: usize,
    /// Remaining depth, plies (razoring may lower it).
    pub(super) depth: i32,
    /// Static evaluation, side to move's point of view (`-INFINITY` in check).
    pub(super) eval: i32,
    /// The side to move is in check.
    pub(super) in_check: bool,
    /// The move into this node was extended.
    pub(super) extended: bool,
    /// The guards every pruning technique shares ([`may_prune`]), for the node's window.
    pub(super) may_prune: bool,
}

/// The guards every pruning technique shares (written once, here): never at the root, never
/// in check, never with alpha or beta near a mate score (it would blind the search to mates).
pub(super) fn may_prune<N: NodeType>(in_check: bool, alpha: i32, beta: i32) -> bool {
    !N::ROOT && !in_check && alpha.abs() < MATE_BOUND && beta.abs() < MATE_BOUND
}
