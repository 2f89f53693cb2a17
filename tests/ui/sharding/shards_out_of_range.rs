use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(job_id)]
#[index(by_stage(gsi = "gsi1", pk(stage, shards = 1000), sk(job_id)))]
struct Job {
    job_id: String,
    stage: String,
}

fn main() {}
