//! Table-design export: the example app's entities (its employees
//! and tasks, and the lifecycle document) as a NoSQL Workbench model, an
//! access-pattern table or an HTML page.
//!
//! ```sh
//! cargo run -p examples --example design -- [--format workbench|markdown|html] [--out FILE]
//! ```
//!
//! Writes to standard output without `--out`; the default format is
//! `workbench`.

#[allow(dead_code)] // the collection union is the quickstart's; the design needs the entities
mod app;

use app::{task, Doc, Employee, Task};
use entity_client::design::Design;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (format, out) = arguments()?;
    let design = design();
    let text = match format.as_str() {
        "workbench" => design.workbench()?,
        "markdown" => design.markdown()?,
        "html" => design.html()?,
        other => {
            return Err(format!("unknown format {other:?}: workbench, markdown or html").into())
        }
    };
    match out {
        Some(path) => {
            std::fs::write(&path, text)?;
            eprintln!("wrote the {format} design to {path}");
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// The app's table, with a few samples of each entity: two employees and
/// three tasks of tenant `t-acme`, one document.
fn design() -> Design {
    let employee = |id: &str, email: &str, department: &str, hired: &str, name: &str| Employee {
        employee_id: id.into(),
        tenant_id: "t-acme".into(),
        email: email.into(),
        department: department.into(),
        hire_date: hired.into(),
        name: name.into(),
    };
    let employees = [
        employee(
            "emp-alice",
            "alice@acme.test",
            "engineering",
            "2024-01-15",
            "Alice",
        ),
        employee("emp-bob", "bob@acme.test", "sales", "2023-06-01", "Bob"),
    ];
    let tasks = [
        task(1, "proj-alpha", "emp-alice"),
        task(2, "proj-alpha", "emp-bob"),
        task(3, "proj-beta", "emp-alice"),
    ];
    let doc = Doc {
        doc_id: "spec".into(),
        project_id: "proj-alpha".into(),
        body: "draft".into(),
        version: 1,
    };
    Design::new("project-management")
        .description("Employees and tasks of a tenant in one tenantMembers collection, and versioned documents.")
        .entity::<Employee>(&employees)
        .entity::<Task>(&tasks)
        .entity::<Doc>(&[doc])
}

/// `--format F` and `--out FILE`.
fn arguments() -> Result<(String, Option<String>), String> {
    let mut format = "workbench".to_owned();
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--format" => format = value()?,
            "--out" => out = Some(value()?),
            other => return Err(format!("unknown argument {other:?}; usage: design [--format workbench|markdown|html] [--out FILE]")),
        }
    }
    Ok((format, out))
}
