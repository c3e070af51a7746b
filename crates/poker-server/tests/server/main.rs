//! The server's integration tests, in one test binary: each module was a test binary of its
//! own, and linking 35 binaries of the whole server took most of a clean CI build. One
//! module per subject; `common` is the shared harness (the real server on port 0, a real
//! SQLite file or a throwaway PostgreSQL, players over real WebSockets). Run one subject
//! with its module path, e.g. `cargo nextest run -p poker-server -E 'test(/^soak::/)'`.

mod common;

mod accounts;
mod admin_api;
mod admin_bodies;
mod archive;
mod availability;
mod backup;
mod browser;
mod buy_in_range;
mod chaos;
mod chat;
mod console_api;
mod durable_results;
mod failover;
mod fair_play;
mod fairness;
mod hardening;
mod hostile;
mod house_all_night;
mod house_options;
mod identity;
mod kill_restart;
mod largest_amounts;
mod monitoring;
mod my_history;
mod operations;
mod play_money;
mod players_per_deck;
mod pokerdf;
mod pokerkit;
mod private_games;
mod replay_cli;
mod rolling_upgrade;
mod schemathesis;
mod seat_keeping;
mod show_hand;
mod showdown;
mod soak;
mod staff_accountability;
mod table_actor;
mod waitlist;
mod web_client;
mod websocket;
