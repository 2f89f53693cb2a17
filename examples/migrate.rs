//! Migrate: items written by version 1 of an entity are brought to version
//! 2 (a new index, a changed index key), with a text progress bar.
//!
//! Seeds an embedded table with version-1 items, counts what a dry run
//! would rewrite, migrates in parallel segments while drawing progress
//! from `on_progress`, and runs once more to show nothing is left.
//!
//! Run it with `cargo run -p examples --example migrate` (`-- 5000` for
//! another item count).

use entity_client::{EmbeddedDynamo, Entity, MigrationProgress};
use std::io::Write;

/// Version 1 of a task: by id, and by project.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Task", version = 1)]
#[pk(task_id)]
#[sk()]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(task_id)))]
struct TaskV1 {
    task_id: String,
    project_id: String,
    assignee: String,
    points: u32,
}

/// Version 2: by project sorted by points, and a new index by assignee.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Task", version = 2, upgrade_from = TaskV1)]
#[pk(task_id)]
#[sk()]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(points, task_id)))]
#[index(by_assignee(gsi = "gsi2", pk(assignee), sk(task_id)))]
struct Task {
    task_id: String,
    project_id: String,
    assignee: String,
    points: u32,
}

impl From<TaskV1> for Task {
    fn from(v1: TaskV1) -> Self {
        Task {
            task_id: v1.task_id,
            project_id: v1.project_id,
            assignee: v1.assignee,
            points: v1.points,
        }
    }
}

/// Draws `[#####.....] 512/1000 scanned, 512 rewritten` on one line.
fn draw(progress: &MigrationProgress, total: u64) {
    const WIDTH: u64 = 40;
    let c = &progress.counts;
    let filled = (c.scanned.min(total) * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH);
    let bar: String = (0..WIDTH)
        .map(|i| if i < filled { '#' } else { '.' })
        .collect();
    let (done, segments) = progress.segments_done();
    print!(
        "\r[{bar}] {}/{total} scanned, {} rewritten, {} up to date, {} skipped, {} unreadable ({done}/{segments} segments)",
        c.scanned, c.rewritten, c.up_to_date, c.skipped_concurrent, c.unreadable
    );
    let _ = std::io::stdout().flush();
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let total: u64 = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(2000);
    let server = EmbeddedDynamo::start().await?;
    let client = server.client("app");
    client.create_table(&[TaskV1::MODEL, Task::MODEL]).await?;

    let seed: Vec<TaskV1> = (0..total)
        .map(|i| TaskV1 {
            task_id: format!("t-{i:05}"),
            project_id: format!("p-{}", i % 10),
            assignee: format!("emp-{}", i % 25),
            points: (i % 13) as u32,
        })
        .collect();
    client.batch_write().put_all(&seed).await?;
    println!("seeded {total} version-1 tasks");

    let dry = client.migrate::<Task>().dry_run(true).segments(4).await?;
    println!(
        "dry run: {} would be rewritten, {} up to date",
        dry.counts.rewritten, dry.counts.up_to_date
    );

    let report = client
        .migrate::<Task>()
        .segments(4)
        .page_size(100)
        .on_progress(move |p| draw(p, total))
        .await?;
    println!();
    println!("migrated: {:?}", report.counts);

    let again = client.migrate::<Task>().segments(4).await?;
    println!(
        "second run: {} rewritten, {} up to date",
        again.counts.rewritten, again.counts.up_to_date
    );
    let by_assignee = client.query(Task::by_assignee("emp-3")).all().await?;
    println!(
        "emp-3 has {} tasks through the new index",
        by_assignee.len()
    );
    Ok(())
}
