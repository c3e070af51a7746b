//! The table's chat: seated players and signed-in spectators watching the table speak
//! (a spectator's line has no seat), everyone at the table reads. A line is 1 to 200 characters under the Unicode policy names follow
//! ([`poker_store::names`]: no control, format, separator, private-use, unassigned or
//! invisible character, at most a few combining marks per character; emoji sequences
//! allowed); each player may say a few lines in any ten seconds; operators switch chat
//! off and on. The last lines are kept for the
//! snapshot, so a player who joins or reconnects sees the conversation.

use super::actor::Actor;
use super::Refusal;
use poker_protocol::{ChatLine, ServerMsg, CHAT_MAX_CHARS};
use poker_store::{now_ms, PlayerId};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// Lines kept for snapshots.
pub(super) const KEPT: usize = 50;

const WINDOW: Duration = Duration::from_secs(10);

/// The chat's state in the actor.
#[derive(Default)]
pub(super) struct Chat {
    pub(super) lines: VecDeque<ChatLine>,
    /// When each player last spoke, within the window.
    spoken: std::collections::HashMap<PlayerId, VecDeque<Instant>>,
}

/// The line as it will be shown, or why not: the room's one Unicode policy for names and
/// chat ([`poker_store::names::chat_line`]).
pub(super) fn clean(text: &str) -> Result<String, Refusal> {
    poker_store::names::chat_line(text, CHAT_MAX_CHARS).map_err(|e| Refusal::Chat(e.to_string()))
}

impl Actor {
    /// Says `text` as `player`: seated here, or watching the table (a subscriber signed
    /// in as them; `name` is then theirs). Spectators are rate limited like players.
    pub(super) fn chat(&mut self, player: PlayerId, name: &str, text: &str) -> Result<(), Refusal> {
        if !self.chat_rules.enabled {
            return Err(Refusal::Chat("chat is off at this table".into()));
        }
        let seat = self.seat_of(player);
        if seat.is_none() && !self.subscribers.iter().any(|s| s.who == Some(player)) {
            return Err(Refusal::Chat(
                "only players seated at or watching this table may chat".into(),
            ));
        }
        let text = clean(text)?;
        let now = Instant::now();
        // Only speakers of the last ten seconds are remembered: spectators come and go
        // without leaving a trace.
        self.chat.spoken.retain(|_, times| {
            times
                .back()
                .is_some_and(|t| now.duration_since(*t) <= WINDOW)
        });
        let spoken = self.chat.spoken.entry(player).or_default();
        while spoken
            .front()
            .is_some_and(|t| now.duration_since(*t) > WINDOW)
        {
            spoken.pop_front();
        }
        if spoken.len() >= self.chat_rules.lines_per_10s as usize {
            return Err(Refusal::RateLimited(
                "you are chatting too fast: wait a few seconds".into(),
            ));
        }
        spoken.push_back(now);
        let name = match self.info.get(&player) {
            Some(info) if seat.is_some() => info.name.clone(),
            _ => name.to_string(),
        };
        let line = ChatLine {
            seat: seat.map(|s| s as u32),
            player_id: player,
            name,
            text,
            at_ms: now_ms(),
        };
        if self.chat.lines.len() == KEPT {
            self.chat.lines.pop_front();
        }
        self.chat.lines.push_back(line.clone());
        self.send_all(&ServerMsg::Chat {
            table_id: self.table_id,
            line,
        });
        Ok(())
    }

    pub(super) fn switch_chat(&mut self, enabled: bool) {
        self.chat_rules.enabled = enabled;
        // Players who left take their rate-limit history with them (spectators still
        // watching keep theirs).
        let seated = self.seated_players();
        let watching: Vec<PlayerId> = self.subscribers.iter().filter_map(|s| s.who).collect();
        self.chat
            .spoken
            .retain(|p, _| seated.contains(p) || watching.contains(p));
        self.send_all(&ServerMsg::ChatSwitched {
            table_id: self.table_id,
            enabled,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_trimmed_and_bounded() {
        assert_eq!(clean("  gl all ").unwrap(), "gl all");
        assert!(clean("   ").is_err());
        assert!(clean(&"x".repeat(CHAT_MAX_CHARS)).is_ok());
        assert!(clean(&"x".repeat(CHAT_MAX_CHARS + 1)).is_err());
        // Characters, not bytes: 200 hearts are fine.
        assert!(clean(&"\u{2665}".repeat(CHAT_MAX_CHARS)).is_ok());
        for bad in [
            "a\u{0}b",
            "bell\u{7}",
            "line\nbreak",
            "evil\u{202e}txt",
            "z\u{200b}w",
        ] {
            assert!(matches!(clean(bad), Err(Refusal::Chat(_))), "{bad:?}");
        }
    }
}
