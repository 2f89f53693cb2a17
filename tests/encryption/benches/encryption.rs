//! What `#[entity(encrypt)]` costs per item, side by side in one run: the
//! same entity with one field encrypted and without, written and read
//! through the embedded server (a multi-thread runtime, as the encryption
//! guide advises), and the client-side work alone (`to_item` against
//! `to_item` plus the Database Encryption SDK's item encryptor, no
//! server). Prints medians and their ratio.
//! `cargo bench --manifest-path tests/encryption/Cargo.toml --target-dir
//! target`; without `--bench` a quick pass.

use entity_client::encryption::aws_db_esdk::item_encryptor::client as item_encryptor;
use entity_client::encryption::aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId;
use entity_client::encryption::Encryption;
use entity_client::{EmbeddedDynamo, Entity};
use entity_tests::bench::{median, quick};
use std::time::{Duration, Instant};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", name = "Patient")]
#[pk(id)]
#[sk()]
struct Encrypted {
    id: String,
    name: String,
    ward: String,
    #[entity(encrypt)]
    diagnosis: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", name = "Patient")]
#[pk(id)]
#[sk()]
struct Plain {
    id: String,
    name: String,
    ward: String,
    diagnosis: String,
}

fn encrypted(i: usize) -> Encrypted {
    Encrypted {
        id: format!("p{i:05}"),
        name: format!("patient {i}"),
        ward: "w1".into(),
        diagnosis: format!("diagnosis {i}: ").repeat(10),
    }
}

fn plain(i: usize) -> Plain {
    let e = encrypted(i);
    Plain {
        id: e.id,
        name: e.name,
        ward: e.ward,
        diagnosis: e.diagnosis,
    }
}

fn per_item(total: Duration, n: usize) -> Duration {
    total / n as u32
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = quick();
    let (n, rounds) = if quick { (50, 3) } else { (400, 7) };
    let server = EmbeddedDynamo::start().await.expect("server");
    let keyring = Encryption::raw_aes("bench", "key-1", [9; 32])
        .await
        .expect("keyring");
    println!(
        "encryption: {n} items of ~{} bytes, one field encrypted, medians of {rounds} rounds",
        encrypted(0).item_size().expect("size").total
    );
    println!(
        "{:<58} {:>12} {:>12} {:>8}",
        "per item", "plain", "encrypted", "ratio"
    );
    let symmetric = keyring
        .clone()
        .algorithm_suite(DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384);
    for (suite, encryption) in [
        ("default suite (ECDSA P-384 + HMAC)", keyring),
        ("HMAC-only suite", symmetric),
    ] {
        measure(&server, &encryption, suite, n, rounds).await;
    }
}

async fn measure(
    server: &EmbeddedDynamo,
    encryption: &Encryption,
    suite: &str,
    n: usize,
    rounds: usize,
) {
    let tag = suite.split(' ').next().unwrap_or_default();

    // End to end: puts then gets of n items, alternating which goes first.
    let (mut plain_times, mut encrypted_times) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let table = format!("bench-{tag}-{round}");
        let base = server.client(&table);
        base.create_table(&[Plain::MODEL]).await.expect("table");
        let secret = base
            .with_encryption(encryption, &[Encrypted::MODEL])
            .expect("encryption");
        let run_plain = || async {
            let start = Instant::now();
            for i in 0..n {
                base.put(&plain(i)).await.expect("put");
            }
            for i in 0..n {
                base.get(Plain::key(format!("p{i:05}")))
                    .await
                    .expect("get")
                    .expect("found");
            }
            start.elapsed()
        };
        let run_encrypted = || async {
            let start = Instant::now();
            for i in 0..n {
                secret.put(&encrypted(i + n)).await.expect("put");
            }
            for i in 0..n {
                secret
                    .get(Encrypted::key(format!("p{:05}", i + n)))
                    .await
                    .expect("get")
                    .expect("found");
            }
            start.elapsed()
        };
        if round % 2 == 0 {
            plain_times.push(run_plain().await);
            encrypted_times.push(run_encrypted().await);
        } else {
            encrypted_times.push(run_encrypted().await);
            plain_times.push(run_plain().await);
        }
    }
    let (p, e) = (median(plain_times), median(encrypted_times));

    // The client side alone: to_item, and to_item + encrypt + decrypt.
    let config = encryption
        .item_encryptor_config("bench", &[Encrypted::MODEL])
        .expect("config");
    let encryptor = item_encryptor::Client::from_conf(config).expect("encryptor");
    let items: Vec<Encrypted> = (0..n).map(encrypted).collect();
    let (mut bare, mut sealed) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let start = Instant::now();
        for item in &items {
            std::hint::black_box(item.to_item().expect("item"));
        }
        bare.push(start.elapsed());
        let start = Instant::now();
        for item in &items {
            let out = encryptor
                .encrypt_item()
                .plaintext_item(item.to_item().expect("item"))
                .send()
                .await
                .expect("encrypt");
            let back = encryptor
                .decrypt_item()
                .encrypted_item(out.encrypted_item.expect("item"))
                .send()
                .await
                .expect("decrypt");
            std::hint::black_box(
                Encrypted::from_item(back.plaintext_item.expect("item")).expect("read"),
            );
        }
        sealed.push(start.elapsed());
    }
    let (b, s) = (median(bare), median(sealed));

    println!("{suite}:");
    println!(
        "{:<58} {:>12.1?} {:>12.1?} {:>8.2}",
        "put + get through the embedded server",
        per_item(p, 2 * n),
        per_item(e, 2 * n),
        e.as_secs_f64() / p.as_secs_f64()
    );
    println!(
        "{:<58} {:>12.1?} {:>12.1?} {:>8.1}",
        "client side: to_item / to_item + encrypt + decrypt + read",
        per_item(b, n),
        per_item(s, n),
        s.as_secs_f64() / b.as_secs_f64()
    );
}
