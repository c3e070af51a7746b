//! The collusion report: for every pair of players who were dealt into the same hands, how
//! many hands they played together, the net chips that moved between them, and how often
//! one folded to the other's bet while ahead. Pure functions of stored hands (the record
//! and its folds, which the table works out from the cards as the hand ends), computed on
//! demand over a bounded window of hands, off the tables' path (nothing more is written at
//! commit time than those few facts in the record). A record older than them is replayed
//! from the house's PHH history, which holds every card.
//!
//! Definitions (also in `docs/console.md`):
//!
//! - **Hands together**: hands both players were dealt into.
//! - **Net chips** from B to A in one hand: each player's result is their finishing stack
//!   less their starting stack; every winner's gain is taken from the losers in proportion
//!   to their losses, so B gives A `loss(B) * gain(A) / total losses` (rounded down; the
//!   rake is what the losers lose beyond the winners' gains). Heads-up, that is A's whole
//!   gain. The pair's figure is the sum over their hands of B-to-A less A-to-B.
//! - **Folded to** the other: A folds while the last voluntary bet or raise of the betting
//!   round (a completion in stud included; blinds, straddles and bring-ins are forced, not
//!   bets) is B's.
//! - **When ahead**: at that fold, A's cards stand better than B's by
//!   [`poker_rules::eval::ahead`] (flop games: hole cards and the board so far; stud: all
//!   cards held; draw: the cards held after the last draw; split games: more than half of
//!   the pot). A fold the rule cannot judge counts as a fold, not as one when ahead.

use poker_history::phh::PhhHand;
use poker_rules::{Card, Event, Game};
use poker_store::{FairPlayHand, FoldFact, HandFacts, PlayerId};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Folds of one player to the other's bets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Folds {
    /// Folds to the other's bet or raise.
    pub folds: u64,
    /// Those made while ahead.
    pub ahead: u64,
}

impl Folds {
    fn add(&mut self, other: Folds) {
        self.folds += other.folds;
        self.ahead += other.ahead;
    }
}

/// What one hand says about one pair of its players, `a` < `b` by id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PairInHand {
    /// The player with the lower id.
    pub a: PlayerId,
    /// The other.
    pub b: PlayerId,
    /// Chips that moved from `b` to `a` (negative: from `a` to `b`).
    pub net: i64,
    /// `a`'s folds to `b`'s bets.
    pub a_to_b: Folds,
    /// `b`'s folds to `a`'s bets.
    pub b_to_a: Folds,
}

/// A pair over the hands of the window, `a` < `b` by id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PairStats {
    /// Hands both were dealt into.
    pub hands: u64,
    /// Chips that moved from `b` to `a` (negative: from `a` to `b`).
    pub net: i64,
    /// `a`'s folds to `b`'s bets.
    pub a_to_b: Folds,
    /// `b`'s folds to `a`'s bets.
    pub b_to_a: Folds,
}

impl PairStats {
    /// Folds either made to the other while ahead.
    pub fn folds_ahead(&self) -> u64 {
        self.a_to_b.ahead + self.b_to_a.ahead
    }

    /// Folds either made to the other.
    pub fn folds(&self) -> u64 {
        self.a_to_b.folds + self.b_to_a.folds
    }
}

/// The pairs of a window of hands.
#[derive(Debug, Default)]
pub struct Report {
    /// Every pair, by (lower id, higher id).
    pub pairs: HashMap<(PlayerId, PlayerId), PairStats>,
    /// Hands read.
    pub hands: u64,
    /// Hands whose history could not be replayed (counted in nothing else; logged).
    pub unreadable: u64,
}

impl Report {
    /// Adds one stored hand.
    pub fn add(&mut self, row: &FairPlayHand) {
        self.hands += 1;
        match analyze(row) {
            Ok(pairs) => {
                for p in pairs {
                    let stats = self.pairs.entry((p.a, p.b)).or_default();
                    stats.hands += 1;
                    stats.net += p.net;
                    stats.a_to_b.add(p.a_to_b);
                    stats.b_to_a.add(p.b_to_a);
                }
            }
            Err(e) => {
                tracing::warn!("collusion report: hand {} unreadable: {e}", row.hand_id);
                self.unreadable += 1;
            }
        }
    }

