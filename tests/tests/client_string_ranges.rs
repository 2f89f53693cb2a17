//! Ranges on a string composite that more of the sort key follows: values
//! that extend the bound with a low character (space, `!`, `"`) land on the
//! right side of it, because escaped value characters sort above `#`.

use entity_client::Entity;
use entity_tests::harness;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "ranges")]
#[pk(group)]
#[sk(name, id)]
struct Person {
    group: String,
    name: String,
    id: u32,
}

const NAMES: [&str; 7] = [
    "Joh",
    "John",
    "John Smith",
    "John!",
    "John\"",
    "Johnny",
    "Jon",
];

async fn names(client: &entity_client::Client, query: entity_client::Query<Person>) -> Vec<String> {
    let mut names: Vec<String> = client
        .query(query)
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    names.sort();
    names
}

fn expected(keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut names: Vec<String> = NAMES
        .iter()
        .filter(|n| keep(n))
        .map(|n| n.to_string())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn string_ranges_on_a_leading_composite_are_exact() {
    let t = harness::table(&[Person::MODEL]).await;
    let people: Vec<Person> = NAMES
        .iter()
        .enumerate()
        .map(|(i, n)| Person {
            group: "g".into(),
            name: n.to_string(),
            id: i as u32,
        })
        .collect();
    t.client.batch_write().put_all(&people).await.unwrap();
    let c = &t.client;
    assert_eq!(
        names(c, Person::primary("g").name().gt("John")).await,
        expected(|n| n > "John")
    );
    assert_eq!(
        names(c, Person::primary("g").name().gte("John")).await,
        expected(|n| n >= "John")
    );
    assert_eq!(
        names(c, Person::primary("g").name().lt("John")).await,
        expected(|n| n < "John")
    );
    assert_eq!(
        names(c, Person::primary("g").name().lte("John")).await,
        expected(|n| n <= "John")
    );
    assert_eq!(
        names(c, Person::primary("g").name().between("John", "Johnny")).await,
        expected(|n| ("John"..="Johnny").contains(&n))
    );
    assert_eq!(
        names(c, Person::primary("g").name().eq("John Smith").build()).await,
        ["John Smith"]
    );
}
