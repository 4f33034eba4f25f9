//! Words and dates for people: plurals, and the proleptic Gregorian calendar that file names,
//! timestamps and the report share.

/// `one` or `many`, as `n` asks.
pub(crate) fn plural(n: impl Into<u64>, one: &'static str, many: &'static str) -> &'static str {
    if n.into() == 1 { one } else { many }
}

/// The number of days in `month` (1–12) of `year`.
pub(crate) fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`].
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2026-01-02T03:04:05.678Z`: the UTC time `seconds` after 1970, and `millis` (0 to 999).
pub(crate) fn utc_time(seconds: i64, millis: i64) -> String {
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60);
    if !(0..=9999).contains(&y) {
        return format!("{y:04}-{m:02}-{d:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z");
    }
    // Digit by digit: a large transcript's report names thousands of leaves, each with its
    // time, and `format!` made that most of building the report.
    let mut out = String::with_capacity(24);
    let mut put = |n: i64, width: u32, after: char| {
        for i in (0..width).rev() {
            out.push(char::from(b'0' + (n / 10i64.pow(i) % 10) as u8));
        }
        out.push(after);
    };
    put(y, 4, '-');
    put(m, 2, '-');
    put(d, 2, 'T');
    put(hour, 2, ':');
    put(minute, 2, ':');
    put(second, 2, '.');
    put(millis, 3, 'Z');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_dates_are_inverses() {
        for days in -800_000..800_000 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
            assert!((1..=days_in_month(y, m)).contains(&d));
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    /// Checked against Python's datetime; years past four digits as `format!` writes them.
    #[test]
    fn times_are_written_as_rfc_3339() {
        assert_eq!(utc_time(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_time(-1, 999), "1969-12-31T23:59:59.999Z");
        assert_eq!(utc_time(951_782_400, 7), "2000-02-29T00:00:00.007Z");
        assert_eq!(utc_time(253_402_300_799, 50), "9999-12-31T23:59:59.050Z");
        assert_eq!(utc_time(253_402_300_800, 0), "10000-01-01T00:00:00.000Z");
    }
}
