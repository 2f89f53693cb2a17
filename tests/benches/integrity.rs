//! What the integrity features cost, as ratios measured side by side in one
//! run:
//!
//! * `create` of an entity with a version, `created_at`, `updated_at`, a
//!   generated ULID id and one unique constraint, versus a plain `put` of an
//!   entity of the same fields with none of those;
//! * `update().add(n, 1)` sent exactly once (a one-item transaction with a
//!   client request token, the default) versus `with_exactly_once(false)` (a
//!   plain UpdateItem);
//! * `get_unique(Customer::by_email(..))` (two strongly consistent GetItems)
//!   versus `get(key)`.
//!
//! Requests and consumed capacity are counted at the HTTP level by a
//! metering proxy (`FaultProxy::start_metering`), which asks the server for
//! each request's consumed capacity. Before trusting the server's numbers
//! the benchmark checks them against DynamoDB's rules with raw SDK calls of
//! known item sizes, and says whether they follow them. Times are medians of
//! alternating rounds sent straight to the server (no proxy), as in the
//! client benchmark.
//!
//! The server is the embedded one, or the endpoint in `ENTITY_TEST_ENDPOINT`
//! (as for the integration tests). Against DynamoDB Local:
//! `bash .ci/dynamodb-local.sh run cargo bench -p entity-tests --bench integrity`.
//! `cargo bench -p entity-tests --bench integrity`.

use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use chrono::{DateTime, Utc};
use entity_client::faults::FaultProxy;
use entity_client::{Client, Entity};
use entity_tests::bench::{alternating, quick};
use entity_tests::harness::{self, ENDPOINT_VARIABLE};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Every integrity feature at once.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", unique(email))]
#[pk(customer_id)]
#[sk()]
struct Customer {
    #[entity(generate = "ulid")]
    customer_id: String,
    email: String,
    name: String,
    #[entity(version)]
    revision: u64,
    #[entity(created_at)]
    created_at: DateTime<Utc>,
    #[entity(updated_at)]
    updated_at: DateTime<Utc>,
}

/// The same fields, none of them managed (a schema name of the same length,
/// so the items are the same size).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "plain", name = "Customer")]
#[pk(customer_id)]
#[sk()]
struct PlainCustomer {
    customer_id: String,
    email: String,
    name: String,
    revision: u64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

/// A counter, for `add`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench")]
#[pk(id)]
#[sk()]
struct Counter {
    id: String,
    n: u64,
}

fn customer(round: usize, i: usize) -> Customer {
    let now: DateTime<Utc> = std::time::SystemTime::now().into();
    Customer {
        customer_id: String::new(),
        email: format!("c{round}-{i}@example.com"),
        name: format!("Customer {round}-{i}"),
        revision: 0,
        created_at: now,
        updated_at: now,
    }
}

fn plain_customer(round: usize, i: usize) -> PlainCustomer {
    let now: DateTime<Utc> = std::time::SystemTime::now().into();
    PlainCustomer {
        // As long as a ULID.
        customer_id: format!("{:026}", round * 1_000_000 + i),
        email: format!("p{round}-{i}@example.com"),
        name: format!("Customer {round}-{i}"),
        revision: 1,
        created_at: now,
        updated_at: now,
    }
}

/// What a run of operations sent and what the server said it consumed.
#[derive(Debug, Clone, Default)]
struct Tally {
    /// Requests per operation.
    requests: BTreeMap<String, usize>,
    /// Answers that reported consumed capacity.
    reports: usize,
    read: f64,
    write: f64,
}

impl Tally {
    fn of(proxy: &FaultProxy) -> Self {
        let mut tally = Self::default();
        for (operation, counts) in proxy.faults().all_counts() {
            tally.requests.insert(operation, counts.forwarded);
        }
        for capacity in proxy.faults().all_capacity().values() {
            tally.reports += capacity.reports;
            tally.read += capacity.read;
            tally.write += capacity.write;
        }
        tally
    }

    /// What was sent between `before` and `self`.
    fn since(&self, before: &Self) -> Self {
        let mut requests = self.requests.clone();
        for (operation, n) in &before.requests {
            *requests.entry(operation.clone()).or_default() -= n;
        }
        requests.retain(|_, n| *n > 0);
        Self {
            requests,
            reports: self.reports - before.reports,
            read: self.read - before.read,
            write: self.write - before.write,
        }
    }

