//! Names of players and tables, and passwords: one rule wherever a name enters (the
//! registration page, the admin API, table creation), checked before the database on both
//! backends, so what is stored can never break a line of a hand history or a log.
//!
//! A name is Unicode NFC; it holds no control, format (bidi overrides, zero-width
//! characters), private-use, unassigned or line/paragraph-separator character; the only
//! space is U+0020, runs of spaces count as one and the ends are trimmed; its length is
//! counted in characters. Names are unique regardless of case (and of compatibility
//! forms such as full-width letters): [`name_key`] is what uniqueness and login compare.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The longest player name, in characters.
pub const PLAYER_NAME_MAX: usize = 32;
/// The longest table name, in characters.
pub const TABLE_NAME_MAX: usize = 64;
/// The shortest password, in characters.
pub const PASSWORD_MIN: usize = 8;
/// The longest password, in characters.
pub const PASSWORD_MAX: usize = 256;

/// Why a name is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing left after trimming.
    #[error("the name is empty")]
    Empty,
    /// More characters than allowed.
    #[error("the name has more than {max} characters")]
    TooLong {
        /// The limit.
        max: usize,
    },
    /// A character names may not hold.
    #[error("the name holds a character names may not hold (U+{:04X})", *.0 as u32)]
    Forbidden(char),
}

/// Whether `c` may appear in a name (before spaces are collapsed).
fn allowed(c: char) -> bool {
    use GeneralCategory::*;
    match c.general_category() {
        Control | Format | Surrogate | PrivateUse | Unassigned | LineSeparator
        | ParagraphSeparator => false,
        SpaceSeparator => c == ' ',
        _ => true,
    }
}

/// The name as stored: NFC, spaces collapsed and trimmed. At most `max` characters as
/// sent (the limit is on what the client sends, as the API documents it).
pub fn clean_name(raw: &str, max: usize) -> Result<String, NameError> {
    if raw.chars().count() > max {
        return Err(NameError::TooLong { max });
    }
    let nfc: String = raw.nfc().collect();
    if let Some(bad) = nfc.chars().find(|&c| !allowed(c)) {
        return Err(NameError::Forbidden(bad));
    }
    let name = nfc.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>();
    let name = name.join(" ");
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    Ok(name)
}

/// A player name as stored ([`clean_name`] with [`PLAYER_NAME_MAX`]).
pub fn player_name(raw: &str) -> Result<String, NameError> {
    clean_name(raw, PLAYER_NAME_MAX)
}

/// A table name as stored ([`clean_name`] with [`TABLE_NAME_MAX`]).
pub fn table_name(raw: &str) -> Result<String, NameError> {
    clean_name(raw, TABLE_NAME_MAX)
}

/// What two names compare by: compatibility forms folded (NFKC), lower case. `ZED`,
/// `zed` and full-width `ｚｅｄ` share one key.
pub fn name_key(name: &str) -> String {
    let folded: String = name.nfkc().collect::<String>().to_lowercase();
    folded.nfkc().collect()
}

/// Whether a password has an acceptable length, counted in characters.
pub fn password_ok(password: &str) -> bool {
    (PASSWORD_MIN..=PASSWORD_MAX).contains(&password.chars().count())
}

/// A name made safe for a line format (hand histories, logs): any character a name may
/// not hold (a newline in a name stored before these rules, say) becomes U+FFFD.
pub fn printable(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().all(allowed) {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(
            name.chars()
                .map(|c| if allowed(c) { c } else { '\u{FFFD}' })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_nfc_trimmed_with_spaces_collapsed() {
        assert_eq!(player_name("  Ann  Lee ").unwrap(), "Ann Lee");
        // e + combining acute becomes the one precomposed character.
        assert_eq!(player_name("Re\u{301}my").unwrap(), "R\u{e9}my");
        assert_eq!(player_name("\u{e9}").unwrap().chars().count(), 1);
    }

    #[test]
    fn control_format_and_separator_characters_are_refused() {
        for bad in [
            "a\nb",
            "a\rb",
            "a\tb",
            "a\0b",
            "evil\u{202E}gnp",
            "zero\u{200B}width",
            "join\u{200D}er",
            "bom\u{FEFF}",
            "line\u{2028}sep",
            "nb\u{A0}sp",
            "wide\u{3000}space",
            "private\u{E000}",
            "\u{7F}",
        ] {
            assert!(
                matches!(player_name(bad), Err(NameError::Forbidden(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn length_is_counted_in_characters() {
        assert!(player_name(&"é".repeat(32)).is_ok());
        assert_eq!(
            player_name(&"é".repeat(33)),
            Err(NameError::TooLong { max: 32 })
        );
        assert!(table_name(&"x".repeat(64)).is_ok());
        assert_eq!(player_name("   "), Err(NameError::Empty));
        // Counted as sent: padding counts; a character NFC writes as two does not.
        assert!(player_name(&format!(" {}", "x".repeat(32))).is_err());
        assert!(player_name(&"\u{958}".repeat(20)).is_ok());
        assert_eq!(player_name(""), Err(NameError::Empty));
    }

    #[test]
    fn names_differing_in_case_or_width_share_a_key() {
        assert_eq!(name_key("ZED"), name_key("zed"));
        assert_eq!(name_key("\u{FF3A}ed"), name_key("zed"));
        assert_ne!(name_key("zed"), name_key("zee"));
    }

    #[test]
    fn passwords_are_measured_in_characters() {
        assert!(password_ok("12345678"));
        assert!(!password_ok("1234567"));
        // Four characters of three bytes each: 12 bytes but too short.
        assert!(!password_ok("€€€€"));
        assert!(password_ok("€€€€€€€€"));
        assert!(!password_ok(&"x".repeat(PASSWORD_MAX + 1)));
    }

    #[test]
    fn printable_replaces_what_a_name_may_not_hold() {
        assert_eq!(printable("ok name"), "ok name");
        assert_eq!(printable("a\nb\u{202E}"), "a\u{FFFD}b\u{FFFD}");
    }
}
