//! A room from nothing: the admin token pokerd makes for itself when none is configured,
//! the preset tables of a play-money room's first start, and the lines that tell a
//! newcomer where to go.

use crate::config::Config;
use crate::AppState;
use rand::RngCore;
use std::io::Write;
use std::path::Path;

/// Where the admin token comes from this run.
#[derive(Debug, PartialEq, Eq)]
pub enum TokenSource {
    /// Configured (`admin.token` or `POKER__ADMIN__TOKEN`).
    Configured,
    /// Read from `admin.token_file`, made by an earlier start.
    Saved,
    /// Made now and saved to `admin.token_file`: shown once, on this start only.
    Made(String),
}

/// Fills `config.admin.token` when it is empty: from `admin.token_file`, or a new random
/// token saved there (readable by its owner only).
pub fn admin_token(config: &mut Config) -> anyhow::Result<TokenSource> {
    if !config.admin.token.is_empty() {
        return Ok(TokenSource::Configured);
    }
    let path = Path::new(&config.admin.token_file);
    if let Ok(saved) = std::fs::read_to_string(path) {
        let saved = saved.trim();
        if !saved.is_empty() {
            config.admin.token = saved.to_string();
            return Ok(TokenSource::Saved);
        }
    }
    let mut raw = [0u8; 24];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot make {}: {e}", dir.display()))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot save the admin token in {}: {e}", path.display()))?;
    writeln!(file, "{token}")?;
    config.admin.token = token.clone();
    Ok(TokenSource::Made(token))
}

/// The fewest characters an admin token may have: a guess among 16^32 (a 128-bit
/// secret) cannot be won by trying, throttled or not.
pub const MIN_TOKEN_CHARS: usize = 32;

/// Refuses an admin token under [`MIN_TOKEN_CHARS`] characters, unless the configuration
/// says this is a development room (`admin.allow_short_token`).
pub fn check_admin_token(config: &Config) -> anyhow::Result<()> {
    let n = config.admin.token.chars().count();
    if n < MIN_TOKEN_CHARS && !config.admin.allow_short_token {
        anyhow::bail!(
            "the admin token (admin.token or POKER__ADMIN__TOKEN) has {n} characters: it needs \
             at least {MIN_TOKEN_CHARS} (make one with `openssl rand -hex 24`, or leave it \
             empty and pokerd makes one); for development only, admin.allow_short_token = \
             true lets a short one start"
        );
    }
    Ok(())
}

/// A play-money room with no table at all gets the first-start presets: made once, even
/// by several nodes starting together on one empty database (the store checks and
/// creates in one transaction, under a lock), and opened by the node that made them.
pub async fn open_presets(state: &std::sync::Arc<AppState>) -> anyhow::Result<usize> {
    if !state.config.play_money() || !state.config.room.presets {
        return Ok(0);
    }
    if !state.store.tables().await?.is_empty() {
        return Ok(0);
    }
    let mut presets = Vec::new();
    for preset in crate::presets::all()
        .into_iter()
        .filter(|p| crate::presets::FIRST_START.contains(&p.key))
    {
        let body = serde_json::to_vec(&preset.body)?;
        let (name, spec) = crate::http::admin::tables::parse_new_table(&body)
            .map_err(|e| anyhow::anyhow!("preset {}: {}", preset.key, e.message))?;
        presets.push((name, serde_json::to_string(&spec)?));
    }
    let made = state.store.create_tables_if_none(&presets).await?;
    for (id, (name, config)) in made.iter().zip(&presets) {
        if let Err(e) = state.open_table(*id, name, config).await {
            tracing::error!("preset table {id} cannot open: {e:#}");
        }
    }
    Ok(made.len())
}

/// What pokerd prints on starting (standard output, not the log): where players and
/// operators go, and the admin token only when it was made on this start.
pub fn banner(config: &Config, addr: std::net::SocketAddr, token: &TokenSource) -> String {
    let host = if addr.ip().is_unspecified() {
        format!("127.0.0.1:{}", addr.port())
    } else {
        addr.to_string()
    };
    let money = if config.play_money() {
        format!(
            "play money: new players get {} chips, house bots fill tables",
            config.room.play_grant
        )
    } else {
        "real money: an operator funds the wallets".to_string()
    };
    let token = match token {
        TokenSource::Configured => "the configured admin token".to_string(),
        TokenSource::Saved => format!("the admin token saved in {}", config.admin.token_file),
        TokenSource::Made(t) => format!(
            "admin token {t} (saved in {}; shown only now)",
            config.admin.token_file
        ),
    };
    format!(
        "pokerd is up ({money}; database {}).\n  Play:    http://{host}/\n  Console: http://{host}/admin  (sign in with {token})\n",
        crate::config::redact_url(&config.database.url)
    )
}
