use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_g1(gsi = "gsi1", pk(g1)))]
#[index(by_g2(gsi = "gsi2", pk(g2)))]
#[index(by_g3(gsi = "gsi3", pk(g3)))]
#[index(by_g4(gsi = "gsi4", pk(g4)))]
#[index(by_g5(gsi = "gsi5", pk(g5)))]
#[index(by_g6(gsi = "gsi6", pk(g6)))]
#[index(by_g7(gsi = "gsi7", pk(g7)))]
#[index(by_g8(gsi = "gsi8", pk(g8)))]
#[index(by_g9(gsi = "gsi9", pk(g9)))]
#[index(by_g10(gsi = "gsi10", pk(g10)))]
#[index(by_g11(gsi = "gsi11", pk(g11)))]
#[index(by_g12(gsi = "gsi12", pk(g12)))]
#[index(by_g13(gsi = "gsi13", pk(g13)))]
#[index(by_g14(gsi = "gsi14", pk(g14)))]
#[index(by_g15(gsi = "gsi15", pk(g15)))]
#[index(by_g16(gsi = "gsi16", pk(g16)))]
#[index(by_g17(gsi = "gsi17", pk(g17)))]
#[index(by_g18(gsi = "gsi18", pk(g18)))]
#[index(by_g19(gsi = "gsi19", pk(g19)))]
#[index(by_g20(gsi = "gsi20", pk(g20)))]
#[index(by_g21(gsi = "gsi21", pk(g21)))]
struct Task {
    task_id: String,
    g1: String,
    g2: String,
    g3: String,
    g4: String,
    g5: String,
    g6: String,
    g7: String,
    g8: String,
    g9: String,
    g10: String,
    g11: String,
    g12: String,
    g13: String,
    g14: String,
    g15: String,
    g16: String,
    g17: String,
    g18: String,
    g19: String,
    g20: String,
    g21: String,
}

fn main() {}
