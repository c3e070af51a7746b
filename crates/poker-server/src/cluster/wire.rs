//! The node-to-node format's version: what lets a release be rolled across a running
//! cluster node by node (docs/operations.md, Rolling upgrades).
//!
//! Every message a node sends on NATS carries the header `Pokerd-Wire: N`, this release's
//! [`WIRE_VERSION`] (the release before it sent none: a message without the header is
//! version 1), and every node says its version with its heartbeat ([`super::subjects::NodeHeard`]).
//! The contract between two releases that run side by side:
//! - A release reads everything the previous release sends: its payloads are kept as
//!   fixtures (`crates/poker-server/tests/fixtures/wire/`) that this release's tests read
//!   and answer ([`super::compat`]).
//! - A release changes the payloads only by adding: fields (which readers of the previous
//!   release skip: no payload type denies unknown fields, which the same tests check) and
//!   messages that the previous release is never sent while it runs. Renaming or removing
//!   a field takes two releases: the first writes both and reads either, the second stops
//!   writing the old one.
//! - A message this release cannot read at all (a later release's new request) is answered
//!   with a typed refusal naming both versions, never dropped in silence; a connection's
//!   frame of a later release that this one cannot parse is passed on to the client as it
//!   came (the page reads it).

use async_nats::HeaderMap;

/// This release's node-to-node format. 1: the release before (no header); 2: this one
/// (the header, the version in the heartbeat; payloads as in 1 plus fields).
pub(crate) const WIRE_VERSION: u32 = 2;

/// The header naming a message's format version.
pub(crate) const HEADER: &str = "Pokerd-Wire";

/// The headers every message of this node carries.
pub(super) fn headers() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(HEADER, WIRE_VERSION.to_string().as_str());
    headers
}

/// Publishes `payload` on `subject` with the headers every message of this node carries.
pub(super) async fn publish<S: async_nats::subject::ToSubject>(
    nats: &async_nats::Client,
    subject: S,
    payload: bytes::Bytes,
) -> Result<(), async_nats::PublishError> {
    nats.publish_with_headers(subject, headers(), payload).await
}

/// The format version a message was written in (1 when it names none: the release before
/// the header).
pub(super) fn version_of(headers: Option<&HeaderMap>) -> u32 {
    headers
        .and_then(|h| h.get(HEADER))
        .and_then(|v| v.as_str().parse().ok())
        .unwrap_or(1)
}

/// The version a heartbeat that names none was written in.
pub(super) fn previous() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_names_this_releases_version_and_one_without_the_header_is_version_1() {
        assert_eq!(version_of(Some(&headers())), WIRE_VERSION);
        assert_eq!(version_of(None), 1);
        assert_eq!(version_of(Some(&HeaderMap::new())), 1);
        let mut later = HeaderMap::new();
        later.insert(HEADER, "7");
        assert_eq!(version_of(Some(&later)), 7);
    }
}
