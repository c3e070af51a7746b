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
        // Written in pieces of a stack buffer: a hand's record holds hundreds of these,
        // and the formatter's machinery per byte cost more than the rest of serializing.
        let mut buf = [0u8; 64];
        for chunk in self.0.chunks(32) {
            let text = hex_into(chunk, &mut buf);
            f.write_str(text)?;
        }
        Ok(())
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `bytes` (at most half of `buf`'s length) as lowercase hex at the start of `buf`.
fn hex_into<'a>(bytes: &[u8], buf: &'a mut [u8]) -> &'a str {
    for (i, b) in bytes.iter().enumerate() {
        buf[2 * i] = HEX[usize::from(b >> 4)];
        buf[2 * i + 1] = HEX[usize::from(b & 0xf)];
    }
    std::str::from_utf8(&buf[..2 * bytes.len()]).expect("hex digits are ASCII")
}

impl<const N: usize> fmt::Debug for Bytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Text that is not exactly `2N` lowercase hex digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected} lowercase hex digits")]
pub struct HexError {
    /// How many digits were expected.
    pub expected: usize,
}

/// Decodes lowercase hex text into bytes, `None` if it is not lowercase hex of an even
/// length (uppercase digits are refused: every value has one spelling).
pub fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2)
        || !text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
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
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
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
        // Digests, salts and seeds (32 bytes at most) as one string from a stack buffer:
        // through `collect_str` each went by the formatter's machinery, and a hand's
        // proofs hold hundreds of them.
        let mut buf = [0u8; 64];
        if N <= 32 {
            s.serialize_str(hex_into(&self.0, &mut buf))
        } else {
            s.collect_str(self)
        }
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
        // One spelling per value: uppercase hex is refused, as are signs and spaces.
        assert!(text.to_uppercase().parse::<Seed>().is_err());
        assert!(format!("+{}", &text[1..]).parse::<Seed>().is_err());
        assert!(format!(" {}", &text[1..]).parse::<Seed>().is_err());
        assert!("ab".repeat(31).parse::<Seed>().is_err());
        assert!("zz".repeat(32).parse::<Seed>().is_err());
        assert!(serde_json::from_str::<Salt>("\"00\"").is_err());
        let json = serde_json::to_string(&seed).unwrap();
        assert_eq!(serde_json::from_str::<Seed>(&json).unwrap(), seed);
    }

    #[test]
    fn hex_is_what_the_formatter_writes_for_every_byte() {
        // Every byte value, high nibble and low, in 32-byte strings and across a
        // 64-byte one (written in two pieces).
        let all: Vec<u8> = (0..=255).collect();
        let reference =
            |bytes: &[u8]| -> String { bytes.iter().map(|b| format!("{b:02x}")).collect() };
        for chunk in all.chunks(32) {
            let digest: Digest = Bytes(chunk.try_into().unwrap());
            assert_eq!(digest.to_string(), reference(chunk));
            assert_eq!(format!("{digest:?}"), reference(chunk));
            // Serialized as the same string (from the stack buffer).
            let json = serde_json::to_string(&digest).unwrap();
            assert_eq!(json, format!("\"{}\"", reference(chunk)));
            let salt: Salt = Bytes(chunk[..16].try_into().unwrap());
            let json = serde_json::to_string(&salt).unwrap();
            assert_eq!(json, format!("\"{}\"", reference(&chunk[..16])));
        }
        let long: Bytes<64> = Bytes(all[100..164].try_into().unwrap());
        assert_eq!(long.to_string(), reference(&all[100..164]));
        let json = serde_json::to_string(&long).unwrap();
        assert_eq!(json, format!("\"{}\"", reference(&all[100..164])));
        assert_eq!(encode_hex(&all), reference(&all));
        assert_eq!(decode_hex(&encode_hex(&all)).unwrap(), all);
    }
}
