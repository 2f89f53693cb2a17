use entity_core::{Collection, Entity};

#[derive(Entity)]
#[entity(name = "ORDER", collection = "userItems")]
#[pk(format = "USER#{user_id}")]
#[sk(format = "ORDER#{order_id}")]
struct Order {
    user_id: String,
    order_id: String,
}

#[derive(Entity)]
#[entity(name = "ORDER_LINE", collection = "userItems")]
#[pk(format = "USER#{user_id}")]
#[sk(format = "ORDER#LINE#{line_id}")]
struct OrderLine {
    user_id: String,
    line_id: String,
}

#[derive(Collection)]
#[collection(name = "userItems", pk(user_id: String))]
enum UserItems {
    Orders(Order),
    Lines(OrderLine),
}

fn main() {}
