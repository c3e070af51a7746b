//! Private tables, outside their actors: made from a preset for a signed-in player (the
//! host), found again by their invite link, closed once nobody has been seated at one
//! for `room.private_empty_secs`, and forgotten by this node when closed. What happens at
//! the table (seat requests, host commands) is the actor's (`table/private.rs`).

use crate::http::error::{ApiError, ApiResult};
use crate::table::{PrivateSpec, TableSpec};
use crate::AppState;
use axum::http::StatusCode;
use poker_protocol::{NewPrivateTable, PrivateCreated, PrivateInvite};
use poker_store::{Player, StoreError, TableId, TableStatus};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Amounts of a preset's rules that scale with the stakes chosen.
const SCALED: [&str; 4] = ["small_blind", "big_blind", "min_buy_in", "max_buy_in"];
const SCALED_STAKES: [&str; 4] = ["min_bet", "small_bet", "big_bet", "bring_in"];

/// Scales every amount of a preset's rules by `big / unit`, where `unit` is the preset's
/// big blind (or its small bet, in stud): the game at other stakes, in proportion.
fn scale_rules(rules: &mut Value, big: u64) -> ApiResult<()> {
    let amount = |v: &Value| v.as_u64().unwrap_or(0);
    let unit = match amount(&rules["big_blind"]) {
        0 => amount(&rules["stakes"]["small_bet"]),
        b => b,
    };
    if big == 0 || unit == 0 || big > 1_000_000_000 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_rules",
            "the stakes are a positive big blind (or small bet) up to 1000000000",
        ));
    }
    let scale = |v: &mut Value| {
        let x = v.as_u64().unwrap_or(0);
        if x > 0 {
            *v = Value::from(((x as u128 * big as u128) / unit as u128).max(1) as u64);
        }
    };
    for key in SCALED {
        scale(&mut rules[key]);
    }
    for key in SCALED_STAKES {
        if rules["stakes"].get(key).is_some() {
            scale(&mut rules["stakes"][key]);
        }
    }
    if rules["ante"].get("amount").is_some() {
        scale(&mut rules["ante"]["amount"]);
    }
    Ok(())
}

/// The name and spec of a new private table: the preset asked for, at the stakes, seats,
/// clock and chat asked for, checked as any new table is.
pub fn spec_for(host: &Player, ask: &NewPrivateTable) -> ApiResult<(String, TableSpec)> {
    let Some(preset) = crate::presets::all()
        .into_iter()
        .find(|p| p.key == ask.preset)
    else {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "unknown_preset",
            "no preset by that name (nlhe, plo, flhe, stud, razz, triple_draw)",
        ));
    };
    let mut body = preset.body;
    let name = match &ask.name {
        Some(name) => name.clone(),
        None => {
            let keep = poker_store::names::TABLE_NAME_MAX - 7;
            let host: String = host.name.chars().take(keep).collect();
            format!("{host}'s game")
        }
    };
    body["name"] = Value::from(name);
    if let Some(big) = ask.big_blind {
        scale_rules(&mut body["rules"], big)?;
    }
    if let Some(seats) = ask.seats {
        body["rules"]["seat_count"] = Value::from(seats);
    }
    if let Some(secs) = ask.action_secs {
        // A player's number: multiplied only once known to fit the clock's bound.
        let max = crate::http::admin::tables::MAX_CLOCK_MS / 1000;
        if secs == 0 || secs > max {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_rules",
                format!("action_secs is 1 to {max} (a day)"),
            ));
        }
        let ms = secs * 1000;
        body["clock"]["action_ms"] = Value::from(ms);
        if ms <= body["clock"]["warning_ms"].as_u64().unwrap_or(0) {
            body["clock"]["warning_ms"] = Value::from(ms / 3);
        }
    }
    if let Some(on) = ask.chat {
        body["chat"] = serde_json::json!({ "enabled": on });
    }
    // The house options the host chose; the rules' own checks (below) refuse what does
    // not fit the game (run it twice without a board, a minimum above the maximum...).
    if let Some(min) = ask.min_buy_in {
        body["rules"]["min_buy_in"] = Value::from(min);
    }
    if let Some(max) = ask.max_buy_in {
        body["rules"]["max_buy_in"] = Value::from(max);
    }
    if let Some(on) = ask.run_it_twice {
        body["rules"]["options"]["run_it_twice"] = Value::from(on);
    }
    if let Some(on) = ask.straddle {
        body["rules"]["straddle"] = Value::from(on);
    }
    if let Some(on) = ask.rabbit_hunt {
        body["rabbit_hunt"] = Value::from(on);
    }
    if let Some(ms) = ask.showdown_ms {
        body["clock"]["showdown_ms"] = Value::from(ms);
    }
    // Bomb pots (H1, H2): on a schedule, and their size for the host's calls too.
    let every = ask.bomb_pot_every.unwrap_or(0);
    if every > 0 || ask.bomb_pot_big_blinds.is_some() {
        body["rules"]["bomb_pot"] = serde_json::json!({
            "every": every,
            "big_blinds": ask.bomb_pot_big_blinds.unwrap_or(2),
        });
    }
    if let Some(games) = ask.games.as_ref().filter(|g| !g.is_empty()) {
        dealers_choice(&mut body, ask, games)?;
    }
    let bytes = serde_json::to_vec(&body).expect("a JSON value serializes");
    crate::http::admin::tables::parse_new_table(&bytes)
}

