//! The quick reading of the frame clients send most, an `act`: straight into its fields,
//! without the tagged enum's buffer (which copies every key and value of the frame first).

use crate::{Action, ClientMsg, TableId};
use serde::Deserialize;

/// An `act` frame read without the tagged enum's buffer; `None` if the frame is not one
/// or cannot be read so (then [`crate::parse_client`] reads it the general way).
pub(crate) fn parse_act(text: &str) -> Option<ClientMsg> {
    /// The frame's `type` alone (the other keys are skipped unread).
    #[derive(Deserialize)]
    struct Tag<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
    }
    /// The fields of an `act`, as [`ClientMsg::Act`] reads them.
    #[derive(Deserialize)]
    struct Act {
        table_id: TableId,
        decision_id: u64,
        action: Action,
    }
    let tag: Tag = serde_json::from_str(text).ok()?;
    if tag.kind != "act" {
        return None;
    }
    let act: Act = serde_json::from_str(text).ok()?;
    Some(ClientMsg::Act {
        table_id: act.table_id,
        decision_id: act.decision_id,
        action: act.action,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_client, ErrorCode, ServerMsg};

    #[test]
    fn an_act_read_the_quick_way_is_the_act_the_general_way_reads() {
        let table = TableId::new();
        let frames = [
            format!(
                r#"{{"type":"act","table_id":"{table}","decision_id":3,"action":{{"type":"call"}}}}"#
            ),
            format!(
                r#"{{"action":{{"to":40,"type":"bet_or_raise_to"}},"decision_id":9,"type":"act","table_id":"{table}","extra":[1,{{"a":"b"}}]}}"#
            ),
            format!(
                r#"{{"type":"act","table_id":"{table}","decision_id":4,"action":{{"type":"fold"}}}}"#
            ),
        ];
        for frame in &frames {
            let quick = parse_act(frame).expect("read the quick way");
            let general: ClientMsg = serde_json::from_str(frame).unwrap();
            assert_eq!(quick, general);
            assert_eq!(parse_client(frame).unwrap(), general);
        }
        // What the quick reading does not take goes the general way, errors included.
        let bad = [
            format!(
                r#"{{"type":"act","table_id":"{table}","decision_id":-1,"action":{{"type":"call"}}}}"#
            ),
            format!(r#"{{"type":"act","table_id":"{table}","action":{{"type":"call"}}}}"#),
            format!(
                r#"{{"type":"act","table_id":"{table}","decision_id":1,"action":{{"type":"dance"}}}}"#
            ),
            r#"{"type":"act""#.to_string(),
        ];
        for frame in &bad {
            assert!(parse_act(frame).is_none(), "{frame}");
            let error = parse_client(frame).unwrap_err();
            assert!(
                matches!(
                    error,
                    ServerMsg::Error {
                        code: ErrorCode::BadMessage,
                        ..
                    }
                ),
                "{error:?}"
            );
        }
        let watch = format!(r#"{{"type":"watch","table_id":"{table}"}}"#);
        assert!(parse_act(&watch).is_none());
        assert_eq!(
            parse_client(&watch).unwrap(),
            ClientMsg::Watch { table_id: table }
        );
    }
}
