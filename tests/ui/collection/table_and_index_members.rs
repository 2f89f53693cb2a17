use entity_core::{Collection, Entity};

#[derive(Entity)]
#[entity(name = "PROFILE", collection = "userItems")]
#[pk(format = "USER#{user_id}")]
#[sk(format = "PROFILE")]
struct Profile {
    user_id: String,
}

#[derive(Entity)]
#[entity(name = "ORDER")]
#[pk(format = "ORDER#{order_id}")]
#[index(by_user(gsi = "gsi1", collection = "userItems", pk(format = "USER#{user_id}"), sk(format = "ORDER#{order_id}")))]
struct Order {
    user_id: String,
    order_id: String,
}

#[derive(Collection)]
#[collection(name = "userItems", pk(user_id: String))]
enum UserItems {
    Profiles(Profile),
    Orders(Order),
}

fn main() {}