/// Dealer's choice (H3): the presets `games` in turn, each at the table's big blind, the
/// first being the table's own preset; the seats are the fewest of the presets' unless
/// asked, the buy-in range the first's (or the host's).
fn dealers_choice(body: &mut Value, ask: &NewPrivateTable, games: &[String]) -> ApiResult<()> {
    let refuse = |m: String| ApiError::new(StatusCode::BAD_REQUEST, "invalid_rules", m);
    if games.first() != Some(&ask.preset) {
        return Err(refuse(
            "a rotation's first game is the table's preset".into(),
        ));
    }
    if games.len() < 2 || games.len() > 8 {
        return Err(refuse("a dealer's choice rotation has 2 to 8 games".into()));
    }
    let big = body["rules"]["big_blind"].as_u64().unwrap_or(0);
    let mut rotation = Vec::new();
    let mut seats = u64::MAX;
    for key in games {
        let Some(preset) = crate::presets::all().into_iter().find(|p| p.key == key) else {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "unknown_preset",
                format!("no preset {key:?} (nlhe, plo, flhe, triple_draw)"),
            ));
        };
        let mut rules = preset.body["rules"].clone();
        if rules["big_blind"].as_u64().unwrap_or(0) == 0 {
            return Err(refuse(format!(
                "{key} has no button: a dealer's choice rotation plays games with blinds"
            )));
        }
        scale_rules(&mut rules, big)?;
        seats = seats.min(rules["seat_count"].as_u64().unwrap_or(2));
        rotation.push(serde_json::json!({
            "game": rules["game"], "structure": rules["structure"], "stakes": rules["stakes"],
            "max_raises": rules["max_raises"], "uncapped_heads_up": rules["uncapped_heads_up"],
        }));
    }
    body["rules"]["dealers_choice"] = Value::from(rotation);
    if ask.seats.is_none() {
        body["rules"]["seat_count"] = Value::from(seats);
    }
    Ok(())
}

/// Makes and opens a private table for `host`: refused when the room has private tables
/// off (403 `private_off`) or the host already runs `room.private_per_host` of them
/// (409 `too_many_private_tables`).
pub async fn create(
    state: &Arc<AppState>,
    host: &Player,
    ask: &NewPrivateTable,
) -> ApiResult<PrivateCreated> {
    if !state.config.private_tables() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "private_off",
            "this room has no private tables",
        ));
    }
    let (name, mut spec) = spec_for(host, ask)?;
    let hosted = state
        .store
        .tables()
        .await?
        .into_iter()
        .filter(|t| t.status == TableStatus::Open)
        .filter_map(|t| serde_json::from_str::<TableSpec>(&t.config).ok()?.private)
        .filter(|p| p.host == host.player_id)
        .count();
    if hosted >= state.config.room.private_per_host as usize {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "too_many_private_tables",
            format!(
                "you host {hosted} open private tables already: end one first (at most {})",
                state.config.room.private_per_host
            ),
        ));
    }
    let (private, invite) = PrivateSpec::new(host.player_id);
    spec.private = Some(private);
    let table_id = crate::http::admin::tables::open_new_table(state, &name, &spec).await?;
    tracing::info!(table_id = %table_id, player_id = %host.player_id, "private table made");
    Ok(PrivateCreated {
        table_id,
        link: format!("/#join/{table_id}/{invite}"),
        name,
        invite,
    })
}