    fn total(&self) -> usize {
        self.requests.values().sum()
    }
}

/// The cost of one operation: the average over a run.
#[derive(Debug, Clone)]
struct Cost {
    requests: f64,
    /// The operations sent, for instance `TransactWriteItems`.
    sent: String,
    read: f64,
    write: f64,
    /// Whether every request's answer reported its capacity.
    reported: bool,
}

/// A metering proxy in front of the bench table, and a client through it.
struct Meter {
    proxy: FaultProxy,
    client: Client,
}

impl Meter {
    async fn start(endpoint: &str, table: &str) -> Self {
        let proxy = FaultProxy::start_metering(endpoint).await.unwrap();
        let client = Client::local(proxy.endpoint(), table);
        Self { proxy, client }
    }

    /// Runs `op` `n` times, one after another, and averages what it cost.
    async fn cost(&self, n: usize, mut op: impl AsyncFnMut(usize)) -> Cost {
        let before = Tally::of(&self.proxy);
        for i in 0..n {
            op(i).await;
        }
        let tally = Tally::of(&self.proxy).since(&before);
        let per = |x: f64| x / n as f64;
        let sent = tally
            .requests
            .iter()
            .map(|(operation, count)| format!("{} {operation}", per(*count as f64)))
            .collect::<Vec<_>>()
            .join(" + ");
        Cost {
            requests: per(tally.total() as f64),
            sent,
            read: per(tally.read),
            write: per(tally.write),
            reported: tally.reports == tally.total(),
        }
    }
}

/// One capacity rule of DynamoDB's, checked on the server.
struct RuleCheck {
    what: &'static str,
    expected: f64,
    reported: Option<f64>,
}

/// Raw SDK calls of known item sizes, and what DynamoDB charges for them:
/// 1 WCU per KB written (2 in a transaction), 1 RCU per 4 KB read strongly
/// consistent (half that eventually consistent).
async fn check_capacity_rules(meter: &Meter) -> Vec<RuleCheck> {
    let sdk = meter.client.sdk();
    let table = meter.client.table();
    let key = |id: &str| {
        [
            ("pk".to_owned(), AttributeValue::S(format!("rules#{id}"))),
            ("sk".to_owned(), AttributeValue::S("rules".to_owned())),
        ]
    };
    // An item of about `bytes` bytes (names and values of its attributes).
    let item = |id: &str, bytes: usize| {
        let mut item: std::collections::HashMap<_, _> = key(id).into_iter().collect();
        item.insert("x".to_owned(), AttributeValue::S("x".repeat(bytes)));
        item
    };
    let mut checks = Vec::new();
    let mut check = |what: &'static str, expected: f64, read: bool, cost: Cost| {
        let units = if read { cost.read } else { cost.write };
        checks.push(RuleCheck {
            what,
            expected,
            reported: cost.reported.then_some(units),
        });
    };
    for (what, id, bytes, expected) in [
        ("PutItem, 100 B", "small", 100, 1.0),
        ("PutItem, 1.5 KB", "medium", 1_500, 2.0),
        ("PutItem, 5 KB", "large", 5_000, 5.0),
    ] {
        let cost = meter
            .cost(1, async |_| {
                sdk.put_item()
                    .table_name(table)
                    .set_item(Some(item(id, bytes)))
                    .send()
                    .await
                    .expect("put");
            })
            .await;
        check(what, expected, false, cost);
    }
    let cost = meter
        .cost(1, async |_| {
            let put = Put::builder()
                .table_name(table)
                .set_item(Some(item("medium", 1_500)))
                .build()
                .expect("put");
            sdk.transact_write_items()
                .transact_items(TransactWriteItem::builder().put(put).build())
                .send()
                .await
                .expect("transact");
        })
        .await;
    check("TransactWriteItems, one 1.5 KB put", 4.0, false, cost);
    // Each item of a transaction is charged: what a create with a unique
    // sentinel is.
    let cost = meter
        .cost(1, async |_| {
            let puts = ["pair-a", "pair-b"].map(|id| {
                let put = Put::builder()
                    .table_name(table)
                    .set_item(Some(item(id, 100)))
                    .build()
                    .expect("put");
                TransactWriteItem::builder().put(put).build()
            });
            sdk.transact_write_items()
                .set_transact_items(Some(puts.into()))
                .send()
                .await
                .expect("transact");
        })
        .await;
    check("TransactWriteItems, two 100 B puts", 4.0, false, cost);
    let cost = meter
        .cost(1, async |_| {
            sdk.update_item()
                .table_name(table)
                .set_key(Some(key("medium").into_iter().collect()))
                .update_expression("SET y = :y")
                .expression_attribute_values(":y", AttributeValue::N("1".into()))
                .send()
                .await
                .expect("update");
        })
        .await;
    check("UpdateItem of a 1.5 KB item", 2.0, false, cost);
    for (what, id, consistent, expected) in [
        ("GetItem, 1.5 KB, consistent", "medium", true, 1.0),
        ("GetItem, 5 KB, consistent", "large", true, 2.0),
        ("GetItem, 5 KB, eventually consistent", "large", false, 1.0),
    ] {
        let cost = meter
            .cost(1, async |_| {
                sdk.get_item()
                    .table_name(table)
                    .set_key(Some(key(id).into_iter().collect()))
                    .consistent_read(consistent)
                    .send()
                    .await
                    .expect("get");
            })
            .await;
        check(what, expected, true, cost);
    }
    checks
}

