use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
#[sk(format = "PROFILE")]
#[index(by_email(gsi = "gsi1", pk(attr = "sk", email)))]
struct User {
    user_id: String,
    email: String,
}

fn main() {}
