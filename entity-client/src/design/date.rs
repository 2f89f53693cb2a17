//! The date text NoSQL Workbench writes in `ModelMetadata`
//! (`Jan 15, 2024, 10:30 AM`), in UTC, from the system clock.

use std::time::{SystemTime, UNIX_EPOCH};

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `at` as Workbench writes dates; a clock before 1970 reads as 1970.
pub(super) fn workbench_date(at: SystemTime) -> String {
    let seconds = at
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (year, month, day) = civil_from_days(seconds / 86_400);
    let minutes = seconds % 86_400 / 60;
    let (hour, minute) = (minutes / 60, minutes % 60);
    let (hour12, half) = match hour {
        0 => (12, "AM"),
        1..=11 => (hour, "AM"),
        12 => (12, "PM"),
        _ => (hour - 12, "PM"),
    };
    let month = MONTHS[(month - 1) as usize];
    format!("{month} {day:02}, {year}, {hour12:02}:{minute:02} {half}")
}

/// Year, month (1 to 12) and day of a count of days since 1970-01-01
/// (Howard Hinnant's `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_read_as_workbench_writes_them() {
        let at = |s: u64| workbench_date(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "Jan 01, 1970, 12:00 AM");
        // 2024-01-15T10:30:00Z
        assert_eq!(at(1_705_314_600), "Jan 15, 2024, 10:30 AM");
        // 2024-02-29T23:59:00Z, a leap day
        assert_eq!(at(1_709_251_140), "Feb 29, 2024, 11:59 PM");
        // 2000-03-01T12:05:00Z
        assert_eq!(at(951_912_300), "Mar 01, 2000, 12:05 PM");
    }
}
