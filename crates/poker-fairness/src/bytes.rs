//! Fixed-size byte strings written as lowercase hex, on the wire and in records: digests,
//! salts and seeds.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// `N` bytes, written as `2N` lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bytes<const N: usize>(pub [u8; N]);

/// A SHA-256 output: a leaf, a node, a root, a commitment, a shuffle key.
pub type Digest = Bytes<32>;
/// The random salt hiding one card in its leaf (revealed only with that card).
pub type Salt = Bytes<16>;
/// A player's random contribution to the order of the deal.
pub type Seed = Bytes<32>;

impl<const N: usize> Bytes<N> {
    /// These bytes.
    pub fn from_bytes(bytes: [u8; N]) -> Self {
        Bytes(bytes)
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8; N] {
        &self.0
    }
}

impl<const N: usize> Default for Bytes<N> {
    fn default() -> Self {
        Bytes([0; N])
    }
}

impl<const N: usize> fmt::Display for Bytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in &self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl<const N: usize> fmt::Debug for Bytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Text that is not exactly `2N` hex digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected} hex digits")]
pub struct HexError {
    /// How many digits were expected.
    pub expected: usize,
}

/// Decodes hex text into bytes (either case), `None` if it is not hex of an even length.
pub fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// Encodes bytes as lowercase hex.
pub fn encode_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

impl<const N: usize> FromStr for Bytes<N> {
    type Err = HexError;

    fn from_str(s: &str) -> Result<Self, HexError> {
        let err = HexError { expected: 2 * N };
        let bytes = decode_hex(s).ok_or(err.clone())?;
        Ok(Bytes(bytes.try_into().map_err(|_| err)?))
    }
}

impl<const N: usize> Serialize for Bytes<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de, const N: usize> Deserialize<'de> for Bytes<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_through_hex_and_refuse_the_wrong_length() {
        let seed: Seed = Bytes([0xab; 32]);
        let text = seed.to_string();
        assert_eq!(text, "ab".repeat(32));
        assert_eq!(text.parse::<Seed>().unwrap(), seed);
        assert_eq!(text.to_uppercase().parse::<Seed>().unwrap(), seed);
        assert!("ab".repeat(31).parse::<Seed>().is_err());
        assert!("zz".repeat(32).parse::<Seed>().is_err());
        assert!(serde_json::from_str::<Salt>("\"00\"").is_err());
        let json = serde_json::to_string(&seed).unwrap();
        assert_eq!(serde_json::from_str::<Seed>(&json).unwrap(), seed);
    }
}