    /// The report of these hands.
    pub fn of(rows: &[FairPlayHand]) -> Report {
        let mut report = Report::default();
        for row in rows {
            report.add(row);
        }
        report
    }
}

/// The order of the report's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    /// Folds to the other when ahead (either way), then net chips, then hands together:
    /// soft play first.
    FoldsAhead,
    /// The share of folds to the other made when ahead, then their number.
    FoldAheadRate,
    /// Net chips between the two (chip dumping), then hands together.
    Net,
    /// Hands together, then net chips.
    Hands,
}

/// One row of the report: the pair as the floor reads it, `a` being the player the net
/// chips went to (the lower id when none moved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The player who received the net chips.
    pub a: PlayerId,
    /// The other.
    pub b: PlayerId,
    /// The figures, with `net` from `b` to `a` (never negative).
    pub stats: PairStats,
}

impl Report {
    /// The pairs as rows, in `sort` order, at most `limit`.
    pub fn rows(&self, sort: Sort, limit: usize) -> Vec<Row> {
        let mut rows: Vec<Row> = self
            .pairs
            .iter()
            .map(|(&(a, b), stats)| {
                if stats.net < 0 {
                    Row {
                        a: b,
                        b: a,
                        stats: PairStats {
                            hands: stats.hands,
                            net: -stats.net,
                            a_to_b: stats.b_to_a,
                            b_to_a: stats.a_to_b,
                        },
                    }
                } else {
                    Row {
                        a,
                        b,
                        stats: stats.clone(),
                    }
                }
            })
            .collect();
        let key = |r: &Row| {
            let s = &r.stats;
            (s.folds_ahead(), s.net, s.hands)
        };
        rows.sort_by(|x, y| {
            let (a, b) = (&x.stats, &y.stats);
            let order = match sort {
                Sort::FoldsAhead => key(y).cmp(&key(x)),
                Sort::FoldAheadRate => {
                    // ahead/folds compared as fractions (0 when no fold).
                    let rate = |s: &PairStats| (s.folds_ahead() as u128, s.folds().max(1) as u128);
                    let ((an, ad), (bn, bd)) = (rate(a), rate(b));
                    (bn * ad).cmp(&(an * bd)).then(key(y).cmp(&key(x)))
                }
                Sort::Net => (b.net, b.hands).cmp(&(a.net, a.hands)),
                Sort::Hands => (b.hands, b.net).cmp(&(a.hands, a.net)),
            };
            // Ties in a stable order: by the players' ids.
            order.then((x.a, x.b).cmp(&(y.a, y.b)))
        });
        rows.truncate(limit);
        rows
    }
}

/// Every pair of players of one complete hand, with what the hand moved between them and
/// their folds to each other.
pub fn analyze(row: &FairPlayHand) -> Result<Vec<PairInHand>, String> {
    let record = row.facts.as_ref().ok_or("no record")?;
    let players = &record.seat_players;
    let n = players.len();
    if record.starting_stacks.len() != n || record.finishing_stacks.len() != n {
        return Err("the record's lists disagree".into());
    }
    let folds = folds(record, row.phh.as_deref())?;
    let transfers = transfers(&record.starting_stacks, &record.finishing_stacks);
    let mut pairs = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            // `a` is the lower id.
            let (x, y) = if players[i] < players[j] {
                (i, j)
            } else {
                (j, i)
            };
            pairs.push(PairInHand {
                a: players[x],
                b: players[y],
                net: transfers[y][x] - transfers[x][y],
                a_to_b: folds[x][y],
                b_to_a: folds[y][x],
            });
        }
    }
    Ok(pairs)
}

