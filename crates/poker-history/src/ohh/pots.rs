//! Which pot held what: the engine's events say what each pot paid out (`PotAwarded`,
//! with the pot's number) and the hand's whole rake (`Raked`), not each pot's size
//! before the rake. Each pot's size is worked out again here from what every player put
//! in, the way the engine splits pots (dead antes, then one pot per all-in level of live
//! money, R9, R27); a pot's rake is then its size less what it paid out, and the sum of
//! those must be the engine's rake, so a disagreement is an error, never a guess.

use poker_rules::{Chips, Event, HandConfig};
use std::collections::BTreeMap;

/// One pot as the writer reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PotFacts {
    /// Every chip in the pot, the rake included.
    pub amount: Chips,
    /// The rake taken from it.
    pub rake: Chips,
    /// What each player won from it, summed over both runs and both halves of a split.
    pub wins: BTreeMap<usize, Chips>,
}

/// What one player put into the hand.
#[derive(Clone, Copy, Default)]
struct Stake {
    ante: Chips,
    live: Chips,
    folded: bool,
}

/// The pots of a finished hand, main pot first, from its configuration and events.
pub fn pots(config: &HandConfig, events: &[Event]) -> Result<Vec<PotFacts>, String> {
    let n = config.seats.len();
    let mut stakes = vec![Stake::default(); n];
    let mut rake: Chips = 0;
    let mut paid: BTreeMap<usize, BTreeMap<usize, Chips>> = BTreeMap::new();
    for e in events {
        match e {
            Event::AntePosted { player, amount } => stakes[*player].ante += amount,
            Event::BlindPosted { player, amount }
            | Event::BringInPosted { player, amount }
            | Event::Called { player, amount, .. }
            | Event::BetTo { player, amount, .. } => stakes[*player].live += amount,
            Event::UncalledReturned { player, amount } => {
                stakes[*player].live = stakes[*player]
                    .live
                    .checked_sub(*amount)
                    .ok_or("more returned than bet")?;
            }
            Event::Folded { player } => stakes[*player].folded = true,
            Event::Raked { amount } => rake += amount,
            Event::PotAwarded {
                pot,
                winners,
                share,
                amount,
                ..
            } => {
                let sum: Chips = winners.iter().map(|w| w.1).sum();
                if sum != *amount {
                    return Err(format!("pot {pot} ({share:?}) pays {sum} of {amount}"));
                }
                let wins = paid.entry(*pot).or_default();
                for &(w, part) in winners {
                    *wins.entry(w).or_default() += part;
                }
            }
            _ => {}
        }
    }
    let stacks: Vec<Chips> = (0..n)
        .map(|i| {
            config.seats[i]
                .stack
                .saturating_sub(stakes[i].ante + stakes[i].live)
        })
        .collect();
    let sizes = sizes(&stakes, &stacks);
    if sizes.len() < paid.keys().next_back().map_or(0, |&k| k + 1) {
        return Err(format!(
            "{} pots paid out, {} made",
            paid.len(),
            sizes.len()
        ));
    }
    let mut out = Vec::with_capacity(sizes.len());
    let mut raked: Chips = 0;
    for (k, &amount) in sizes.iter().enumerate() {
        let wins = paid.remove(&k).unwrap_or_default();
        let won: Chips = wins.values().sum();
        let pot_rake = amount
            .checked_sub(won)
            .ok_or_else(|| format!("pot {k} of {amount} paid out {won}"))?;
        raked += pot_rake;
        out.push(PotFacts {
            amount,
            rake: pot_rake,
            wins,
        });
    }
    if raked != rake {
        return Err(format!("the pots' rake is {raked}, the engine's {rake}"));
    }
    // A pot nobody won (none is made empty) would mean the split disagrees.
    if let Some(k) = out.iter().position(|p| p.wins.is_empty() && p.amount > 0) {
        return Err(format!("pot {k} has no winner"));
    }
    Ok(out)
}

/// Each pot's size, as the engine splits them: antes of a player all in for the ante
/// alone make ante levels; the rest of the antes and the live money make one pot per
/// level of live money a player still in reached.
fn sizes(stakes: &[Stake], stacks: &[Chips]) -> Vec<Chips> {
    let mut ante_levels: Vec<Chips> = Vec::new();
    let mut live_levels: Vec<Chips> = Vec::new();
    for (p, &stack) in stakes.iter().zip(stacks) {
        if p.folded {
            continue;
        }
        if p.live == 0 && stack == 0 && p.ante > 0 {
            ante_levels.push(p.ante);
        }
        if p.live > 0 {
            live_levels.push(p.live);
        }
    }
    ante_levels.sort_unstable();
    ante_levels.dedup();
    live_levels.sort_unstable();
    live_levels.dedup();
    let mut out = Vec::new();
    let mut prev = 0;
    for &level in &ante_levels {
        out.push(
            stakes
                .iter()
                .map(|p| p.ante.min(level) - p.ante.min(prev))
                .sum(),
        );
        prev = level;
    }
    let mut rest: Chips = stakes.iter().map(|p| p.ante - p.ante.min(prev)).sum();
    let mut prev = 0;
    for (k, &level) in live_levels.iter().enumerate() {
        let top = if k + 1 == live_levels.len() {
            Chips::MAX
        } else {
            level
        };
        let mut amount = std::mem::take(&mut rest);
        for p in stakes {
            amount += p.live.min(top) - p.live.min(prev);
        }
        out.push(amount);
        prev = level;
    }
    if live_levels.is_empty() {
        let leftover = rest + stakes.iter().map(|p| p.live).sum::<Chips>();
        match out.last_mut() {
            Some(last) => *last += leftover,
            None if leftover > 0 => out.push(leftover),
            None => {}
        }
    }
    out
}

/// The part of a pot's rake charged to each winner, in proportion to what they won from
/// it; the chips left by rounding go one each to the first winners, so the parts add up
/// to the pot's rake.
pub fn rake_shares(pot: &PotFacts) -> BTreeMap<usize, Chips> {
    let won: Chips = pot.wins.values().sum();
    let mut out: BTreeMap<usize, Chips> = pot
        .wins
        .iter()
        .map(|(&w, &part)| {
            let share = if won == 0 {
                0
            } else {
                (u128::from(pot.rake) * u128::from(part) / u128::from(won)) as Chips
            };
            (w, share)
        })
        .collect();
    let mut left = pot.rake - out.values().sum::<Chips>();
    for share in out.values_mut() {
        if left == 0 {
            break;
        }
        *share += 1;
        left -= 1;
    }
    out
}
