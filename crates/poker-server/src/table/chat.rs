//! The table's chat: seated players and signed-in spectators watching the table speak
//! (a spectator's line has no seat), everyone at the table reads. A line is 1 to 200 characters under the Unicode policy names follow
//! ([`poker_store::names`]: no control, format, separator, private-use, unassigned or
//! invisible character, at most a few combining marks per character; emoji sequences
//! allowed); each player may say a few lines in any ten seconds; operators switch chat
//! off and on. The last lines are kept for the
//! snapshot, so a player who joins or reconnects sees the conversation.

use super::{ChatRules, Refusal};
use poker_protocol::{ChatLine, CHAT_MAX_CHARS};
use poker_store::{now_ms, PlayerId};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// Lines kept for snapshots.
pub(super) const KEPT: usize = 50;

const WINDOW: Duration = Duration::from_secs(10);

/// The chat's state in the actor.
pub(super) struct Chat {
    /// Whether chat is on, and how fast each player may speak.
    rules: ChatRules,
    /// The last lines, for snapshots.
    lines: VecDeque<ChatLine>,
    /// When each player last spoke, within the window.
    spoken: std::collections::HashMap<PlayerId, VecDeque<Instant>>,
}

/// The line as it will be shown, or why not: the room's one Unicode policy for names and
/// chat ([`poker_store::names::chat_line`]).
pub(super) fn clean(text: &str) -> Result<String, Refusal> {
    poker_store::names::chat_line(text, CHAT_MAX_CHARS).map_err(|e| Refusal::Chat(e.to_string()))
}

impl Chat {
    /// A table's chat under `rules`, no line said yet.
    pub(super) fn new(rules: ChatRules) -> Chat {
        Chat {
            rules,
            lines: VecDeque::new(),
            spoken: Default::default(),
        }
    }

    /// The chat's rules (whether it is on).
    pub(super) fn rules(&self) -> ChatRules {
        self.rules
    }

    /// The lines kept, oldest first.
    pub(super) fn lines(&self) -> impl Iterator<Item = &ChatLine> {
        self.lines.iter()
    }

    /// Says `text` as `player` (at `seat`, shown as `name`), if chat is on and the player
    /// within the rate limit: the line, to be sent to everyone.
    pub(super) fn say(
        &mut self,
        player: PlayerId,
        seat: Option<u32>,
        name: String,
        text: &str,
    ) -> Result<ChatLine, Refusal> {
        let text = clean(text)?;
        let now = Instant::now();
        // Only speakers of the last ten seconds are remembered: spectators come and go
        // without leaving a trace.
        self.spoken.retain(|_, times| {
            times
                .back()
                .is_some_and(|t| now.duration_since(*t) <= WINDOW)
        });
        let spoken = self.spoken.entry(player).or_default();
        while spoken
            .front()
            .is_some_and(|t| now.duration_since(*t) > WINDOW)
        {
            spoken.pop_front();
        }
        if spoken.len() >= self.rules.lines_per_10s as usize {
            return Err(Refusal::RateLimited(
                "you are chatting too fast: wait a few seconds".into(),
            ));
        }
        spoken.push_back(now);
        let line = ChatLine {
            seat,
            player_id: player,
            name,
            text,
            at_ms: now_ms(),
        };
        if self.lines.len() == KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back(line.clone());
        Ok(line)
    }

    /// Switches chat on or off; players not in `keep` take their rate-limit history with
    /// them.
    pub(super) fn switch(&mut self, enabled: bool, keep: &[PlayerId]) {
        self.rules.enabled = enabled;
        self.spoken.retain(|p, _| keep.contains(p));
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
