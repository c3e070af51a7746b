//! Counters and histograms for `/metrics`, in the Prometheus text format, kept with
//! atomics so that recording never takes a lock or slows a table.

use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// A histogram with fixed buckets (upper bounds in seconds).
pub struct Histogram {
    bounds: &'static [f64],
    counts: Vec<AtomicU64>,
    sum_micros: AtomicU64,
    count: AtomicU64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Histogram {
        Histogram {
            bounds,
            counts: bounds.iter().map(|_| AtomicU64::new(0)).collect(),
            sum_micros: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    /// Records one observation.
    pub fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        if let Some(i) = self.bounds.iter().position(|&b| secs <= b) {
            self.counts[i].fetch_add(1, Ordering::Relaxed);
        }
        self.sum_micros
            .fetch_add(d.as_micros() as u64, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// How many observations.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (b, c) in self.bounds.iter().zip(&self.counts) {
            cumulative += c.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {cumulative}");
        }
        let count = self.count();
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {count}");
    }
}

const LATENCY: &[f64] = &[
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
];
const PERSIST: &[f64] = &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];
const ROUND_TRIP: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// Everything `/metrics` reports besides what the lobby knows.
pub struct Metrics {
    /// Hands committed.
    pub hands: AtomicU64,
    /// Player actions applied.
    pub actions: AtomicU64,
    /// Actions forced by the clock.
    pub timeouts: AtomicU64,
    /// Open WebSocket connections.
    pub connections: AtomicI64,
    /// Client messages received.
    pub messages: AtomicU64,
    /// Client messages refused by the rate limit.
    pub rate_limited: AtomicU64,
    /// Subscribers resynced with a snapshot after falling behind.
    pub resyncs: AtomicU64,
    /// Times a table's task woke up (a command or its clock): flat while the server is
    /// idle, so an idle server is seen to use no CPU.
    pub table_wakeups: AtomicU64,
    /// Table tasks that ended unexpectedly (their hand was voided, the table failed).
    pub table_failures: AtomicU64,
    /// Hands dealt.
    pub hands_dealt: AtomicU64,
    /// Hands dealt in which the seed of every player dealt in (the house's seats aside)
    /// was used (docs/fairness.md).
    pub hands_all_seeds: AtomicU64,
    /// Hands dealt with no player's seed (the house's aside): the order was the server's.
    pub hands_no_player_seed: AtomicU64,
    /// From an action reaching its table to its events queued for every subscriber.
    pub action_latency: Histogram,
    /// From a hand's end to its commit being durable.
    pub persist_lag: Histogram,
    /// Hands voided (stacks as they began): cut by a crash or kill and voided when
    /// pokerd starts again, cut on another node and voided when this one took the table
    /// over, or cut by a table's failure.
    pub hands_voided: AtomicU64,
    /// Tables this node took over while another node still held their lease (lapsed, or
    /// its holder no longer heard): a lease that moved because a node stopped or was cut
    /// off, not one handed over on purpose.
    pub lease_takeovers: AtomicU64,
    /// Whether this node reaches NATS (1) or not (0); 1 on a single node, which needs
    /// none, so that "cut off" means the same on every node.
    pub nats_connected: AtomicI64,
    /// Request/reply round trips to a table's owner on another node, through NATS.
    pub nats_round_trip: Histogram,
    /// Other nodes up that speak another node-to-node format (another release): above 0
    /// while a rolling upgrade is under way.
    pub nodes_of_another_release: AtomicI64,
    /// `hand_player` rows given their hand's deal time and big blind by the background
    /// filler (`backfill.rs`): rows from before this release or a node of the previous one.
    pub hand_players_filled: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            hands: AtomicU64::new(0),
            actions: AtomicU64::new(0),
            timeouts: AtomicU64::new(0),
            connections: AtomicI64::new(0),
            messages: AtomicU64::new(0),
            rate_limited: AtomicU64::new(0),
            resyncs: AtomicU64::new(0),
            table_wakeups: AtomicU64::new(0),
            table_failures: AtomicU64::new(0),
            hands_dealt: AtomicU64::new(0),
            hands_all_seeds: AtomicU64::new(0),
            hands_no_player_seed: AtomicU64::new(0),
            action_latency: Histogram::new(LATENCY),
            persist_lag: Histogram::new(PERSIST),
            hands_voided: AtomicU64::new(0),
            lease_takeovers: AtomicU64::new(0),
            nats_connected: AtomicI64::new(1),
            nats_round_trip: Histogram::new(ROUND_TRIP),
            nodes_of_another_release: AtomicI64::new(0),
            hand_players_filled: AtomicU64::new(0),
        }
    }
}

