//! Dates as PokerStars writes them: US Eastern time, with daylight saving.

/// The civil date of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a civil date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `n`th Sunday (1-based) of a month, as days since 1970-01-01.
fn nth_sunday(y: i64, m: i64, n: i64) -> i64 {
    let first = days_from_civil(y, m, 1);
    // 1970-01-01 was a Thursday: (days + 4) % 7 == 0 on Sundays.
    let to_sunday = (7 - (first + 4).rem_euclid(7)) % 7;
    first + to_sunday + 7 * (n - 1)
}

/// ISO 8601 in UTC (`2026-11-26T14:05:09Z`) of a unix time in ms, as Open Hand History
/// dates its hands.
pub(crate) fn iso_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// US Eastern time, as PokerStars dates its hands: `2026/11/22 3:05:09 ET`. Daylight
/// time runs from 2:00 on the second Sunday of March to 2:00 on the first Sunday of
/// November (local), UTC-4; otherwise UTC-5.
pub(super) fn timestamp(ms: i64) -> String {
    let utc = ms.div_euclid(1000);
    let (year, _, _) = civil(utc.div_euclid(86_400));
    // The switches, in UTC: 2:00 EST = 7:00 UTC in March, 2:00 EDT = 6:00 UTC in November.
    let dst_start = nth_sunday(year, 3, 2) * 86_400 + 7 * 3600;
    let dst_end = nth_sunday(year, 11, 1) * 86_400 + 6 * 3600;
    let offset = if (dst_start..dst_end).contains(&utc) {
        4
    } else {
        5
    };
    let local = utc - offset * 3600;
    let (days, rem) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!(
        "{y}/{m:02}/{d:02} {}:{:02}:{:02} ET",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The moment (unix ms) of a PokerStars date in Eastern time: `2026/11/22 3:05:09 ET`,
/// the bracketed Eastern time of a date written in another zone (`2011/06/26 23:34:01 WET
/// [2011/06/26 18:34:01 ET]`), or as older hands wrote it, `2008/08/17 - 01:14:43 (ET)`
/// and without a zone (`2005/06/07 23:04:26`, read as Eastern time). `None` unless the
/// text is one of these forms in full and names a real date and time.
pub(super) fn parse(text: &str) -> Option<i64> {
    let et = match text.split_once(" [") {
        Some((local, bracket)) => {
            // The local date, in a zone of capital letters, must be a date too.
            let (local, zone) = local.rsplit_once(' ')?;
            if zone.is_empty() || !zone.bytes().all(|b| b.is_ascii_uppercase()) {
                return None;
            }
            civil_seconds(local)?;
            bracket.strip_suffix(" ET]")?
        }
        None => match text.strip_suffix(" (ET)") {
            Some(old) => {
                let (date, clock) = old.split_once(" - ")?;
                return eastern(civil_seconds(&format!("{date} {clock}"))?);
            }
            None => text.strip_suffix(" ET").unwrap_or(text),
        },
    };
    eastern(civil_seconds(et)?)
}

/// Seconds since 1970-01-01 00:00 of a civil date and time `2026/11/22 3:05:09`, if it
/// is one: a four-digit year, a month and a day of that month in two digits, an hour of
/// one or two digits, minutes and seconds in two.
fn civil_seconds(text: &str) -> Option<i64> {
    let (date, clock) = text.split_once(' ')?;
    let number = |s: &str, widths: &[usize]| -> Option<i64> {
        (widths.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let mut d = date.split('/');
    let (y, m, day) = (
        number(d.next()?, &[4])?,
        number(d.next()?, &[2])?,
        number(d.next()?, &[2])?,
    );
    let mut t = clock.split(':');
    let (h, min, s) = (
        number(t.next()?, &[1, 2])?,
        number(t.next()?, &[2])?,
        number(t.next()?, &[2])?,
    );
    if d.next().is_some() || t.next().is_some() || y < 1000 || !(1..=12).contains(&m) {
        return None;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days_in_month = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1..=days_in_month).contains(&day) || h > 23 || min > 59 || s > 59 {
        return None;
    }
    Some(days_from_civil(y, m, day) * 86_400 + h * 3600 + min * 60 + s)
}

/// The moment (unix ms) of a local Eastern time given as seconds since 1970-01-01:
/// daylight time if the moment, read as daylight time, falls within it.
fn eastern(local: i64) -> Option<i64> {
    let (year, _, _) = civil(local.div_euclid(86_400));
    let dst_start = nth_sunday(year, 3, 2) * 86_400 + 7 * 3600;
    let dst_end = nth_sunday(year, 11, 1) * 86_400 + 6 * 3600;
    let utc = if (dst_start..dst_end).contains(&(local + 4 * 3600)) {
        local + 4 * 3600
    } else {
        local + 5 * 3600
    };
    Some(utc * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_are_dated_in_eastern_time_with_daylight_saving() {
        // 2026-07-04 16:00:00 UTC is 12:00 EDT; 2026-01-15 16:00:00 UTC is 11:00 EST.
        assert_eq!(timestamp(1_783_180_800_000), "2026/07/04 12:00:00 ET");
        assert_eq!(timestamp(1_768_492_800_000), "2026/01/15 11:00:00 ET");
        // Daylight time starts 2026-03-08 at 7:00 UTC and ends 2026-11-01 at 6:00 UTC.
        assert_eq!(timestamp(1_772_953_199_000), "2026/03/08 1:59:59 ET");
        assert_eq!(timestamp(1_772_953_200_000), "2026/03/08 3:00:00 ET");
        assert_eq!(timestamp(1_793_512_799_000), "2026/11/01 1:59:59 ET");
        assert_eq!(timestamp(1_793_512_800_000), "2026/11/01 1:00:00 ET");
        // Across midnight: 2026-11-22 03:00 UTC is the 21st in New York.
        assert_eq!(timestamp(1_795_316_400_000), "2026/11/21 22:00:00 ET");
        // Read back, and from another zone's date with the Eastern one in brackets.
        for ms in [1_783_180_800_000, 1_768_492_800_000, 1_795_316_400_000] {
            assert_eq!(parse(&timestamp(ms)), Some(ms));
        }
        assert_eq!(
            parse("2026/07/04 18:00:00 CET [2026/07/04 12:00:00 ET]"),
            Some(1_783_180_800_000)
        );
        assert_eq!(parse("2026/07/04 12:00 UTC"), None);
        // Older forms; and dates that are no dates are refused.
        assert_eq!(parse("2026/07/04 - 12:00:00 (ET)"), Some(1_783_180_800_000));
        assert_eq!(parse("2026/07/04 12:00:00"), Some(1_783_180_800_000));
        for bad in [
            "2026/:1/22 6:43:00 ET",
            "2026/02/29 6:43:00 ET",
            "2026/11/22 24:00:00 ET",
            "2026/11/22 6:60:00 ET",
            "2026/13/01 6:43:00 ET",
            "2026/11/22 6:43:00 ET garbage",
            "2026/11/22 6:43:00 cet [2026/11/22 6:43:00 ET]",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