/// Times `op` run `n` times in a row.
async fn timed(n: usize, mut op: impl AsyncFnMut(usize)) -> Duration {
    let t = Instant::now();
    for i in 0..n {
        op(i).await;
    }
    t.elapsed()
}

/// One line of the table: `ours` against `base`.
struct Row {
    what: &'static str,
    ours: Cost,
    base: Cost,
    /// Read (RCU) or write (WCU) capacity.
    read: bool,
    /// ours / base wall time, if timed.
    time: Option<f64>,
}

impl Row {
    fn print(&self, rules_hold: bool) {
        let (unit, ours, base) = if self.read {
            ("RCU", self.ours.read, self.base.read)
        } else {
            ("WCU", self.ours.write, self.base.write)
        };
        let capacity = if self.ours.reported && self.base.reported {
            let mark = if rules_hold {
                ""
            } else {
                " (not DynamoDB's rules)"
            };
            format!("{unit} {:.1}x ({ours} / {base}){mark}", ours / base)
        } else {
            format!("{unit} not reported by the server")
        };
        let time = self
            .time
            .map_or("-".to_owned(), |ratio| format!("{ratio:.2}x"));
        println!("{}", self.what);
        println!(
            "    requests {:.1}x ({} / {}) | {capacity} | time {time}",
            self.ours.requests / self.base.requests,
            self.ours.sent,
            self.base.sent,
        );
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = quick();
    let n = if quick { 10 } else { 100 };
    let rounds = if quick { 1 } else { 9 };
    let bench = harness::table(&[Customer::MODEL, PlainCustomer::MODEL, Counter::MODEL]).await;
    let server = match &bench.server {
        Some(_) => "the embedded server (dynoxide)".to_owned(),
        None => format!("{} ({ENDPOINT_VARIABLE})", bench.endpoint()),
    };
    let client = &bench.client;
    let meter = Meter::start(&bench.endpoint(), client.table()).await;

    // Is the server's capacity DynamoDB's?
    let checks = check_capacity_rules(&meter).await;
    let rules_hold = checks.iter().all(|c| c.reported == Some(c.expected));

    // Requests and capacity: `n` operations of each, through the proxy.
    let metered = &meter.client;
    let metered_off = metered.clone().with_exactly_once(false);
    let f = Counter::fields();
    let create = meter
        .cost(n, async |i| {
            metered.create(&customer(0, i)).await.expect("create");
        })
        .await;
    let put = meter
        .cost(n, async |i| {
            metered.put(&plain_customer(0, i)).await.expect("put");
        })
        .await;
    let add_on = meter
        .cost(n, async |_| {
            let add = metered.update(Counter::key("metered-on")).add(f.n, 1u64);
            add.await.expect("add");
        })
        .await;
    let add_off = meter
        .cost(n, async |_| {
            let add = metered_off
                .update(Counter::key("metered-off"))
                .add(f.n, 1u64);
            add.await.expect("add");
        })
        .await;
    let stored = metered.create(&customer(0, n)).await.expect("create");
    let key = Customer::key(stored.customer_id.as_str());
    let by_email = || Customer::by_email(&stored.email);
    let unique = meter
        .cost(n, async |_| {
            let found = metered.get_unique(by_email()).await.expect("get_unique");
            assert!(found.is_some());
        })
        .await;
    let get = meter
        .cost(n, async |_| {
            let found = metered.get(key.clone()).await.expect("get");
            assert!(found.is_some());
        })
        .await;
    let get_consistent = meter
        .cost(n, async |_| {
            let found = metered.get(key.clone()).consistent_read(true).await;
            assert!(found.expect("get").is_some());
        })
        .await;

    // Times: `n` operations of each per round, straight to the server.
    let off = client.clone().with_exactly_once(false);
    let (t_create, t_put) = alternating(
        rounds,
        async |round| {
            let customers: Vec<Customer> = (0..n).map(|i| customer(round + 1, i)).collect();
            timed(n, async |i| {
                client.create(&customers[i]).await.expect("create");
            })
            .await
        },
        async |round| {
            let customers: Vec<PlainCustomer> =
                (0..n).map(|i| plain_customer(round + 1, i)).collect();
            timed(n, async |i| {
                client.put(&customers[i]).await.expect("put");
            })
            .await
        },
    )
    .await;
    let (t_add_on, t_add_off) = alternating(
        rounds,
        async |round| {
            let key = format!("on-{round}");
            timed(n, async |_| {
                let add = client.update(Counter::key(key.as_str())).add(f.n, 1u64);
                add.await.expect("add");
            })
            .await
        },
        async |round| {
            let key = format!("off-{round}");
            timed(n, async |_| {
                let add = off.update(Counter::key(key.as_str())).add(f.n, 1u64);
                add.await.expect("add");
            })
            .await
        },
    )
    .await;
    let (t_unique, t_get) = alternating(
        rounds,
        async |_| {
            timed(n, async |_| {
                client.get_unique(by_email()).await.expect("get_unique");
            })
            .await
        },
        async |_| {
            timed(n, async |_| {
                client.get(key.clone()).await.expect("get");
            })
            .await
        },
    )
    .await;
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();

    println!("== integrity costs on {server} ==");
    println!(
        "requests and capacity: average of {n} operations each, counted by a metering proxy; \
         time: median of {rounds} alternating rounds of {n}, no proxy{}",
        if quick { " (quick run)" } else { "" }
    );
    println!("capacity rules (1 WCU per KB written, 2 in a transaction; 1 RCU per 4 KB consistent read, half eventually consistent):");
    for check in &checks {
        let verdict = match check.reported {
            Some(units) if units == check.expected => format!("{units} (follows)"),
            Some(units) => format!("{units} (DynamoDB: {})", check.expected),
            None => "not reported".to_owned(),
        };
        println!("    {:<40} {verdict}", check.what);
    }
    if rules_hold {
        println!("    -> this server's capacity follows DynamoDB's rules");
    } else {
        println!(
            "    -> this server's capacity does NOT follow DynamoDB's rules: its numbers below are \
             marked, and are not what DynamoDB would charge"
        );
        if bench.server.is_some() {
            println!(
                "       measure capacity against another server: \
                 bash .ci/dynamodb-local.sh run cargo bench -p entity-tests --bench integrity"
            );
        }
    }
    println!("ratios (with the feature / without):");
    let rows = [
        Row {
            what: "create (version, created_at, updated_at, ulid id, 1 unique) / plain put",
            ours: create,
            base: put,
            read: false,
            time: Some(ratio(t_create, t_put)),
        },
        Row {
            what: "update().add(n, 1): exactly-once on / off",
            ours: add_on,
            base: add_off,
            read: false,
            time: Some(ratio(t_add_on, t_add_off)),
        },
        Row {
            what: "get_unique(by_email) / get(key)",
            ours: unique.clone(),
            base: get,
            read: true,
            time: Some(ratio(t_unique, t_get)),
        },
        Row {
            what: "get_unique(by_email) / get(key).consistent_read(true)",
            ours: unique,
            base: get_consistent,
            read: true,
            time: None,
        },
    ];
    for row in &rows {
        row.print(rules_hold);
    }
}
