use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(feed_id)]
#[sk(created_at)]
struct Post {
    feed_id: String,
    created_at: chrono::DateTime<chrono::Utc>,
}

fn main() {}
