//! House games between hands (docs/house-games.md): when a hand is a bomb pot and how it
//! is planned from the last hand's button without moving it (H1, H2), and which game of a
//! dealer's choice rotation the next hand deals, an orbit each (H3, H4).

use super::*;
use crate::hand::PotLimitPreflop;

/// Bomb pots at a table (H1, H2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BombPotRule {
    /// A bomb pot every this many hands: the hands whose number is a multiple of it (at
    /// least 2). 0: only when the host calls one.
    #[serde(default)]
    pub every: u32,
    /// The bomb each player puts in, in big blinds (at least 1).
    pub big_blinds: u32,
}

/// One game of a dealer's choice rotation (H3): what differs from the table's other
/// games; the blinds, seats and house options are the table's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RotationGame {
    /// The game dealt (a game with a button and blinds).
    pub game: Game,
    /// Its betting structure.
    pub structure: Structure,
    /// Its bet sizes.
    pub stakes: Stakes,
    /// Fixed limit raise cap (raises after the opening bet).
    #[serde(default)]
    pub max_raises: Option<u32>,
    /// Fixed limit: no cap heads-up.
    #[serde(default)]
    pub uncapped_heads_up: bool,
}

impl RotationGame {
    /// The table's own game, as one of a rotation.
    pub fn of(rules: &TableRules) -> RotationGame {
        RotationGame {
            game: rules.game,
            structure: rules.structure,
            stakes: rules.stakes,
            max_raises: rules.max_raises,
            uncapped_heads_up: rules.uncapped_heads_up,
        }
    }
}

/// Where a dealer's choice rotation stands (H3); kept with the table's state, so it
/// survives a restart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rotation {
    /// The game of the orbit under way: an index in [`TableRules::dealers_choice`].
    pub game: usize,
    /// The orbit's length: players dealt into its first hand; 0 before that hand.
    pub orbit: u32,
    /// Hands of the orbit dealt so far (bomb pots do not count).
    pub played: u32,
}

/// The rotation as players are told it: the game now (the hand in progress's, or the
/// next hand's between hands), the game after it, and how many hands of this one remain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RotationView {
    /// The game now: an index in [`TableRules::dealers_choice`].
    pub now: usize,
    /// The game after it.
    pub next: usize,
    /// Hands of the game now still to be dealt after the one in progress (between hands:
    /// from the next); `None` until its orbit's first hand counted the players.
    pub hands_left: Option<u32>,
}

/// The table's game that deals the fewest players from one deck (its own, or one of its
/// rotation's, the first of them when several deal as few): the one a refusal names.
pub(super) fn fewest_players_game(rules: &TableRules) -> crate::game::Game {
    [rules.game]
        .into_iter()
        .chain(rules.dealers_choice.iter().map(|g| g.game))
        .min_by_key(|g| g.max_players())
        .unwrap_or(rules.game)
}

/// The most players every game of the table deals from one deck.
pub(super) fn max_players(rules: &TableRules) -> usize {
    rules
        .dealers_choice
        .iter()
        .map(|g| g.game.max_players())
        .chain([rules.game.max_players()])
        .min()
        .unwrap_or(2)
}

/// Whether some game of the table has a flop (can deal a bomb pot).
fn any_board(rules: &TableRules) -> bool {
    rules.game.has_board() || rules.dealers_choice.iter().any(|g| g.game.has_board())
}

/// Why bomb pots cannot be dealt under `rules`, if they cannot.
fn bomb_refusal(rules: &TableRules, big_blinds: u32) -> Option<&'static str> {
    if rules.game.opening() != Opening::Position || !any_board(rules) {
        Some("bomb pots are for games with a flop, a button and blinds")
    } else if rules.kill.is_some() || rules.rock {
        Some("not at a table playing a kill or the rock")
    } else if big_blinds == 0 {
        Some("the bomb is at least one big blind")
    } else if Chips::from(big_blinds).saturating_mul(rules.big_blind) > MAX_CHIPS {
        Some("the bomb is too large")
    } else {
        None
    }
}

/// Checks the house games of the rules (H2, H3).
pub(super) fn check_rules(rules: &TableRules) -> Result<(), TableError> {
    let bad = |s: &str| Err(TableError::InvalidRules(s.to_string()));
    if let Some(bomb) = rules.bomb_pot {
        if let Some(why) = bomb_refusal(rules, bomb.big_blinds) {
            return bad(why);
        }
        if bomb.every == 1 {
            return bad("a bomb pot every hand would never move the button: every 2 hands or more");
        }
    }
    if rules.dealers_choice.is_empty() {
        return Ok(());
    }
    if rules.dealers_choice.len() < 2 {
        return bad("a dealer's choice rotation has at least two games");
    }
    for g in &rules.dealers_choice {
        if g.game.opening() != Opening::Position {
            return bad(
                "a dealer's choice rotation plays games with a button and blinds (no stud)",
            );
        }
        if g.game.deck() != rules.game.deck() {
            return bad("the games of a rotation deal from the same deck");
        }
        let s = &g.stakes;
        let ok = match g.structure {
            Structure::FixedLimit => s.small_bet > 0 && s.big_bet > 0,
            Structure::NoLimit | Structure::PotLimit => s.min_bet > 0,
            Structure::SpreadLimit => false,
        };
        if !ok {
            return bad("each game of a rotation has its stakes (spread limit cannot rotate)");
        }
        if [s.min_bet, s.small_bet, s.big_bet, s.bring_in]
            .iter()
            .any(|&a| a > MAX_CHIPS)
        {
            return bad(&format!("amounts are at most {MAX_CHIPS} chips"));
        }
    }
    Ok(())
}

