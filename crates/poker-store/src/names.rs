//! The one Unicode policy of text people type: names (players, staff, tables) and chat
//! lines, checked before the database on both backends and before a line reaches a table,
//! so that what is stored or said can never break a line of a hand history or a log, hide
//! itself, turn other text around, or pass for something else.
//!
//! Both kinds of text are Unicode NFC and hold no control, format (bidi controls,
//! zero-width characters, invisible operators, tag characters, the soft hyphen),
//! surrogate, private-use, unassigned, or line/paragraph-separator character; the only
//! space is U+0020; characters that show nothing though their category would pass
//! (Hangul fillers, the combining grapheme joiner, variation selectors, the blank Braille
//! pattern) are refused too. A combining mark needs a character to sit on (not the start,
//! not a space), and one character carries at most [`MAX_MARKS`] of them, so no line can
//! stack marks over its neighbours.
//!
//! - **Names**: runs of spaces count as one and the ends are trimmed; the length is
//!   counted in characters; a name that reads as an id (a UUID in any spelling: hyphenated
//!   or not, braced, `urn:uuid:`, any case, full-width digits...) is refused, so that a
//!   name can never be taken for somebody's id ([`looks_like_id`]). Names are unique
//!   regardless of case and compatibility forms: [`name_key`] is what uniqueness and
//!   login compare. A name may hold an emoji, but no emoji sequence (no joiner, no
//!   presentation selector: invisible differences between two names).
//! - **Chat lines** ([`chat_line`]): trimmed, spaces kept as typed; emoji sequences as
//!   people write them are allowed: a presentation selector (U+FE0E, U+FE0F) right after
//!   an emoji, and a zero-width joiner between two emoji (families, professions, the
//!   rainbow flag), at most [`MAX_JOINED`] emoji in one sequence. Tag sequences (the
//!   flags of England, Scotland and Wales) are refused with every tag character.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::emoji::UnicodeEmoji;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The longest player name, in characters.
pub const PLAYER_NAME_MAX: usize = 32;
/// The longest table name, in characters.
pub const TABLE_NAME_MAX: usize = 64;
/// The shortest password, in characters.
pub const PASSWORD_MIN: usize = 8;
/// The longest password, in characters.
pub const PASSWORD_MAX: usize = 256;
/// The most combining marks one character may carry (after NFC), in names and chat.
pub const MAX_MARKS: usize = 4;
/// The most emoji one zero-width-joiner sequence of a chat line may join (the longest
/// sequences Unicode recommends, a kiss or a family of four, join four).
pub const MAX_JOINED: usize = 4;

/// Why a piece of text breaks the policy (names and chat alike).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// A character the policy refuses.
    #[error("a character that is not allowed (U+{:04X})", *.0 as u32)]
    Forbidden(char),
    /// More than [`MAX_MARKS`] combining marks on one character.
    #[error("more than {MAX_MARKS} combining marks on one character")]
    TooManyMarks,
    /// A combining mark with no character to sit on (at the start, or after a space).
    #[error("a combining mark with no character to sit on (U+{:04X})", *.0 as u32)]
    StrayMark(char),
}

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
    /// More than [`MAX_MARKS`] combining marks on one character.
    #[error("the name has more than {MAX_MARKS} combining marks on one character")]
    TooManyMarks,
    /// A combining mark with no character to sit on.
    #[error("the name has a combining mark with no character to sit on (U+{:04X})", *.0 as u32)]
    StrayMark(char),
    /// The name reads as an id (a UUID in some spelling): names are never ids.
    #[error("the name reads as an id (a UUID): choose a name that is not one")]
    LooksLikeId,
}

impl From<TextError> for NameError {
    fn from(e: TextError) -> NameError {
        match e {
            TextError::Forbidden(c) => NameError::Forbidden(c),
            TextError::TooManyMarks => NameError::TooManyMarks,
            TextError::StrayMark(c) => NameError::StrayMark(c),
        }
    }
}

/// Characters that show nothing although their category alone would let them in.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{034F}' // combining grapheme joiner
            | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' // Hangul fillers
            | '\u{17B4}' | '\u{17B5}' // Khmer inherent vowels
            | '\u{180B}'..='\u{180D}' | '\u{180F}' // Mongolian variation selectors
            | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' // variation selectors
            | '\u{2800}' // Braille pattern blank
    )
}