/// `t[l][w]`: the chips loser `l` gave winner `w` (see the module's definition).
fn transfers(start: &[u64], end: &[u64]) -> Vec<Vec<i64>> {
    let n = start.len();
    let delta: Vec<i128> = (0..n).map(|i| end[i] as i128 - start[i] as i128).collect();
    let losses: i128 = delta.iter().filter(|d| **d < 0).map(|d| -d).sum();
    let mut t = vec![vec![0i64; n]; n];
    if losses == 0 {
        return t;
    }
    for l in 0..n {
        for w in 0..n {
            if delta[l] < 0 && delta[w] > 0 {
                t[l][w] = (-delta[l] * delta[w] / losses) as i64;
            }
        }
    }
    t
}

/// Every fold of a hand made facing another player's bet or raise, with whether the
/// folder was ahead then: from the hand's events as the engine made them (every card
/// known). The table records them with the finished hand (`HandRecord::folds`).
pub fn fold_facts(game: Game, players: usize, events: &[Event]) -> Vec<FoldFact> {
    let mut facts = Vec::new();
    let mut cards: Vec<Vec<Card>> = vec![Vec::new(); players];
    let mut board: Vec<Card> = Vec::new();
    let mut aggressor: Option<usize> = None;
    for event in events {
        match event {
            Event::HoleDealt {
                player, cards: c, ..
            } if *player < players => cards[*player].extend(c.iter()),
            Event::Discarded { player, cards: c } if *player < players => {
                cards[*player].retain(|x| !c.contains(x))
            }
            Event::BoardDealt { cards: c } => board.extend(c.iter()),
            Event::RoundStarted { .. } => aggressor = None,
            Event::BetTo { player, .. } => aggressor = Some(*player),
            Event::Folded { player } if *player < players => {
                if let Some(bettor) = aggressor.filter(|b| b != player && *b < players) {
                    let standing =
                        poker_rules::eval::ahead(game, &cards[*player], &cards[bettor], &board);
                    facts.push(FoldFact {
                        folder: *player,
                        bettor,
                        ahead: standing == Some(Ordering::Greater),
                    });
                }
            }
            _ => {}
        }
    }
    facts
}