impl Metrics {
    /// The Prometheus text exposition, with the table gauges given.
    pub fn render(&self, tables: usize, seated: usize) -> String {
        let mut out = String::new();
        let mut gauge = |name: &str, kind: &str, help: &str, v: i64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
            );
        };
        gauge("poker_tables", "gauge", "Open tables.", tables as i64);
        gauge(
            "poker_seated_players",
            "gauge",
            "Players seated at open tables.",
            seated as i64,
        );
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed) as i64;
        gauge(
            "poker_hands_total",
            "counter",
            "Hands played and committed.",
            load(&self.hands),
        );
        gauge(
            "poker_actions_total",
            "counter",
            "Player actions applied.",
            load(&self.actions),
        );
        gauge(
            "poker_timeouts_total",
            "counter",
            "Actions forced by the clock.",
            load(&self.timeouts),
        );
        gauge(
            "poker_connections",
            "gauge",
            "Open WebSocket connections.",
            self.connections.load(Ordering::Relaxed),
        );
        gauge(
            "poker_messages_total",
            "counter",
            "Client messages received.",
            load(&self.messages),
        );
        gauge(
            "poker_rate_limited_total",
            "counter",
            "Client messages refused by the rate limit.",
            load(&self.rate_limited),
        );
        gauge(
            "poker_resyncs_total",
            "counter",
            "Slow clients resynced with a snapshot.",
            load(&self.resyncs),
        );
        gauge(
            "poker_table_wakeups_total",
            "counter",
            "Times a table task woke up for a command or its clock.",
            load(&self.table_wakeups),
        );
        gauge(
            "poker_table_failures_total",
            "counter",
            "Table tasks that ended unexpectedly (hand voided, table failed).",
            load(&self.table_failures),
        );
        gauge(
            "poker_hands_dealt_total",
            "counter",
            "Hands dealt.",
            load(&self.hands_dealt),
        );
        gauge(
            "poker_hands_all_seeds_total",
            "counter",
            "Hands dealt with the seed of every player dealt in (the house aside).",
            load(&self.hands_all_seeds),
        );
        gauge(
            "poker_hands_no_player_seed_total",
            "counter",
            "Hands dealt with no player's seed (the house aside).",
            load(&self.hands_no_player_seed),
        );
        gauge(
            "poker_hands_voided_total",
            "counter",
            "Hands voided (stacks as they began): cut by a crash, a kill, a node lost or a table failure.",
            load(&self.hands_voided),
        );
        gauge(
            "poker_lease_takeovers_total",
            "counter",
            "Tables this node took over from another node that still held their lease.",
            load(&self.lease_takeovers),
        );
        gauge(
            "poker_nats_connected",
            "gauge",
            "Whether this node reaches NATS (1 on a single node, which needs none).",
            self.nats_connected.load(Ordering::Relaxed),
        );
        gauge(
            "poker_wire_version",
            "gauge",
            "The node-to-node format this node speaks (its release's; docs/operations.md, Rolling upgrades).",
            i64::from(crate::cluster::wire::WIRE_VERSION),
        );
        gauge(
            "poker_nodes_of_another_release",
            "gauge",
            "Other nodes up that speak another node-to-node format: above 0 during a rolling upgrade.",
            self.nodes_of_another_release.load(Ordering::Relaxed),
        );
        gauge(
            "poker_hand_players_filled_total",
            "counter",
            "Hand players' rows given their hand's deal time and big blind in the background (rows from before this release or a node of the previous one).",
            load(&self.hand_players_filled),
        );
        self.action_latency.render(
            &mut out,
            "poker_action_broadcast_seconds",
            "From an action reaching its table to its events queued for every subscriber.",
        );
        self.persist_lag.render(
            &mut out,
            "poker_persist_lag_seconds",
            "From a hand's end to its commit being durable.",
        );
        self.nats_round_trip.render(
            &mut out,
            "poker_nats_round_trip_seconds",
            "Request/reply round trips through NATS to a table's owner on another node.",
        );
        out
    }
}
