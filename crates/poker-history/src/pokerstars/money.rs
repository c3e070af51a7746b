//! How PokerStars writes amounts: play chips as whole numbers (`500`), real money with a
//! currency sign in dollars and cents (`$0.25`, `$24`, `$31.60`), the header's stakes
//! with the currency's code (`($0.25/$0.50 USD)`). The engine counts whole chips, so a
//! real-money hand is counted in cents.

use poker_rules::{Chips, MAX_CHIPS};

/// The unit a hand's amounts are written in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Money {
    /// Chips, written as whole numbers (play money, and the house's own tables).
    #[default]
    Chips,
    /// A currency, counted in cents: its sign (`$`, `€`, `£`) and, when the header
    /// names it, its code (`USD`).
    Cash {
        /// The sign written before each amount.
        sign: String,
        /// The code after the header's stakes, if written.
        code: Option<String>,
    },
}

/// The currency signs amounts are written with.
pub(super) const SIGNS: [&str; 4] = ["$", "€", "£", "₹"];

impl Money {
    /// The unit of a header's stakes text (`$0.25/$0.50 USD`, `25/50`,
    /// `Button Blind $5 - Ante $5 USD`).
    pub fn of_stakes(stakes: &str) -> Money {
        match SIGNS.iter().find(|s| stakes.contains(*s)) {
            None => Money::Chips,
            Some(sign) => {
                let last = stakes.rsplit(' ').next().unwrap_or("");
                let code = (last.len() == 3 && last.chars().all(|c| c.is_ascii_uppercase()))
                    .then(|| last.to_string());
                Money::Cash {
                    sign: sign.to_string(),
                    code,
                }
            }
        }
    }

    /// An amount exactly as PokerStars writes it (`500`, `$24`, `$0.25`, `$1.00` in a
    /// header's stakes), in chips or cents; `None` if it is not one: no leading zeros
    /// (`05`), no thousands separators, cents in two digits, the sign of the hand's
    /// currency, nothing around it, and no more than any table can hold (`MAX_CHIPS`).
    pub fn parse(&self, text: &str) -> Option<Chips> {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let whole = |s: &str| -> Option<Chips> {
            (digits(s) && (s == "0" || !s.starts_with('0')))
                .then(|| s.parse().ok())
                .flatten()
        };
        let amount = match self {
            Money::Chips => whole(text),
            Money::Cash { sign, .. } => {
                let t = text.strip_prefix(sign.as_str())?;
                let (w, cents) = match t.split_once('.') {
                    Some((w, f)) if f.len() == 2 && digits(f) => (w, f.parse().ok()?),
                    Some(_) => return None,
                    None => (t, 0),
                };
                whole(w)?.checked_mul(100)?.checked_add(cents)
            }
        };
        amount.filter(|&a| a <= MAX_CHIPS)
    }

    /// An amount as PokerStars writes it in a hand: `$24`, `$31.60`, `500`.
    pub fn format(&self, amount: Chips) -> String {
        match self {
            Money::Chips => amount.to_string(),
            Money::Cash { sign, .. } if amount.is_multiple_of(100) => {
                format!("{sign}{}", amount / 100)
            }
            Money::Cash { sign, .. } => format!("{sign}{}.{:02}", amount / 100, amount % 100),
        }
    }

    /// The header's two stakes: `$0.25/$0.50 USD` (cents on both when either has them),
    /// `$1/$2 USD`, `25/50`.
    pub fn stakes(&self, small: Chips, big: Chips) -> String {
        match self {
            Money::Chips => format!("{small}/{big}"),
            Money::Cash { sign, code } => {
                let cents = !small.is_multiple_of(100) || !big.is_multiple_of(100);
                let one = |a: Chips| {
                    if cents {
                        format!("{sign}{}.{:02}", a / 100, a % 100)
                    } else {
                        format!("{sign}{}", a / 100)
                    }
                };
                let code = code.as_ref().map(|c| format!(" {c}")).unwrap_or_default();
                format!("{}/{}{code}", one(small), one(big))
            }
        }
    }

    /// The code written after a stake (` USD`), empty for chips or when not written.
    pub fn code_suffix(&self) -> String {
        match self {
            Money::Cash { code: Some(c), .. } => format!(" {c}"),
            _ => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_and_write_as_pokerstars_does() {
        let usd = Money::of_stakes("$0.25/$0.50 USD");
        assert_eq!(
            usd,
            Money::Cash {
                sign: "$".into(),
                code: Some("USD".into())
            }
        );
        assert_eq!(usd.parse("$0.25"), Some(25));
        assert_eq!(usd.parse("$31.60"), Some(3160));
        assert_eq!(usd.parse("$1.00"), Some(100));
        // Not as PokerStars writes amounts: refused.
        for bad in [
            "$31.6", "$1,000", "0.25", "$05", "$.25", " $1", "$1 ", "$-1", "$+1",
        ] {
            assert_eq!(usd.parse(bad), None, "{bad}");
        }
        assert_eq!(usd.format(2400), "$24");
        assert_eq!(usd.format(3160), "$31.60");
        assert_eq!(usd.format(5), "$0.05");
        assert_eq!(usd.stakes(25, 50), "$0.25/$0.50 USD");
        assert_eq!(usd.stakes(50, 100), "$0.50/$1.00 USD");
        assert_eq!(usd.stakes(100, 200), "$1/$2 USD");
        let chips = Money::of_stakes("25/50");
        assert_eq!(chips, Money::Chips);
        assert_eq!(chips.parse("500"), Some(500));
        for bad in ["5.5", "05", "00", "1,000", "+5", ""] {
            assert_eq!(chips.parse(bad), None, "{bad}");
        }
        assert_eq!(chips.parse("0"), Some(0));
        assert_eq!(chips.parse("9007199254740992"), Some(MAX_CHIPS));
        assert_eq!(chips.parse("9007199254740993"), None);
        assert_eq!(chips.parse("18446744073709551616"), None);
        assert_eq!(chips.stakes(25, 50), "25/50");
        assert_eq!(Money::of_stakes("€0.05/€0.10 EUR").format(105), "€1.05");
    }
}
