//! Showing after an uncontested win, over real WebSockets: ann bets, ben folds, and ann
//! may show the cards she won with (`show_hand`): everyone at the table sees them as a
//! `shown` event of that hand, the show is on the hand's record (every download has it)
//! and every player dealt in gets the hand's proofs again with the cards shown proved
//! (docs/fairness.md). The attacker is the other player: ben, who folded, cannot make the
//! table show ann's cards (or his own folded ones), and ann cannot show twice; the books
//! balance.

use crate::common;

use common::{act, clock, tid, Client, Scenario};
use poker_fairness::{HandProof, MySeed, Record};
use poker_protocol::{ClientMsg, HandId, ServerMsg};
use poker_rules::{Action, Event};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_winner_of_an_uncontested_hand_may_show_it_once_and_nobody_else_may() {
    // One hand, then a long pause: the show comes between hands.
    let (mut server, table_id, mut clients) = Scenario::table(clock(30_000, 600_000))
        .seated(&["ann", "ben"], 1000, 200)
        .await;
    let t = tid(&table_id);
    // Ann raises whenever she may, else checks or calls; ben folds to any bet.
    let mut ann_cards = None;
    let mut ended = [false, false];
    let mut seats: Vec<u32> = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !(ended[0] && ended[1]) && tokio::time::Instant::now() < deadline {
        for i in 0..2 {
            let Some(msg) = clients[i].try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            match msg {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = match (i, &legal) {
                        (0, l) if l.bet_or_raise.is_some() => Action::BetOrRaiseTo {
                            to: l.bet_or_raise.unwrap().0,
                        },
                        (1, l) if l.call.is_some() => Action::Fold,
                        (_, l) if l.check => Action::Check,
                        _ => Action::Call,
                    };
                    clients[i].send(&act(&table_id, decision_id, action)).await;
                }
                ServerMsg::Event {
                    event, seats: s, ..
                } => match event {
                    Event::HoleDealt { player, cards, .. } if i == 0 && s[player] == 0 => {
                        ann_cards = Some(cards);
                        seats = s;
                    }
                    Event::Shown { .. } => panic!("no showdown in a hand ben folds"),
                    Event::HandEnded { .. } => ended[i] = true,
                    _ => {}
                },
                _ => {}
            }
        }
    }
    assert!(ended[0] && ended[1], "the hand ended for both");
    let ann_cards = ann_cards.expect("ann saw her cards");
    let show = ClientMsg::ShowHand { table_id: t };
    // Whether the next answer that matters is a refusal (true) or cards shown (false).
    async fn refused(c: &mut Client) -> bool {
        loop {
            match c.recv().await {
                ServerMsg::Error { .. } => return true,
                ServerMsg::Event {
                    event: Event::Shown { .. },
                    ..
                } => return false,
                _ => {}
            }
        }
    }

    // Ben, who folded, cannot show anything.
    clients[1].send(&show).await;
    assert!(
        refused(&mut clients[1]).await,
        "a folded player may not show"
    );

    // Ann shows: both see her cards as an event of the hand just played, and ann's
    // request is done (its answer may come before or after the event); each gets the
    // hand's proofs again, now with ann's cards opened.
    clients[0].send(&show).await;
    let mut proofs: Vec<HandProof> = Vec::new();
    for (i, c) in clients.iter_mut().enumerate() {
        let (mut shown, mut done, mut proof) = (None, i == 1, None);
        while shown.is_none() || !done || proof.is_none() {
            match c.recv().await {
                ServerMsg::Event {
                    event: Event::Shown { player, cards },
                    ..
                } => shown = Some((player, cards)),
                ServerMsg::Done { request, .. } if request == "show_hand" => done = true,
                ServerMsg::DeckProof { proof: p, .. } if shown.is_some() => proof = Some(*p),
                ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
                _ => {}
            }
        }
        let (player, cards) = shown.unwrap();
        assert_eq!(seats[player], 0, "ann's cards are shown");
        assert_eq!(cards, ann_cards, "the cards she was dealt");
        proofs.push(proof.unwrap());
    }
    for card in ann_cards.iter() {
        assert!(
            proofs[1].cards.iter().any(|p| p.card == *card),
            "ben's proofs open ann's {card} once shown"
        );
    }
    // The show is on the hand's record: ben's download has the `shown` event, his proofs
    // (the live ones) with ann's cards, and both verifiers accept it; the PHH, PokerStars
    // and OHH downloads say it too.
    let hand: HandId = proofs[1].hand_id;
    let token = server.login("ben").await;
    let (status, record) = server
        .call(
            "GET",
            &format!("/api/me/hands/{hand}?format=replay"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, 200, "{record}");
    let parsed: Record = serde_json::from_value(record.clone()).unwrap();
    assert!(parsed
        .events
        .iter()
        .any(|e| matches!(e, Event::Shown { cards, .. } if *cards == ann_cards)));
    assert_eq!(
        parsed.fairness, proofs[1],
        "the live proofs are the record's"
    );
    poker_fairness::verify(&parsed, MySeed::Unknown).unwrap();
    let file = std::env::temp_dir().join(format!("pokerd-show-{}.json", std::process::id()));
    std::fs::write(&file, record.to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pokerd"))
        .arg("verify")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&file);
    let shown_text = poker_rules::Card::format_many(ann_cards.as_slice());
    for (format, says) in [
        ("phh", format!("shows {shown_text}")),
        ("pokerstars", ": shows [".to_string()),
        ("ohh", "Shows Cards".to_string()),
    ] {
        let path = format!("/api/me/hands/{hand}?format={format}");
        let r = server.get_as(&token, &path).await;
        assert_eq!(r.status, 200, "{format}");
        let text = r.text;
        assert!(
            text.contains(&says),
            "the {format} download shows ann's cards: {text}"
        );
    }

    // Once only.
    clients[0].send(&show).await;
    assert!(refused(&mut clients[0]).await, "a second show is refused");
    server.finish(2000).await;
}
