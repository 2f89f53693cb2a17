//! The engine probe: what the endpoint behind a client can do, found by
//! harmless calls on a scratch key of the client's table
//! ([`Client::probe`]), instead of declared by hand.
//!
//! Exactly-once writes stand on DynamoDB applying a `TransactWriteItems`
//! once per client request token. An engine that accepts tokens and
//! ignores them (the moto server) would turn every lost response into a
//! write applied twice, or a create reported as a conflict with itself;
//! the probe finds that out by sending one transaction twice.

use crate::error::{from_sdk, Result};
use crate::{Capabilities, Client};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeValue, KeyType, Put, ScalarAttributeType, TableDescription, TransactWriteItem,
};
use std::collections::HashMap;
use std::fmt;

/// What [`Client::probe`] found: the capabilities to run with, and each
/// check with its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Probe {
    /// The client's capabilities with what the probe found in place of
    /// what was declared (an `Unknown` check keeps the declared value).
    pub capabilities: Capabilities,
    /// Every check, in the order run.
    pub checks: Vec<ProbeCheck>,
}

/// One check of a [`Probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProbeCheck {
    /// The capability (`"transactions"`, `"client request tokens"`,
    /// `"ttl"`, `"multi-attribute keys"`).
    pub capability: &'static str,
    /// What the probe saw.
    pub outcome: Outcome,
}

/// What one check of a [`Probe`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The engine did it.
    Supported,
    /// The engine refused it or got it wrong; why.
    Missing(String),
    /// Not found out without changing the table; the declared value is
    /// kept. Why.
    Unknown(String),
}

impl fmt::Display for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for check in &self.checks {
            match &check.outcome {
                Outcome::Supported => writeln!(f, "{}: supported", check.capability)?,
                Outcome::Missing(why) => writeln!(f, "{}: missing ({why})", check.capability)?,
                Outcome::Unknown(why) => writeln!(f, "{}: unknown ({why})", check.capability)?,
            }
        }
        Ok(())
    }
}

impl<S: crate::scoping::Scope> Client<S> {
    /// Finds out what the engine behind this client can do, by harmless
    /// calls on the client's table: a scratch item (a fresh `$probe#..`
    /// key, deleted afterwards) written by one transaction sent twice with
    /// the same client request token, and `DescribeTable` /
    /// `DescribeTimeToLive`. Run it once at start-up or in a test and keep
    /// the result with [`Client::with_capabilities`]: on an engine that
    /// ignores tokens, exactly-once writes are then refused
    /// ([`Error::Unsupported`](crate::Error::Unsupported)) rather than
    /// silently repeated.
    ///
    /// ```
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use entity_client::{Entity, EmbeddedDynamo};
    ///
    /// #[derive(Entity)]
    /// #[entity(schema = "app")]
    /// #[pk(id)]
    /// struct Task { id: String }
    ///
    /// let server = EmbeddedDynamo::start().await?;
    /// let client = server.client("app");
    /// client.create_table(&[Task::MODEL]).await?;
    ///
    /// let probe = client.probe().await?;
    /// assert!(probe.capabilities.exactly_once(), "{probe}");
    /// let client = client.with_capabilities(probe.capabilities);
    /// # let _ = client; Ok(()) }
    /// # #[cfg(not(feature = "embedded"))]
    /// # fn main() {}
    /// ```
    pub async fn probe(&self) -> Result<Probe> {
        let table = self.checked_table()?.to_owned();
        let sdk = &self.inner.sdk;
        let description = sdk
            .describe_table()
            .table_name(&table)
            .send()
            .await
            .map_err(|e| from_sdk("DescribeTable", "probe", e).in_table(&table))?
            .table
            .unwrap_or_else(|| TableDescription::builder().build());
        let mut checks = Vec::new();
        let key = scratch_key(&description);
        let (transactions, tokens) = transactions_and_tokens(sdk, &table, &key).await;
        // Whatever the transactions did, the scratch item goes.
        let deleted = sdk
            .delete_item()
            .table_name(&table)
            .set_key(Some(key))
            .send()
            .await;
        deleted.map_err(|e| from_sdk("DeleteItem", "probe", e).in_table(&table))?;
        checks.push(ProbeCheck {
            capability: "transactions",
            outcome: transactions,
        });
        checks.push(ProbeCheck {
            capability: "client request tokens",
            outcome: tokens,
        });
        checks.push(ProbeCheck {
            capability: "ttl",
            outcome: ttl(sdk, &table).await,
        });
        checks.push(ProbeCheck {
            capability: "multi-attribute keys",
            outcome: multi_attribute_keys(&description),
        });
        let mut capabilities = self.inner.capabilities;
        for check in &checks {
            let found = match check.outcome {
                Outcome::Supported => true,
                Outcome::Missing(_) => false,
                Outcome::Unknown(_) => continue,
            };
            let slot = match check.capability {
                "transactions" => &mut capabilities.transactions,
                "client request tokens" => &mut capabilities.client_request_tokens,
                "ttl" => &mut capabilities.ttl,
                _ => &mut capabilities.multi_attribute_keys,
            };
            *slot = found;
        }
        Ok(Probe {
            capabilities,
            checks,
        })
    }
}

