//! What the two minimal binaries share: the quickstart's entity, the
//! endpoint and table they read from the environment, and the key they get.

use entity_client::Entity;

/// The quickstart's entity.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app")]
#[pk(task_id)]
#[sk()]
pub struct Task {
    /// The task's id.
    pub task_id: String,
    /// What to do.
    pub title: String,
    /// Done or not.
    pub done: bool,
}

/// The id of the one task every binary gets.
pub const TASK_ID: &str = "t-1";

/// `SERVERLESS_ENDPOINT` and `SERVERLESS_TABLE`, set by the driver.
pub fn endpoint_and_table() -> (String, String) {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"));
    (var("SERVERLESS_ENDPOINT"), var("SERVERLESS_TABLE"))
}