/// What an invite link leads to; the same `no_invite` (404) whether the table does not
/// exist, is not private, or the invite is not its own, so a guess learns nothing.
pub async fn invite(state: &AppState, table: TableId, invite: &str) -> ApiResult<PrivateInvite> {
    let none = || ApiError::new(StatusCode::NOT_FOUND, "no_invite", "no game for this link");
    let row = match state.store.table(table).await {
        Ok(row) => row,
        Err(StoreError::NotFound(_)) => return Err(none()),
        Err(e) => return Err(e.into()),
    };
    let spec: TableSpec = serde_json::from_str(&row.config).map_err(|_| none())?;
    let Some(private) = spec.private.filter(|p| p.admits(invite)) else {
        return Err(none());
    };
    let names = state.store.player_names(&[private.host]).await?;
    // A game its host ended is over for whoever opens the link at once, though its last
    // hand may still be playing out: the store says closed only once everyone is cashed
    // out, the lobby says closing from the moment the table was asked to close.
    let summary = state.lobby.get(table);
    let ending = summary
        .as_ref()
        .is_some_and(|s| s.status != poker_protocol::TableStatus::Open);
    let open = row.status == TableStatus::Open && !ending;
    let players = match summary {
        Some(summary) if open => summary.players,
        _ => 0,
    };
    Ok(PrivateInvite {
        table_id: table,
        name: row.name,
        game: if spec.rules.dealers_choice.is_empty() {
            crate::table::game_label(spec.rules.game, spec.rules.structure)
        } else {
            "Dealer's choice".to_string()
        },
        stakes: crate::table::stakes_name(&spec.rules),
        host_name: names.get(&private.host).cloned().unwrap_or_default(),
        players,
        seats: spec.rules.seat_count as u32,
        status: if open { "open" } else { "closed" }.to_string(),
        play_money: state.config.play_money(),
        games: spec
            .rules
            .dealers_choice
            .iter()
            .map(|g| crate::table::game_label(g.game, g.structure))
            .collect(),
        bomb_pot_every: spec.rules.bomb_pot.map_or(0, |b| b.every),
    })
}