/// Whether `c` may appear in a name or a chat line on its own (what [`printable`] keeps):
/// no control, format, surrogate, private-use, unassigned or line/paragraph-separator
/// character, no space but U+0020, nothing invisible.
fn allowed(c: char) -> bool {
    use GeneralCategory::*;
    match c.general_category() {
        Control | Format | Surrogate | PrivateUse | Unassigned | LineSeparator
        | ParagraphSeparator => false,
        SpaceSeparator => c == ' ',
        _ => !invisible(c),
    }
}

fn is_mark(c: char) -> bool {
    use GeneralCategory::*;
    matches!(
        c.general_category(),
        NonspacingMark | SpacingMark | EnclosingMark
    )
}

/// An emoji that may stand in a zero-width-joiner sequence (not a digit, `#` or `*`,
/// which are emoji only in keycaps, nor a regional indicator).
fn pictographic(c: char) -> bool {
    !c.is_ascii() && c.is_emoji_char() && !matches!(c, '\u{1F1E6}'..='\u{1F1FF}')
}

/// Which text is checked: chat lines may hold emoji sequences, names may not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Name,
    Chat,
}

/// Checks NFC text against the policy.
fn check(text: &str, kind: Kind) -> Result<(), TextError> {
    let chars: Vec<char> = text.chars().collect();
    // Marks on the current character; whether there is one to carry them; emoji joined
    // in the current sequence.
    let mut marks = 0;
    let mut base = false;
    let mut joined = 1;
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        if kind == Kind::Chat {
            if c == '\u{200D}' {
                let after = prev.is_some_and(|p| pictographic(p) || p == '\u{FE0F}');
                if !after || !next.is_some_and(pictographic) {
                    return Err(TextError::Forbidden(c));
                }
                joined += 1;
                if joined > MAX_JOINED {
                    return Err(TextError::Forbidden(c));
                }
                base = false;
                marks = 0;
                continue;
            }
            if matches!(c, '\u{FE0E}' | '\u{FE0F}') {
                if !prev.is_some_and(|p| p.is_emoji_char()) {
                    return Err(TextError::Forbidden(c));
                }
                marks += 1;
                continue;
            }
        }
        if !allowed(c) {
            return Err(TextError::Forbidden(c));
        }
        if is_mark(c) {
            if !base {
                return Err(TextError::StrayMark(c));
            }
            marks += 1;
            if marks > MAX_MARKS {
                return Err(TextError::TooManyMarks);
            }
            continue;
        }
        if prev != Some('\u{200D}') {
            joined = 1;
        }
        base = c != ' ';
        marks = 0;
    }
    Ok(())
}

/// Whether a name reads as an id: once compatibility forms are folded (NFKC: full-width
/// digits and punctuation, mathematical letters, superscripts), case ignored and the
/// separators a UUID is written with dropped (spaces, `-`, `{`, `}`, `:`, `_`, `.`), it is
/// 32 hexadecimal digits, after an optional `urn:uuid:`. Every spelling a UUID parser
/// accepts (simple, hyphenated, braced, URN, any case) is caught, and more.
/// (docs/openapi.json states the same rule as a pattern over Latin-1.)
pub fn looks_like_id(name: &str) -> bool {
    let folded: String = name
        .nfkc()
        .filter(|c| !matches!(c, ' ' | '-' | '{' | '}' | ':' | '_' | '.'))
        .flat_map(char::to_lowercase)
        .collect();
    let hex = folded.strip_prefix("urnuuid").unwrap_or(&folded);
    hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The name as stored: NFC, spaces collapsed and trimmed, the policy kept. At most `max`
/// characters as sent (the limit is on what the client sends, as the API documents it).
/// A name that reads as an id is refused too ([`looks_like_id`]).
pub fn clean_name(raw: &str, max: usize) -> Result<String, NameError> {
    if raw.chars().count() > max {
        return Err(NameError::TooLong { max });
    }
    let nfc: String = raw.nfc().collect();
    check(&nfc, Kind::Name)?;
    let name = collapse(&nfc);
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if looks_like_id(&name) {
        return Err(NameError::LooksLikeId);
    }
    Ok(name)
}

/// Runs of spaces as one, the ends trimmed.
fn collapse(text: &str) -> String {
    text.split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A player name as stored ([`clean_name`] with [`PLAYER_NAME_MAX`]). Staff names follow
/// the same rule.
pub fn player_name(raw: &str) -> Result<String, NameError> {
    clean_name(raw, PLAYER_NAME_MAX)
}

/// A table name as stored ([`clean_name`] with [`TABLE_NAME_MAX`]).
pub fn table_name(raw: &str) -> Result<String, NameError> {
    clean_name(raw, TABLE_NAME_MAX)
}

/// A chat line as shown: trimmed, NFC, at most `max` characters, the policy kept (with
/// emoji sequences).
pub fn chat_line(raw: &str, max: usize) -> Result<String, ChatError> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(ChatError::Empty);
    }
    if text.chars().count() > max {
        return Err(ChatError::TooLong { max });
    }
    let nfc: String = text.nfc().collect();
    check(&nfc, Kind::Chat)?;
    Ok(nfc)
}

