//! Realistic text for the compression tests and benchmark: JSON-like event
//! records whose ids, names, amounts and notes vary record to record, as a
//! log or a document store holds them (not one phrase repeated, which any
//! codec shrinks to nothing).

use std::fmt::Write;

const EVENTS: [&str; 5] = ["created", "paid", "shipped", "returned", "archived"];
const CITIES: [&str; 7] = [
    "Lisbon", "Osaka", "Denver", "Nairobi", "Tallinn", "Recife", "Perth",
];

/// At least `bytes` bytes of JSON-like records (a JSON array's elements,
/// comma separated), the same for the same `bytes`.
pub fn json_like(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 256);
    let mut i: u64 = 0;
    while out.len() < bytes {
        // A cheap deterministic scramble, so neighbouring records differ.
        let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        let _ = write!(
            out,
            r#"{{"id":{i},"user":"user-{:05}","event":"{}","amount":{}.{:02},"city":"{}","note":"order {} moved to bay {} by shift {}"}},"#,
            h % 50_000,
            EVENTS[(h % 5) as usize],
            h % 2_000,
            h % 100,
            CITIES[(h % 7) as usize],
            h % 100_000,
            h % 40,
            h % 3,
        );
        i += 1;
    }
    out
}
