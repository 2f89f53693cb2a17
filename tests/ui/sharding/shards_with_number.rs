use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(user_id)]
#[index(by_shop(gsi = "gsi1", pk(shop_id, number, shards = 10), sk(user_id)))]
struct User {
    user_id: String,
    shop_id: u64,
}

fn main() {}
