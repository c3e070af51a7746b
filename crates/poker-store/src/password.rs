//! Argon2 password hashes in the PHC string format, computed in a memory block the caller
//! owns and may reuse.
//!
//! `argon2`'s own `hash_password` allocates its 19 MiB working memory on every call, on
//! whatever thread runs it; under glibc that memory then stays with the thread's malloc
//! arena after the call. A hashing thread that keeps one [`Memory`] and hands it to every
//! hash it computes allocates once, and gives the memory back to the system when it drops
//! the block (see [`Memory::release`]).

use argon2::password_hash::{rand_core::OsRng, Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};

/// The smallest allocation (in 1 KiB blocks) that glibc always maps on its own and unmaps
/// when freed: its dynamic mmap threshold never rises above 32 MiB on 64-bit targets, so
/// a bigger request never comes from (and never stays in) a thread's arena. Only the
/// blocks a hash uses are touched; the rest is address space, not resident memory. Other
/// allocators ignore the hint at the cost of that address space.
const OWN_MAPPING_BLOCKS: usize = 33 * 1024;

/// A reusable Argon2 working memory.
#[derive(Default)]
pub struct Memory {
    blocks: Vec<Block>,
}

impl Memory {
    /// An empty block; it grows to what the first hash needs.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// The memory for `params`, allocated on first use (or grown for costlier params).
    fn for_params(&mut self, params: &Params) -> &mut [Block] {
        let needed = params.block_count();
        if self.blocks.len() < needed {
            let mut blocks = Vec::with_capacity(needed.max(OWN_MAPPING_BLOCKS));
            blocks.resize(needed, Block::default());
            self.blocks = blocks;
        }
        &mut self.blocks[..needed]
    }

    /// Whether a block is held.
    pub fn is_held(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// Frees the block, so an idle hashing thread holds no memory; the next hash
    /// allocates it again.
    pub fn release(&mut self) {
        self.blocks = Vec::new();
    }
}

/// Hashes a password with Argon2id and the default parameters (a random salt each time),
/// in `memory`.
pub fn hash_password_in(password: &str, memory: &mut Memory) -> String {
    let salt = SaltString::generate(&mut OsRng);
    let params = Params::default();
    let hash = compute(
        password,
        Algorithm::default(),
        Version::default(),
        &params,
        &salt.as_salt(),
        memory,
    )
    .expect("argon2 with default parameters hashes any password");
    PasswordHash {
        algorithm: Algorithm::default().ident(),
        version: Some(Version::default().into()),
        params: ParamsString::try_from(&params).expect("default parameters format"),
        salt: Some(salt.as_salt()),
        hash: Some(hash),
    }
    .to_string()
}

/// Checks a password against its Argon2 hash (whatever its variant, version and
/// parameters), in `memory`.
pub fn verify_password_in(password: &str, hash: &str, memory: &mut Memory) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm) else {
        return false;
    };
    let version = match parsed.version.map(Version::try_from).transpose() {
        Ok(v) => v.unwrap_or_default(),
        Err(_) => return false,
    };
    let Ok(params) = Params::try_from(&parsed) else {
        return false;
    };
    // `Output`'s equality is constant-time.
    compute(password, algorithm, version, &params, &salt, memory).is_ok_and(|got| got == expected)
}

/// The raw Argon2 output for `password` and `salt`, as a PHC `Output`.
fn compute(
    password: &str,
    algorithm: Algorithm,
    version: Version,
    params: &Params,
    salt: &argon2::password_hash::Salt<'_>,
    memory: &mut Memory,
) -> argon2::password_hash::Result<Output> {
    let mut salt_bytes = [0u8; 64];
    let salt_bytes = salt.decode_b64(&mut salt_bytes)?;
    let argon = Argon2::new(algorithm, version, params.clone());
    let len = params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    Output::init_with(len, |out| {
        argon
            .hash_password_into_with_memory(
                password.as_bytes(),
                salt_bytes,
                out,
                memory.for_params(params),
            )
            .map_err(Into::into)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    /// Hashes made here verify with the `argon2` crate's own checker and the other way
    /// round, so stored hashes from before keep working.
    #[test]
    fn hashes_agree_with_the_argon2_crate() {
        let mut memory = Memory::new();
        let ours = hash_password_in("correct horse", &mut memory);
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(Argon2::default()
            .verify_password(b"correct horse", &parsed)
            .is_ok());
        assert!(Argon2::default()
            .verify_password(b"wrong horse", &parsed)
            .is_err());
        let salt = SaltString::generate(&mut OsRng);
        let theirs = Argon2::default()
            .hash_password(b"battery staple", &salt)
            .unwrap()
            .to_string();
        assert!(verify_password_in("battery staple", &theirs, &mut memory));
        assert!(!verify_password_in("battery stapler", &theirs, &mut memory));
        assert!(!verify_password_in(
            "battery staple",
            "not a hash",
            &mut memory
        ));
    }

    /// A hash with other parameters (cheaper ones here) is checked with its own.
    #[test]
    fn other_parameters_are_honoured() {
        let params = Params::new(1024, 1, 1, None).unwrap();
        let salt = SaltString::generate(&mut OsRng);
        let theirs = Argon2::new(Algorithm::Argon2i, Version::V0x13, params)
            .hash_password(b"pw", &salt)
            .unwrap()
            .to_string();
        let mut memory = Memory::new();
        assert!(verify_password_in("pw", &theirs, &mut memory));
        assert!(!verify_password_in("px", &theirs, &mut memory));
        memory.release();
        assert!(!memory.is_held());
        assert!(verify_password_in("pw", &theirs, &mut memory));
        assert!(memory.is_held());
    }
}