/// Closes this node's private tables once nobody has been seated at one for
/// `room.private_empty_secs` (everyone was cashed out as they left; closing moves no
/// chips then), checking every second until the server shuts down.
pub fn spawn_janitor(state: Arc<AppState>) -> tokio::task::JoinHandle<()> {
    let empty_for = Duration::from_secs(state.config.room.private_empty_secs);
    let mut shutting_down = state.shutting_down.clone();
    tokio::spawn(async move {
        let mut empty_since: HashMap<TableId, Instant> = HashMap::new();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                _ = shutting_down.changed() => return,
            }
            let now = Instant::now();
            let private = state.lobby.private_tables();
            empty_since.retain(|id, _| private.iter().any(|(p, _)| p == id));
            for (table, players) in private {
                let Some(handle) = state.tables.get(table) else {
                    continue;
                };
                if players > 0 {
                    empty_since.remove(&table);
                    continue;
                }
                let since = *empty_since.entry(table).or_insert(now);
                if now.duration_since(since) < empty_for {
                    continue;
                }
                empty_since.remove(&table);
                if state.tables.close(&state, &handle).await.is_ok() {
                    tracing::info!(table_id = %table, "private table closed: nobody seated");
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> Player {
        Player {
            player_id: poker_store::PlayerId::new(),
            name: "hostess".into(),
            password_hash: String::new(),
            created_at: 0,
            locked: false,
        }
    }

    fn ask(preset: &str, options: serde_json::Value) -> NewPrivateTable {
        let mut body = serde_json::json!({ "preset": preset, "big_blind": 10 });
        body.as_object_mut()
            .unwrap()
            .extend(options.as_object().unwrap().clone());
        serde_json::from_value(body).unwrap()
    }

    #[test]
    fn a_host_sets_the_buy_in_run_it_twice_straddles_the_rabbit_and_the_showdown_pause() {
        let options = serde_json::json!({
            "min_buy_in": 500, "max_buy_in": 2000, "run_it_twice": true, "straddle": false,
            "rabbit_hunt": true, "showdown_ms": 4000
        });
        let (_, spec) = spec_for(&host(), &ask("nlhe", options)).unwrap();
        assert_eq!((spec.rules.min_buy_in, spec.rules.max_buy_in), (500, 2000));
        assert!(spec.rules.options.run_it_twice && !spec.rules.straddle && spec.rabbit_hunt);
        assert_eq!(spec.clock.showdown_ms, 4000);
        // Unset: the preset's, at the stakes asked.
        let (_, plain) = spec_for(&host(), &ask("nlhe", serde_json::json!({}))).unwrap();
        assert!(!plain.rules.options.run_it_twice && plain.rules.straddle && !plain.rabbit_hunt);
        assert_eq!(plain.clock.showdown_ms, 2500);
        assert!(plain.rules.min_buy_in < plain.rules.max_buy_in);
        // What the game cannot have is refused as the rules' checks refuse it.
        for (preset, bad) in [
            ("stud", serde_json::json!({ "run_it_twice": true })),
            (
                "nlhe",
                serde_json::json!({ "min_buy_in": 3000, "max_buy_in": 2000 }),
            ),
        ] {
            let refused = spec_for(&host(), &ask(preset, bad.clone())).unwrap_err();
            assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{preset} {bad}");
        }
    }

    #[test]
    fn h2_h3_a_host_sets_bomb_pots_and_a_dealers_choice_rotation_at_one_big_blind() {
        let options = serde_json::json!({
            "bomb_pot_every": 5, "bomb_pot_big_blinds": 3,
            "games": ["nlhe", "plo", "triple_draw"]
        });
        let (_, spec) = spec_for(&host(), &ask("nlhe", options)).unwrap();
        let bomb = spec.rules.bomb_pot.unwrap();
        assert_eq!((bomb.every, bomb.big_blinds), (5, 3));
        let games: Vec<_> = spec.rules.dealers_choice.iter().map(|g| g.game).collect();
        use poker_rules::Game;
        assert_eq!(
            games,
            [Game::Holdem, Game::Omaha, Game::DeuceToSevenTripleDraw]
        );
        // Every game at the big blind of 10: no-limit and pot-limit bet 10, the draw
        // game 10/20.
        let stakes: Vec<_> = spec.rules.dealers_choice.iter().map(|g| g.stakes).collect();
        assert_eq!((stakes[0].min_bet, stakes[1].min_bet), (10, 10));
        assert_eq!((stakes[2].small_bet, stakes[2].big_bet), (10, 20));
        assert_eq!(spec.rules.seat_count, 6);
        for bad in [
            serde_json::json!({ "games": ["nlhe", "stud"] }),
            serde_json::json!({ "games": ["plo", "nlhe"] }),
            serde_json::json!({ "games": ["nlhe"] }),
            serde_json::json!({ "games": ["nlhe", "chess"] }),
            serde_json::json!({ "bomb_pot_every": 1 }),
        ] {
            let refused = spec_for(&host(), &ask("nlhe", bad.clone())).unwrap_err();
            assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{bad}");
        }
        // No bomb pot in a game without a flop.
        let draw = serde_json::json!({ "bomb_pot_every": 4 });
        assert!(spec_for(&host(), &ask("triple_draw", draw)).is_err());
    }
}
