//! The Merkle tree over the committed deck, as RFC 6962 (Certificate Transparency) builds
//! it: leaves and inner nodes hashed with different prefixes (`0x00`, `0x01`), and a count
//! that is not a power of two split at the largest power of two below it. Proofs are
//! RFC 9162 inclusion proofs (sibling hashes from the leaf up), checked by its algorithm.

use crate::bytes::{Digest, Salt};
use poker_rules::Card;
use sha2::{Digest as _, Sha256};

/// The hash of the leaf at committed position `position`: SHA-256 of the byte `0x00`, the
/// position (one byte), the card as two ASCII characters (`As`, `Td`) and its 16-byte salt.
pub fn leaf_hash(position: u8, card: Card, salt: &Salt) -> Digest {
    let text = card.to_string();
    let mut h = Sha256::new();
    h.update([0x00, position]);
    h.update(text.as_bytes());
    h.update(salt.as_bytes());
    crate::bytes::Bytes(h.finalize().into())
}

/// The hash of an inner node: SHA-256 of the byte `0x01`, the left child and the right.
pub fn node_hash(left: &Digest, right: &Digest) -> Digest {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left.as_bytes());
    h.update(right.as_bytes());
    crate::bytes::Bytes(h.finalize().into())
}

/// A whole tree, level by level (leaves first). Pairing each level's nodes from the left
/// and carrying a lone last node up unchanged builds exactly RFC 6962's tree.
#[derive(Clone, PartialEq, Eq)]
pub struct Tree {
    levels: Vec<Vec<Digest>>,
}

impl Tree {
    /// The tree over these leaf hashes (at least one).
    ///
    /// # Panics
    /// Panics on no leaves: a deck is never empty.
    pub fn new(leaves: Vec<Digest>) -> Tree {
        assert!(!leaves.is_empty(), "a tree has leaves");
        let mut levels = vec![leaves];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let below = levels.last().expect("a level");
            let up = below
                .chunks(2)
                .map(|pair| match pair {
                    [l, r] => node_hash(l, r),
                    [lone] => *lone,
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            levels.push(up);
        }
        Tree { levels }
    }

    /// How many leaves.
    pub fn size(&self) -> usize {
        self.levels[0].len()
    }

    /// The root.
    pub fn root(&self) -> Digest {
        self.levels.last().expect("a level")[0]
    }

    /// The inclusion proof of leaf `index`: the sibling of each node on its way to the
    /// root that has one, from the leaf up.
    pub fn path(&self, index: usize) -> Vec<Digest> {
        let mut out = Vec::new();
        let mut i = index;
        for level in &self.levels[..self.levels.len() - 1] {
            if let Some(sibling) = level.get(i ^ 1) {
                out.push(*sibling);
            }
            i >>= 1;
        }
        out
    }
}

/// Whether `path` proves that `leaf` is leaf `index` of a tree of `size` leaves with this
/// root (RFC 9162, section 2.1.3.2).
pub fn verify_path(
    index: usize,
    size: usize,
    leaf: &Digest,
    path: &[Digest],
    root: &Digest,
) -> bool {
    if index >= size {
        return false;
    }
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in path {
        if s == 0 {
            return false;
        }
        if f & 1 == 1 || f == s {
            r = node_hash(p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    s == 0 && r == *root
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Bytes;

    /// RFC 6962's definition, recursively: the hash of leaves `d`.
    fn mth(d: &[Digest]) -> Digest {
        if d.len() == 1 {
            return d[0];
        }
        let k = d.len().next_power_of_two() / 2;
        node_hash(&mth(&d[..k]), &mth(&d[k..]))
    }

    /// RFC 6962's PATH(m, D[n]).
    fn rfc_path(m: usize, d: &[Digest]) -> Vec<Digest> {
        if d.len() == 1 {
            return Vec::new();
        }
        let k = d.len().next_power_of_two() / 2;
        if m < k {
            let mut p = rfc_path(m, &d[..k]);
            p.push(mth(&d[k..]));
            p
        } else {
            let mut p = rfc_path(m - k, &d[k..]);
            p.push(mth(&d[..k]));
            p
        }
    }

    fn leaves(n: usize) -> Vec<Digest> {
        (0..n)
            .map(|i| {
                let card = Card::from_index(i as u8 % 52).unwrap();
                leaf_hash(i as u8, card, &Bytes([i as u8; 16]))
            })
            .collect()
    }

    #[test]
    fn the_level_by_level_tree_is_rfc_6962s_for_every_size_up_to_a_deck_and_more() {
        for n in 1..=70 {
            let d = leaves(n);
            let tree = Tree::new(d.clone());
            assert_eq!(tree.root(), mth(&d), "root of {n}");
            for m in 0..n {
                assert_eq!(tree.path(m), rfc_path(m, &d), "path {m} of {n}");
                assert!(verify_path(m, n, &d[m], &tree.path(m), &tree.root()));
            }
        }
    }

    #[test]
    fn a_proof_holds_only_for_its_leaf_index_size_and_root() {
        let d = leaves(52);
        let tree = Tree::new(d.clone());
        let root = tree.root();
        let path = tree.path(17);
        assert!(verify_path(17, 52, &d[17], &path, &root));
        // Another leaf, another index, another size, a path one step short or too long,
        // a changed sibling: all refused.
        assert!(!verify_path(17, 52, &d[18], &path, &root));
        assert!(!verify_path(16, 52, &d[17], &path, &root));
        // The size sets the shape (it is bound by the commitment, not by the path).
        assert!(!verify_path(17, 32, &d[17], &path, &root));
        assert!(!verify_path(17, 52, &d[17], &path[..path.len() - 1], &root));
        let mut longer = path.clone();
        longer.push(root);
        assert!(!verify_path(17, 52, &d[17], &longer, &root));
        let mut changed = path.clone();
        changed[2].0[0] ^= 1;
        assert!(!verify_path(17, 52, &d[17], &changed, &root));
        assert!(!verify_path(52, 52, &d[17], &path, &root));
    }

    #[test]
    fn a_leaf_never_hashes_like_a_node() {
        // Domain separation: the same 20 bytes as a leaf's input and as part of a node's
        // give different hashes, and one leaf's hash is not the tree of one leaf's node.
        let salt = Bytes([7; 16]);
        let leaf = leaf_hash(3, Card::from_index(5).unwrap(), &salt);
        assert_ne!(leaf, node_hash(&leaf, &leaf));
        assert_eq!(Tree::new(vec![leaf]).root(), leaf);
    }
}
