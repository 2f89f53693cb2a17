//! The serverless start, side by side in one run: the time from process
//! start to the first completed GetItem, and the stripped release size, of
//! a minimal binary through entity-client (`first_get_ours`) and through
//! the raw SDK (`first_get_raw`), each getting one item; and the first
//! get's own latency after `warm()`.
//!
//!   bash scripts/serverless.sh [rounds]
//!
//! (release build, then this driver against DynamoDB Local, whose
//! endpoint it reads from `ENTITY_TEST_ENDPOINT`). Rounds alternate the
//! binaries; each figure is the median of its rounds.

use entity_client::Entity;
use entity_serverless::{Task, TASK_ID};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Run {
    /// Spawn to exit.
    process_us: u128,
    /// The get alone, as the binary timed it.
    get_us: u128,
}

fn run(binary: &Path, env: &[(&str, String)], warm: bool) -> Run {
    let mut command = Command::new(binary);
    command.envs(env.iter().map(|(k, v)| (k, v)));
    if warm {
        command.env("WARM", "1");
    }
    let start = Instant::now();
    let out = command.output().expect("spawn");
    let process_us = start.elapsed().as_micros();
    assert!(
        out.status.success(),
        "{} failed: {}",
        binary.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let get_us = stdout
        .trim()
        .strip_prefix("get_us=")
        .and_then(|n| n.parse().ok())
        .expect("the binary prints get_us=<n>");
    Run { process_us, get_us }
}

fn median(mut values: Vec<u128>) -> u128 {
    values.sort_unstable();
    values[values.len() / 2]
}

/// The stripped size of a copy of `binary`, in bytes.
fn stripped_size(binary: &Path) -> u64 {
    let copy = binary.with_extension("stripped");
    std::fs::copy(binary, &copy).expect("copy binary");
    let stripped = Command::new("strip").arg(&copy).status();
    assert!(
        stripped.is_ok_and(|s| s.success()),
        "strip failed (binutils)"
    );
    std::fs::metadata(&copy).expect("stripped binary").len()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(30);
    let endpoint = std::env::var("ENTITY_TEST_ENDPOINT")
        .expect("ENTITY_TEST_ENDPOINT names the server (bash scripts/serverless.sh)");
    let table = format!("serverless{}", std::process::id());
    let client = entity_client::Client::local(&endpoint, table.clone());
    client
        .create_table(&[Task::MODEL])
        .await
        .expect("create table");
    let task = Task {
        task_id: TASK_ID.into(),
        title: "Write the report".into(),
        done: false,
    };
    client.put(&task).await.expect("put");

    let dir: PathBuf = std::env::current_exe()
        .expect("current exe")
        .parent()
        .expect("exe dir")
        .to_owned();
    let ours = dir.join("first_get_ours");
    let raw = dir.join("first_get_raw");
    let env = [
        ("SERVERLESS_ENDPOINT", endpoint.clone()),
        ("SERVERLESS_TABLE", table.clone()),
        ("SERVERLESS_PK", Task::pk_of(TASK_ID)),
        ("SERVERLESS_SK", Task::sk_of()),
    ];
    // One of each first: page cache, the server's own warm-up.
    for _ in 0..2 {
        run(&raw, &env, false);
        run(&ours, &env, false);
    }
    let (mut raw_runs, mut ours_runs, mut warm_runs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        raw_runs.push(run(&raw, &env, false));
        ours_runs.push(run(&ours, &env, false));
        warm_runs.push(run(&ours, &env, true));
    }
    client
        .sdk()
        .delete_table()
        .table_name(&table)
        .send()
        .await
        .ok();

    let process = |runs: &[Run]| median(runs.iter().map(|r| r.process_us).collect());
    let get = |runs: &[Run]| median(runs.iter().map(|r| r.get_us).collect());
    let ratio = |a: u128, b: u128| a as f64 / b as f64;
    let (raw_size, ours_size) = (stripped_size(&raw), stripped_size(&ours));
    let mb = |bytes: u64| bytes as f64 / 1_048_576.0;

    println!("== serverless start: median of {rounds} rounds, ours / raw SDK");
    println!(
        "process start to first completed get: ours {} us | raw {} us | {:.3}x (target <= 1.05x)",
        process(&ours_runs),
        process(&raw_runs),
        ratio(process(&ours_runs), process(&raw_runs))
    );
    println!(
        "the first get alone: ours {} us | raw {} us | {:.3}x",
        get(&ours_runs),
        get(&raw_runs),
        ratio(get(&ours_runs), get(&raw_runs))
    );
    println!(
        "the first get after warm(): {} us | {:.3}x the raw first get",
        get(&warm_runs),
        ratio(get(&warm_runs), get(&raw_runs))
    );
    println!(
        "stripped release binary: ours {:.2} MB | raw {:.2} MB | +{:.2} MB (target <= +1 MB)",
        mb(ours_size),
        mb(raw_size),
        mb(ours_size) - mb(raw_size)
    );
}
