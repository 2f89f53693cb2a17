use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "SENSOR#{sensor_id}")]
#[sk(format = "METRIC#{at_ms:unpadded}#{metric_id}")]
struct Metric {
    sensor_id: String,
    at_ms: u64,
    metric_id: String,
}

fn main() {
    // Plain decimal does not sort numerically: no range operators.
    let _ = Metric::primary("s1").at_ms().gt(17u64);
}
