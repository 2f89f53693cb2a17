//! Entities shared by the integration tests: seed 002's worked example
//! (employees and tasks in tenants) and the key formats of seeds 000, 001 and
//! 004 that existing tables already hold.

pub mod bench;
pub mod clock;
pub mod harness;
pub mod tenancy;
pub mod text;

use entity_core::{Entity, KeyPart};
use serde::{Deserialize, Serialize};

/// Seed 002's employee: `$myapp#v1#employee#employeeid_<id>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Employee", rename_all = "camelCase")]
#[pk(employee_id)]
#[sk()]
#[index(by_tenant(gsi = "gsi1", pk(tenant_id), sk(department, hire_date)))]
#[index(by_email(gsi = "gsi3", pk(email)))]
pub struct Employee {
    pub employee_id: String,
    pub tenant_id: String,
    pub department: String,
    pub hire_date: String,
    pub email: String,
    pub name: String,
}

/// Seed 002's task, with a numeric priority in two sort keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Task", rename_all = "camelCase")]
#[pk(task_id)]
#[sk()]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(priority, status)))]
#[index(by_assignee(gsi = "gsi2", pk(employee_id), sk(priority)))]
pub struct Task {
    pub task_id: String,
    pub project_id: String,
    pub employee_id: String,
    pub priority: u8,
    pub status: Status,
    pub title: String,
    pub tags: std::collections::BTreeSet<String>,
    pub estimate: Option<f64>,
    #[entity(serde)]
    pub checklist: Vec<ChecklistItem>,
}

/// A unit-only enum in a key and as an attribute.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Open,
    InProgress,
    #[key_part(rename = "done")]
    Done,
}

/// A nested serde type, stored as a map through `#[entity(serde)]`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ChecklistItem {
    pub text: String,
    pub done: bool,
}

/// Seed 001's `USER#123` / `PROFILE` layout, with a newtype id.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "PROFILE")]
#[index(by_email(
    gsi = "gsi1",
    pk(attr = "gsi1pk", format = "user#email"),
    sk(attr = "gsi1sk", format = "{email}")
))]
pub struct UserProfile {
    pub user_id: UserId,
    pub email: String,
    pub bio: Option<String>,
}

/// A newtype composite.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash)]
pub struct UserId(pub String);

/// Seed 001/003's `ORDER#2024-01-15#abc` sort key under `USER#<id>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "ORDER#{day}#{order_id}")]
pub struct Order {
    pub user_id: String,
    pub day: String,
    pub order_id: String,
    pub total_cents: i64,
}

/// Seed 004's `PRODUCT#tenant001` partition with lowercase seed-000 style
/// hierarchy: `team#<team>#member#<user>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "PRODUCT#{tenant_code}")]
#[sk(format = "team#{team_id}#member#{user_id}")]
pub struct TeamMember {
    pub tenant_code: String,
    pub team_id: String,
    pub user_id: String,
}

/// Signed numbers and timestamps in one sort key (a ledger).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "ledger", casing = "upper")]
#[pk(account)]
#[sk(at, delta)]
#[index(by_delta(lsi = "lsi1", sk(attr = "lsi1sk", delta)))]
pub struct Entry {
    pub account: String,
    pub at: chrono::DateTime<chrono::Utc>,
    pub delta: i32,
}