/// `f[x][y]`: player `x`'s folds to `y`'s bets: as the record has them, or for a record
/// written before it kept them, replaying the hand's history.
fn folds(record: &HandFacts, phh: Option<&str>) -> Result<Vec<Vec<Folds>>, String> {
    let n = record.seat_players.len();
    let replayed;
    let facts = match &record.folds {
        Some(facts) => facts,
        None => {
            let hand = PhhHand::parse(phh.ok_or("no history")?).map_err(|e| e.to_string())?;
            let replay = poker_history::phh::replay(&hand).map_err(|e| e.to_string())?;
            if replay.hand.players().len() != n {
                return Err("the history's players disagree with the record".into());
            }
            replayed = fold_facts(hand.variant.game(), n, &replay.events);
            &replayed
        }
    };
    let mut f = vec![vec![Folds::default(); n]; n];
    for fact in facts {
        if fact.folder >= n || fact.bettor >= n {
            return Err("a fold names no player of the hand".into());
        }
        let fold = &mut f[fact.folder][fact.bettor];
        fold.folds += 1;
        fold.ahead += u64::from(fact.ahead);
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use poker_store::HandId;

    /// Three players with ids in the order of their names.
    fn three() -> [PlayerId; 3] {
        let mut ids = [PlayerId::new(), PlayerId::new(), PlayerId::new()];
        ids.sort();
        ids
    }

    /// A stored hand as the report reads it: its PHH (`actions`, every card known as the
    /// house writes them) and the record of who sat in which place and the stacks, without
    /// the folds (so the report replays the history for them).
    fn hand(
        variant: &str,
        players: &[PlayerId],
        blinds: &str,
        actions: &[&str],
        end: &[u64],
    ) -> FairPlayHand {
        let n = players.len();
        let start = vec![100u64; n];
        let quoted: Vec<String> = actions.iter().map(|a| format!("'{a}'")).collect();
        let phh = format!(
            "variant = '{variant}'\nantes = [{}]\nblinds_or_straddles = [{blinds}]\nmin_bet = 2\n\
             small_bet = 2\nbig_bet = 4\nbring_in = 1\nstarting_stacks = [{}]\nactions = [{}]\n",
            vec!["0"; n].join(", "),
            vec!["100"; n].join(", "),
            quoted.join(", ")
        );
        FairPlayHand {
            hand_id: HandId::new(),
            started_at: 0,
            facts: Some(HandFacts {
                seat_players: players.to_vec(),
                starting_stacks: start,
                finishing_stacks: end.to_vec(),
                folds: None,
            }),
            phh: Some(phh),
        }
    }

    /// Three scripted hands of Ann, Ben and Cid (ids in that order), each of which all
    /// three are dealt into.
    fn scripted(ann: PlayerId, ben: PlayerId, cid: PlayerId) -> Vec<FairPlayHand> {
        vec![
            // Cid raises with seven-deuce; Ann (aces) and Ben (kings) fold, both ahead.
            hand(
                "NT",
                &[ann, ben, cid],
                "1, 2, 0",
                &[
                    "d dh p1 AhAd",
                    "d dh p2 KhKd",
                    "d dh p3 7c2d",
                    "p3 cbr 6",
                    "p1 f",
                    "p2 f",
                ],
                &[99, 98, 103],
            ),
            // Ann raises with ace-king: Ben folds behind; Cid calls with queens, checks
            // the flop and folds them, ahead, to Ann's bet.
            hand(
                "NT",
                &[ben, cid, ann],
                "1, 2, 0",
                &[
                    "d dh p1 2c3d",
                    "d dh p2 QhQd",
                    "d dh p3 AsKs",
                    "p3 cbr 6",
                    "p1 f",
                    "p2 cc",
                    "d db 2h7s9c",
                    "p2 cc",
                    "p3 cbr 10",
                    "p2 f",
                ],
                &[99, 94, 107],
            ),
            // Ben folds to the blinds (no bet: not a fold to anyone); Ann and Cid check
            // it down and Cid's jacks win.
            hand(
                "NT",
                &[ann, cid, ben],
                "1, 2, 0",
                &[
                    "d dh p1 Tc9c",
                    "d dh p2 JhJs",
                    "d dh p3 4d5d",
                    "p3 f",
                    "p1 cc",
                    "p2 cc",
                    "d db 2d7h8s",
                    "p1 cc",
                    "p2 cc",
                    "d db Kc",
                    "p1 cc",
                    "p2 cc",
                    "d db Qd",
                    "p1 cc",
                    "p2 cc",
                    "p1 sm Tc9c",
                    "p2 sm JhJs",
                ],
                &[98, 102, 100],
            ),
        ]
    }

    #[test]
    fn hands_together_net_chips_and_folds_when_ahead_are_exact_on_scripted_hands() {
        let [ann, ben, cid] = three();
        let report = Report::of(&scripted(ann, ben, cid));
        assert_eq!((report.hands, report.unreadable), (3, 0));
        let folds = |folds, ahead| Folds { folds, ahead };
        assert_eq!(
            report.pairs[&(ann, ben)],
            PairStats {
                hands: 3,
                // Ben's blind in the second hand went to Ann.
                net: 1,
                a_to_b: folds(0, 0),
                // Ben folded deuce-trey to Ann's raise: behind.
                b_to_a: folds(1, 0),
            }
        );
        assert_eq!(
            report.pairs[&(ann, cid)],
            PairStats {
                hands: 3,
                // Ann lost her blind (1) to Cid, won Cid's 6, lost 2 at the showdown.
                net: 3,
                a_to_b: folds(1, 1),
                b_to_a: folds(1, 1),
            }
        );
        assert_eq!(
            report.pairs[&(ben, cid)],
            PairStats {
                hands: 3,
                net: -2,
                a_to_b: folds(1, 1),
                b_to_a: folds(0, 0),
            }
        );
        assert_eq!(report.pairs.len(), 3);
    }

    #[test]
    fn the_folds_a_table_records_give_the_same_report_without_a_replay() {
        let [ann, ben, cid] = three();
        let replayed = Report::of(&scripted(ann, ben, cid));
        let recorded: Vec<FairPlayHand> = scripted(ann, ben, cid)
            .into_iter()
            .map(|mut row| {
                let hand = PhhHand::parse(row.phh.as_deref().unwrap()).unwrap();
                let events = poker_history::phh::replay(&hand).unwrap().events;
                let facts = row.facts.as_mut().unwrap();
                facts.folds = Some(fold_facts(Game::Holdem, 3, &events));
                // The history is not read again (the store does not read it either).
                row.phh = None;
                row
            })
            .collect();
        let recorded = Report::of(&recorded);
        assert_eq!(recorded.unreadable, 0);
        assert_eq!(recorded.pairs, replayed.pairs);
    }

    #[test]
    fn rows_name_first_who_the_chips_went_to_and_follow_the_sort() {
        let [ann, ben, cid] = three();
        let report = Report::of(&scripted(ann, ben, cid));
        let rows = report.rows(Sort::FoldsAhead, 10);
        // Ann and Cid folded to each other when ahead twice; Ben to Cid once.
        assert_eq!(
            rows.iter()
                .map(|r| (r.a, r.b, r.stats.folds_ahead()))
                .collect::<Vec<_>>(),
            vec![(ann, cid, 2), (cid, ben, 1), (ann, ben, 0)]
        );
        assert!(rows.iter().all(|r| r.stats.net >= 0));
        // Cid took 2 from Ben: his folds to Ben are Ben's to him, turned round.
        assert_eq!(rows[1].stats.b_to_a, Folds { folds: 1, ahead: 1 });
        let by_net: Vec<i64> = report
            .rows(Sort::Net, 10)
            .iter()
            .map(|r| r.stats.net)
            .collect();
        assert_eq!(by_net, vec![3, 2, 1]);
        let rate = report.rows(Sort::FoldAheadRate, 1);
        assert_eq!((rate[0].a, rate[0].b), (ann, cid));
        assert_eq!(report.rows(Sort::Hands, 2).len(), 2);
    }

    #[test]
    fn a_winners_gain_is_taken_from_the_losers_in_proportion_to_their_losses() {
        // Four players: two lose 30 and 10, one wins 36 (4 raked), one breaks even.
        let t = transfers(&[100, 100, 100, 100], &[70, 90, 136, 100]);
        assert_eq!(t[0][2], 27); // 30 * 36 / 40
        assert_eq!(t[1][2], 9); // 10 * 36 / 40
        assert_eq!(t[2][0] + t[3][2] + t[2][3], 0);
        // Two winners share a loser's chips by their gains.
        let t = transfers(&[100, 100, 100], &[40, 120, 140]);
        assert_eq!((t[0][1], t[0][2]), (20, 40));
    }

    #[test]
    fn a_completion_in_stud_is_a_bet_and_a_fold_to_it_is_judged_on_the_cards_held() {
        let [ann, ben, _] = three();
        // Razz: Ben (nine up, the highest) brings in, Ann (a pair of sevens) completes,
        // and Ben folds nine-deuce-ace to it, ahead.
        let row = hand(
            "FR",
            &[ann, ben],
            "0, 0",
            &[
                "d dh p1 7c7d3h",
                "d dh p2 Ac2d9h",
                "p2 pb",
                "p1 cbr 2",
                "p2 f",
            ],
            &[101, 99],
        );
        assert_eq!(analyze(&row).err(), None);
        let report = Report::of(&[row]);
        let pair = &report.pairs[&(ann, ben)];
        assert_eq!((pair.hands, pair.net), (1, 1));
        assert_eq!(pair.b_to_a, Folds { folds: 1, ahead: 1 });
    }

    #[test]
    fn an_unreadable_history_is_counted_and_adds_nothing() {
        let [ann, ben, _] = three();
        let mut row = hand("NT", &[ann, ben], "1, 2", &["p1 f"], &[99, 101]);
        row.phh = Some("variant = 'NT'\nactions = 3\n".into());
        let report = Report::of(&[row]);
        assert_eq!((report.hands, report.unreadable), (1, 1));
        assert!(report.pairs.is_empty());
    }
}
