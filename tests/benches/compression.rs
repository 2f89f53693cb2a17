//! What `#[entity(compress)]` costs and saves on realistic text (JSON-like
//! event records whose values vary, `entity_tests::text::json_like`): the
//! compression ratio and compress/decompress time per MB of the codec
//! (`entity_core::compress`), and the cost of `to_item` for an entity with
//! a 64 KiB field compressed against the same entity without `compress`.
//! `cargo bench -p entity-tests --bench compression`; without `--bench`
//! (`cargo test --benches`) it runs a quick pass.

use entity_client::compress::{decode, encode, DEFAULT_MIN};
use entity_client::Entity;
use entity_tests::bench::{median, quick};
use entity_tests::text::json_like;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", name = "Doc")]
#[pk(id)]
#[sk()]
struct Compressed {
    id: String,
    title: String,
    #[entity(compress)]
    body: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", name = "Doc")]
#[pk(id)]
#[sk()]
struct Plain {
    id: String,
    title: String,
    body: String,
}

/// The median time of `rounds` runs of `f`.
fn time(rounds: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..rounds)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

fn per_mb(time: Duration, bytes: usize) -> f64 {
    time.as_secs_f64() * 1e3 * (1 << 20) as f64 / bytes as f64
}

fn main() {
    let quick = quick();
    let rounds = if quick { 3 } else { 31 };
    println!("compression of JSON-like text (LZ4 block, lz4_flex):");
    for size in [4 << 10, 64 << 10, 1 << 20] {
        let text = json_like(size);
        let stored = encode(&text, DEFAULT_MIN).unwrap().unwrap();
        let stored_len = entity_client::limits::value_size(&stored);
        let compress = time(rounds, || {
            black_box(encode(black_box(&text), DEFAULT_MIN).unwrap());
        });
        let decompress = time(rounds, || {
            black_box(decode::<String>(black_box(stored.clone())).unwrap());
        });
        println!(
            "  {:>8} bytes -> {:>7} stored: ratio {:.2}x, compress {:.2} ms/MB, decompress {:.2} ms/MB",
            text.len(),
            stored_len,
            text.len() as f64 / stored_len as f64,
            per_mb(compress, text.len()),
            per_mb(decompress, text.len()),
        );
    }

    let body = json_like(64 << 10);
    let compressed = Compressed {
        id: "d1".into(),
        title: "a document".into(),
        body: body.clone(),
    };
    let plain = Plain {
        id: "d1".into(),
        title: "a document".into(),
        body,
    };
    let with = time(rounds, || {
        black_box(black_box(&compressed).to_item().unwrap());
    });
    let without = time(rounds, || {
        black_box(black_box(&plain).to_item().unwrap());
    });
    let item_with = compressed.item_size().unwrap().total;
    let item_without = plain.item_size().unwrap().total;
    println!(
        "to_item with a 64 KiB field: compressed {:.1} us ({} bytes), plain {:.1} us ({} bytes): {:.1}x the time, {:.2}x smaller",
        with.as_secs_f64() * 1e6,
        item_with,
        without.as_secs_f64() * 1e6,
        item_without,
        with.as_secs_f64() / without.as_secs_f64(),
        item_without as f64 / item_with as f64,
    );
}