/// Why a chat line is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// Nothing but spaces.
    #[error("say something")]
    Empty,
    /// More characters than allowed.
    #[error("a chat line is at most {max} characters")]
    TooLong {
        /// The limit.
        max: usize,
    },
    /// A character, mark or sequence the policy refuses.
    #[error("a chat line may not hold {0}")]
    Text(#[from] TextError),
}

/// What two names compare by: compatibility forms folded (NFKC), lower case. `ZED`,
/// `zed` and full-width `ｚｅｄ` share one key.
pub fn name_key(name: &str) -> String {
    let folded: String = name.nfkc().collect::<String>().to_lowercase();
    folded.nfkc().collect()
}

/// The key a name typed at login (or in a lookup) is found by: NFC, spaces collapsed and
/// trimmed, then [`name_key`]; no rule checked, so that an account named before a rule
/// existed (a name that reads as an id, say) is still found by its name. `None` for a
/// name of nothing but spaces.
pub fn lookup_key(raw: &str) -> Option<String> {
    let nfc: String = raw.nfc().collect();
    let name = collapse(&nfc);
    (!name.is_empty()).then(|| name_key(&name))
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

    #[test]
    fn a_name_that_reads_as_an_id_is_refused_in_every_spelling() {
        let id = "3f2a9c1b7d5e4f60a1b2c3d4e5f60718";
        let wide: String = id
            .chars()
            .map(|c| match c {
                '0'..='9' => char::from_u32(0xFF10 + (c as u32 - '0' as u32)).unwrap(),
                'a'..='f' => char::from_u32(0xFF41 + (c as u32 - 'a' as u32)).unwrap(),
                _ => c,
            })
            .collect();
        let hyphenated = "3f2a9c1b-7d5e-4f60-a1b2-c3d4e5f60718";
        for spelling in [
            id.to_string(),
            id.to_uppercase(),
            format!("  {id}  "),
            wide,
            hyphenated.to_string(),
            format!("{{{hyphenated}}}"),
            format!("urn:uuid:{hyphenated}"),
            format!("URN:UUID:{}", hyphenated.to_uppercase()),
            "3f2a9c1b 7d5e 4f60 a1b2 c3d4e5f60718".to_string(),
            "00000000000000000000000000000000".to_string(),
        ] {
            assert!(looks_like_id(&spelling), "{spelling:?}");
            assert!(
                matches!(
                    table_name(&spelling),
                    Err(NameError::LooksLikeId | NameError::TooLong { .. })
                ),
                "{spelling:?}"
            );
        }
        assert_eq!(player_name(id), Err(NameError::LooksLikeId));
        assert_eq!(table_name(hyphenated), Err(NameError::LooksLikeId));
        // Not ids: one digit short or long, a letter past f, words that happen to be hex.
        for name in [
            &id[..31],
            &format!("{id}0")[..],
            "3f2a9c1b7d5e4f60a1b2c3d4e5f6071g",
            "deadbeef",
            "cafe babe",
        ] {
            assert!(!looks_like_id(name), "{name:?}");
        }
        assert!(player_name("deadbeef").is_ok());
    }

    #[test]
    fn combining_marks_are_capped_and_need_a_character_to_sit_on() {
        // Vietnamese and Hebrew with points keep their marks.
        assert!(player_name("Nguy\u{1ec5}n").is_ok());
        assert!(player_name("\u{5e9}\u{5c1}\u{5bc}\u{5b8}\u{591}").is_ok());
        // Four marks stand; a fifth on one letter is refused (after NFC: a + U+0301 is one
        // character, so the count is of what is left).
        assert!(player_name("x\u{316}\u{317}\u{318}\u{319}").is_ok());
        let stacked = "x\u{316}\u{317}\u{318}\u{319}\u{31A}";
        assert_eq!(player_name(stacked), Err(NameError::TooManyMarks));
        assert_eq!(
            player_name(&format!("a{}", "\u{301}".repeat(199))),
            Err(NameError::TooLong { max: 32 })
        );
        assert_eq!(
            table_name(&format!("a{}", "\u{316}".repeat(60))),
            Err(NameError::TooManyMarks)
        );
        assert_eq!(
            player_name("\u{301}ann"),
            Err(NameError::StrayMark('\u{301}'))
        );
        assert_eq!(
            player_name("ann \u{301}x"),
            Err(NameError::StrayMark('\u{301}'))
        );
    }

    #[test]
    fn invisible_characters_are_refused_in_names() {
        for bad in [
            "a\u{3164}b",
            "\u{115F}ann",
            "ann\u{FE0F}",
            "ann\u{FE00}",
            "a\u{34F}b",
            "a\u{2800}b",
            "a\u{180B}b",
            "a\u{E0100}b",
            "zwj\u{200D}er",
        ] {
            assert!(
                matches!(player_name(bad), Err(NameError::Forbidden(_))),
                "{bad:?}"
            );
        }
        // An emoji on its own is a character like another.
        assert!(player_name("ann \u{2660}\u{1F600}").is_ok());
    }

    /// Every class the chat refused too little of (issue 24), and what it keeps.
    #[test]
    fn chat_lines_keep_the_policy_of_names_with_emoji_sequences() {
        for bad in [
            "word\u{2060}joiner",
            "apply\u{2061}function",
            "invisible\u{2062}times",
            "invisible\u{2063}separator",
            "invisible\u{2064}plus",
            "arabic\u{61C}mark",
            "mongolian\u{180E}separator",
            "soft\u{AD}hyphen",
            "line\u{2028}separator",
            "paragraph\u{2029}separator",
            "anchor\u{FFF9}x",
            "tag\u{E0041}\u{E0042}",
            "flag \u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
            "private\u{E000}",
            "unassigned\u{378}",
            "nbsp\u{A0}x",
            "hangul\u{3164}filler",
            "bidi\u{202E}txet",
            "bom\u{FEFF}",
            "bell\u{7}",
            "lone joiner a\u{200D}b",
            "text\u{FE0F}",
        ] {
            assert!(
                matches!(
                    chat_line(bad, 200),
                    Err(ChatError::Text(TextError::Forbidden(_)))
                ),
                "{bad:?}"
            );
        }
        assert_eq!(
            chat_line(&format!("zalgo{}", "\u{301}".repeat(199)), 400),
            Err(ChatError::Text(TextError::TooManyMarks))
        );
        assert_eq!(
            chat_line("\u{301}x", 200),
            Err(ChatError::Text(TextError::StrayMark('\u{301}')))
        );
        // Emoji as people write them: presentation selectors, skin tones, keycaps,
        // regional-indicator flags and joiner sequences up to a family of four.
        for good in [
            "gl \u{2764}\u{FE0F} all",
            "\u{1F44D}\u{1F3FD} nh",
            "1\u{FE0F}\u{20E3}",
            "\u{1F1EB}\u{1F1F7}",
            "\u{1F469}\u{200D}\u{1F4BB}",
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",
            "\u{1F469}\u{1F3FB}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F48B}\u{200D}\u{1F468}\u{1F3FC}",
            "Nguy\u{1ec5}n says  hi",
        ] {
            assert!(chat_line(good, 200).is_ok(), "{good:?}");
        }
        let five = ["\u{1F468}"; 5].join("\u{200D}");
        assert!(chat_line(&five, 200).is_err(), "five emoji joined");
        // Decomposed text is stored composed.
        assert_eq!(chat_line(" Re\u{301}my ", 200).unwrap(), "R\u{e9}my");
        assert_eq!(chat_line("   ", 200), Err(ChatError::Empty));
    }

    #[test]
    fn a_lookup_finds_names_stored_before_a_rule() {
        let id = "3f2a9c1b7d5e4f60a1b2c3d4e5f60718";
        assert_eq!(
            lookup_key(&format!(" {} ", id.to_uppercase())),
            Some(id.into())
        );
        assert_eq!(lookup_key("  Ann   Lee "), Some("ann lee".into()));
        assert_eq!(lookup_key("   "), None);
    }
}