impl<P: Clone + PartialEq> Table<P> {
    /// The host calls a bomb pot of `big_blinds` big blinds for the next hand that can be
    /// one (H2); refused where no bomb pot can be dealt.
    pub fn call_bomb_pot(&mut self, big_blinds: u32) -> Result<(), TableError> {
        if let Some(why) = bomb_refusal(&self.rules, big_blinds) {
            return Err(TableError::NoBombPot(why.into()));
        }
        self.bomb_called = Some(big_blinds);
        Ok(())
    }

    /// The size in big blinds of a bomb pot called and not dealt yet, if any.
    pub fn bomb_called(&self) -> Option<u32> {
        self.bomb_called
    }

    /// Where the dealer's choice rotation stands (H3).
    pub fn rotation(&self) -> &Rotation {
        &self.rotation
    }

    /// The rotation as players are told it; `None` at a table of one game.
    pub fn rotation_view(&self) -> Option<RotationView> {
        let n = self.rules.dealers_choice.len();
        if n == 0 {
            return None;
        }
        let r = self.rotation;
        let at = |now: usize, hands_left| RotationView {
            now,
            next: (now + 1) % n,
            hands_left,
        };
        if self.current.is_none() && r.orbit > 0 && r.played >= r.orbit {
            return Some(at((r.game + 1) % n, None));
        }
        Some(at(r.game % n, (r.orbit > 0).then(|| r.orbit - r.played)))
    }

    /// The game the next hand deals (H3), or the hand in progress.
    pub fn hand_game(&self) -> RotationGame {
        match self.rotation_view() {
            Some(v) => self.rules.dealers_choice[v.now],
            None => RotationGame::of(&self.rules),
        }
    }

    /// Before planning: an orbit played out gives way to the next game (H3).
    pub(super) fn rotate(&mut self) {
        let n = self.rules.dealers_choice.len();
        let r = &mut self.rotation;
        if n == 0 {
            return;
        }
        if r.orbit > 0 && r.played >= r.orbit {
            *r = Rotation {
                game: (r.game + 1) % n,
                ..Rotation::default()
            };
        }
        r.game %= n;
    }

    /// A hand planned: it counts in the orbit unless a bomb pot (H3).
    pub(super) fn count_in_orbit(&mut self, dealt: usize, bomb: bool) {
        if self.rules.dealers_choice.is_empty() || bomb {
            return;
        }
        let r = &mut self.rotation;
        if r.orbit == 0 {
            r.orbit = dealt.max(2) as u32;
        }
        r.played += 1;
    }

    /// The size in big blinds of the bomb pot the next hand is, if it is one (H2): a
    /// bomb pot is due (called, or by the schedule) and can be dealt now (a game with a
    /// flop, and a button from the hand before).
    pub(super) fn bomb_due(&self) -> Option<u32> {
        if !self.hand_game().game.has_board() || self.button.is_none() || self.last_bb.is_none() {
            return None;
        }
        let scheduled = self.rules.bomb_pot.filter(|b| {
            b.every >= 2
                && self
                    .hands
                    .saturating_add(1)
                    .is_multiple_of(u64::from(b.every))
        });
        // Called and scheduled at once: one bomb pot, of the size called.
        self.bomb_called
            .or(scheduled.map(|b| b.big_blinds))
            .filter(|&k| bomb_refusal(&self.rules, k).is_none())
    }

    /// Plans a bomb pot of `big_blinds` (H1, H2): the players who owe no post, from the
    /// last hand's button, each paying the bomb as an ante; nothing of the table's state
    /// between hands changes. `None` when fewer than two can play it.
    pub(super) fn plan_bomb_pot(&mut self, big_blinds: u32) -> Option<HandPlan> {
        let n = self.seats.len();
        let button = self.button?;
        let mut dealt: Vec<usize> = (0..n)
            .filter(|&s| self.active(s) && !self.owes(s))
            .collect();
        if dealt.len() < 2 {
            return None;
        }
        dealt.sort_by_key(|&s| (s + n - button - 1) % n);
        let bomb = Chips::from(big_blinds) * self.rules.big_blind;
        let mut posts: Vec<Post> = dealt
            .iter()
            .map(|&seat| Post {
                seat,
                kind: PostKind::Bomb,
                amount: bomb,
                live: false,
            })
            .collect();
        self.deal_at_most(&mut dealt, &mut posts, &[]);
        self.bomb_called = None;
        let mut plan = self.make_plan(button, dealt, posts, false);
        plan.bomb_pot = true;
        plan.config.options.bomb_pot = true;
        self.current = Some(plan.clone());
        Some(plan)
    }
}

/// The options of a hand of `game` at a table with `options`: those the game cannot have
/// are off (H4).
pub(super) fn options_for(game: &RotationGame, options: &HandOptions) -> HandOptions {
    let mut o = options.clone();
    if !game.game.has_board() {
        o.run_it_twice = false;
    }
    if game.structure != Structure::PotLimit {
        o.pot_limit_preflop = PotLimitPreflop::TruePot;
    }
    if !matches!(
        game.structure,
        Structure::FixedLimit | Structure::SpreadLimit
    ) {
        o.half_bet_rule = false;
    }
    if game.structure != Structure::SpreadLimit {
        o.spread.clear();
    }
    o
}