/// A fresh key of the table's key schema, in no entity's key space.
fn scratch_key(description: &TableDescription) -> HashMap<String, AttributeValue> {
    let id = super::single::new_token();
    let types: HashMap<&str, &ScalarAttributeType> = description
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name(), d.attribute_type()))
        .collect();
    description
        .key_schema()
        .iter()
        .map(|element| {
            let name = element.attribute_name();
            let value = match types.get(name) {
                Some(ScalarAttributeType::N) => {
                    // 30 digits from the token's hex, in no entity's range.
                    let digits: String = id
                        .bytes()
                        .take(30)
                        .map(|b| char::from(b'0' + b % 10))
                        .collect();
                    AttributeValue::N(format!("-9{digits}"))
                }
                Some(ScalarAttributeType::B) => {
                    AttributeValue::B(format!("$probe#{id}").into_bytes().into())
                }
                _ => AttributeValue::S(format!("$probe#{id}")),
            };
            (name.to_owned(), value)
        })
        .collect()
}

/// One transaction putting the scratch item only where it is absent, sent
/// twice with one token: the second send succeeds where the token is
/// honoured, and fails on its condition where it is ignored.
async fn transactions_and_tokens(
    sdk: &aws_sdk_dynamodb::Client,
    table: &str,
    key: &HashMap<String, AttributeValue>,
) -> (Outcome, Outcome) {
    let Some(attribute) = key.keys().next() else {
        let why = "the table has no key schema".to_owned();
        return (Outcome::Unknown(why.clone()), Outcome::Unknown(why));
    };
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(key.clone()))
        .condition_expression("attribute_not_exists(#k)")
        .expression_attribute_names("#k", attribute)
        .build();
    let item = match put {
        Ok(put) => TransactWriteItem::builder().put(put).build(),
        Err(e) => {
            let why = e.to_string();
            return (Outcome::Unknown(why.clone()), Outcome::Unknown(why));
        }
    };
    let token = super::single::new_token();
    let send = || {
        sdk.transact_write_items()
            .transact_items(item.clone())
            .client_request_token(&token)
            .send()
    };
    if let Err(e) = send().await {
        let why = format!(
            "TransactWriteItems failed: {}",
            e.message().or(e.code()).unwrap_or("no message")
        );
        let tokens = Outcome::Unknown("no transaction went through".to_owned());
        return (Outcome::Missing(why), tokens);
    }
    let tokens = match send().await {
        Ok(_) => Outcome::Supported,
        Err(e) if e.code() == Some("TransactionCanceledException") => Outcome::Missing(
            "a transaction resent with its client request token applied again (its condition failed)"
                .to_owned(),
        ),
        Err(e) => Outcome::Unknown(format!(
            "the resent transaction failed: {}",
            e.message().or(e.code()).unwrap_or("no message")
        )),
    };
    (Outcome::Supported, tokens)
}

async fn ttl(sdk: &aws_sdk_dynamodb::Client, table: &str) -> Outcome {
    match sdk.describe_time_to_live().table_name(table).send().await {
        Ok(_) => Outcome::Supported,
        Err(e) => Outcome::Missing(format!(
            "DescribeTimeToLive failed: {}",
            e.message().or(e.code()).unwrap_or("no message")
        )),
    }
}

/// Seen only on an index the table already has: making one to find out
/// would change the table.
fn multi_attribute_keys(description: &TableDescription) -> Outcome {
    let several = description.global_secondary_indexes().iter().any(|index| {
        let count = |kind: KeyType| {
            index
                .key_schema()
                .iter()
                .filter(|e| *e.key_type() == kind)
                .count()
        };
        count(KeyType::Hash) > 1 || count(KeyType::Range) > 1
    });
    if several {
        Outcome::Supported
    } else {
        Outcome::Unknown("no index of the table has a multi-attribute key".to_owned())
    }
}
