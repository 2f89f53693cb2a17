use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "SCORE#{score}")]
struct User {
    user_id: String,
    score: f32,
}

fn main() {}
