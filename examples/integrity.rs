//! Integrity: a customer with a generated id, timestamps, an optimistic-lock
//! version and a unique email, on an embedded server.
//!
//! Shows what the client fills in, a version conflict between two writers,
//! a unique violation, the consistent lookup by email, and an email change
//! that frees the old address.
//!
//! Run it with `cargo run -p examples --example integrity`.

use entity_client::{EmbeddedDynamo, Entity, EpochMillis, Error};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", unique(email, case_insensitive))]
#[pk(customer_id)]
#[sk()]
struct Customer {
    #[entity(generate = "ulid")]
    customer_id: String,
    email: String,
    name: String,
    #[entity(version)]
    version: u64,
    #[entity(created_at)]
    created_at: EpochMillis,
    #[entity(updated_at)]
    updated_at: EpochMillis,
}

fn customer(email: &str, name: &str) -> Customer {
    Customer {
        customer_id: String::new(), // generated on create
        email: email.into(),
        name: name.into(),
        version: 0,
        created_at: EpochMillis::default(),
        updated_at: EpochMillis::default(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = EmbeddedDynamo::start().await?;
    let client = server.client("shop");
    client.create_table(&[Customer::MODEL]).await?;

    // The client fills in the id, both timestamps and version 1, writes the
    // email's sentinel in the same transaction, and returns what it stored.
    let ada = client.create(&customer("Ada@Example.com", "Ada")).await?;
    println!(
        "created {} (version {}, created_at {} ms)",
        ada.customer_id, ada.version, ada.created_at.0
    );

    // Two writers read version 1; the first to write wins.
    let mut first = ada.clone();
    first.name = "Ada Lovelace".into();
    let mut second = ada.clone();
    second.name = "A. King".into();
    let first = client.put(&first).await?;
    println!("first writer stored version {}", first.version);
    match client.put(&second).await {
        Err(Error::VersionConflict {
            expected, found, ..
        }) => {
            println!("second writer: version conflict (read {expected}, stored {found:?}): re-read and retry")
        }
        other => return Err(format!("expected a version conflict, got {other:?}").into()),
    }

    // The email is taken, whatever its case.
    match client
        .create(&customer("ada@example.COM", "Impostor"))
        .await
    {
        Err(Error::UniqueViolation {
            constraint, value, ..
        }) => {
            println!("unique violation on {constraint}: {value:?} is taken")
        }
        other => return Err(format!("expected a unique violation, got {other:?}").into()),
    }

    // A strongly consistent lookup by the unique value.
    let found = client
        .get_unique(Customer::by_email("ADA@example.com"))
        .await?;
    println!("by email: {:?}", found.map(|c| c.name));

    // Changing the email moves its sentinel: the old address is free again.
    let mut moved = first.clone();
    moved.email = "lovelace@example.com".into();
    let moved = client.put(&moved).await?;
    let bob = client.create(&customer("ada@example.com", "Bob")).await?;
    println!(
        "email changed (version {}); ada@example.com now belongs to {}",
        moved.version, bob.name
    );
    Ok(())
}
