//! `new Date(value).getTime()` without a JavaScript engine, for history read off the main
//! thread: numbers, and strings in ECMAScript's date time string format
//! (`YYYY-MM-DDTHH:mm:ss.sssZ` and its shorter forms, six-digit signed years, offsets).
//!
//! A date-time without an offset is local time to JavaScript; here it is read as UTC (a
//! worker thread has no time zone to ask), which differs only on machines not set to UTC.
//! Other spellings that V8 accepts as a fallback (`"March 7, 2025"`) are `NaN` here.

/// The largest time value a `Date` holds: 100,000,000 days either side of the epoch.
const MAX_TIME: f64 = 8.64e15;

/// `new Date(number).getTime()`: TimeClip.
pub fn clip(value: f64) -> f64 {
    if !value.is_finite() || value.abs() > MAX_TIME {
        f64::NAN
    } else {
        value.trunc() + 0.0
    }
}

/// Days from 1970-01-01 to `year-month-day` (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn digits(&mut self, count: usize) -> Option<i64> {
        let digits = self.bytes.get(self.at..self.at + count)?;
        let mut value = 0;
        for &d in digits {
            if !d.is_ascii_digit() {
                return None;
            }
            value = value * 10 + (d - b'0') as i64;
        }
        self.at += count;
        Some(value)
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.bytes.get(self.at) == Some(&byte);
        self.at += found as usize;
        found
    }

    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// The time value of a date time string, `NaN` when it is not in the format.
pub fn parse_iso(text: &str) -> f64 {
    parse(text.as_bytes()).map_or(f64::NAN, clip)
}

fn parse(bytes: &[u8]) -> Option<f64> {
    let mut c = Cursor { bytes, at: 0 };
    let year = match bytes.first()? {
        b'+' | b'-' => {
            let negative = bytes[0] == b'-';
            c.at = 1;
            let year = c.digits(6)?;
            if negative && year == 0 {
                return None;
            }
            if negative {
                -year
            } else {
                year
            }
        }
        _ => c.digits(4)?,
    };
    let (mut month, mut day) = (1, 1);
    if c.eat(b'-') {
        month = c.digits(2)?;
        if c.eat(b'-') {
            day = c.digits(2)?;
        }
    }
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut millis_of_day = 0;
    if c.eat(b'T') || c.eat(b't') {
        let hour = c.digits(2)?;
        if !c.eat(b':') {
            return None;
        }
        let minute = c.digits(2)?;
        let (mut second, mut millis) = (0, 0);
        if c.eat(b':') {
            second = c.digits(2)?;
            if c.eat(b'.') {
                // At least one digit; the first three count.
                let start = c.at;
                while c.bytes.get(c.at).is_some_and(u8::is_ascii_digit) {
                    c.at += 1;
                }
                let fraction = &bytes[start..c.at];
                if fraction.is_empty() {
                    return None;
                }
                for (i, &d) in fraction.iter().take(3).enumerate() {
                    millis += (d - b'0') as i64 * [100, 10, 1][i];
                }
            }
        }
        let midnight = hour == 24 && minute == 0 && second == 0 && millis == 0;
        if (hour > 23 && !midnight) || minute > 59 || second > 59 {
            return None;
        }
        millis_of_day = ((hour * 60 + minute) * 60 + second) * 1000 + millis;
        if c.eat(b'Z') || c.eat(b'z') {
        } else if let Some(&sign @ (b'+' | b'-')) = c.bytes.get(c.at) {
            c.at += 1;
            let hours = c.digits(2)?;
            if !c.eat(b':') {
                return None;
            }
            let minutes = c.digits(2)?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let offset = (hours * 60 + minutes) * 60_000;
            millis_of_day -= if sign == b'+' { offset } else { -offset };
        }
    }
    if !c.done() {
        return None;
    }
    Some((days_from_civil(year, month, day) * 86_400_000 + millis_of_day) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_time_string_format() {
        assert_eq!(parse_iso("1970-01-01T00:00:00.000Z"), 0.0);
        assert_eq!(parse_iso("2025-03-14T09:26:05.120Z"), 1_741_944_365_120.0);
        assert_eq!(parse_iso("2025-03-14T10:26:20+01:00"), 1_741_944_380_000.0);
        assert_eq!(parse_iso("2025-03-14"), 1_741_910_400_000.0);
        assert_eq!(parse_iso("2025-03"), 1_740_787_200_000.0);
        assert_eq!(parse_iso("2024-02-29T24:00"), 1_709_251_200_000.0);
        assert_eq!(parse_iso("-000001-01-01T00:00:00Z"), -62_198_755_200_000.0);
        assert_eq!(parse_iso("+275760-09-13T00:00:00Z"), 8.64e15);
        for bad in [
            "",
            "2025-13-01",
            "2025-03-14T25:00",
            "+275760-09-13T00:00:00.001Z",
            "2025-03-14T09:26:05.Z",
            "2025-03-14 junk",
        ] {
            assert!(parse_iso(bad).is_nan(), "{bad}");
        }
        assert!(clip(f64::INFINITY).is_nan());
        assert_eq!(clip(1.9), 1.0);
    }
}
