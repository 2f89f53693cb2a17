//! Sending one item's write so that no retry applies it twice.
//!
//! The SDK retries a request whose response was lost (a 500, a dropped
//! connection). For a write that is idempotent (a blind put or delete, an
//! update that only sets values) a repeat changes nothing, so it goes as a
//! plain single-item call. Any other write (a create, a conditional or
//! versioned write, an `add`, a `remove`, a write with unique sentinels)
//! goes through `TransactWriteItems` with a client request token: the SDK's
//! retry resends the same token, and DynamoDB applies a token once within
//! ten minutes, answering the repeat with the first call's success.
//!
//! A write that is not idempotent but asks for the item back (`return_new`,
//! ...) must be a single-item call, since only those return items. It is
//! sent without the SDK's retries for failures that might have been applied
//! (5xx, lost connections, timeouts): those fail with
//! [`Error::OutcomeUnknown`]. Throttles, which apply nothing, are retried.
//!
//! A transaction whose every attempt lost its response fails with
//! `OutcomeUnknown` too, carrying its token: resent with that token within
//! ten minutes, it is applied at most once.

use super::{Companion, Conditional, Expressions};
use crate::error::{from_sdk, CancellationReason, Error, Result};
use crate::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::error::SdkError as RawSdkError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, Put, ReturnValue, TransactWriteItem, Update,
};
use entity_core::{Entity, Item};

/// What a write does to its item.
#[derive(Debug, Clone)]
pub(crate) enum Action {
    /// PutItem.
    Put { item: Item },
    /// UpdateItem.
    Update { key: Item, expression: String },
    /// DeleteItem.
    Delete { key: Item },
}

/// One item's write and how it may be sent.
#[derive(Debug)]
pub(crate) struct SingleWrite {
    pub entity: &'static str,
    pub action: Action,
    pub expressions: Expressions,
    /// A repeat of the write changes nothing more and reports the same.
    pub idempotent: bool,
    pub return_value: ReturnValue,
    pub companions: Vec<Companion>,
    /// The caller's client request token.
    pub token: Option<String>,
    /// A tenant client's guard: the write touches only an item that is
    /// absent or of this entity. Rendered into the condition when sent,
    /// but not a condition of the caller's: it leaves `idempotent` (and so
    /// the route) as it is, since a repeat after success meets the same
    /// entity, or no item, again.
    pub identity: Option<IdentityGuard>,
}

/// The condition `attribute_not_exists(<pk>) OR <identity> = <entity>`: an
/// item of another entity whose key format spells the same key (another
/// tenant's, `ORG#{tenant}` and `ORG#X{tenant}`) is not written over.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IdentityGuard {
    pk: &'static str,
    attribute: &'static str,
    name: &'static str,
}

/// The guard's placeholders: the `#n<i>`/`:v<i>` of rendered expressions
/// never take these.
const GUARD_PK: &str = "#identity_guard_pk";
const GUARD_ATTRIBUTE: &str = "#identity_guard";
const GUARD_VALUE: &str = ":identity_guard";

impl IdentityGuard {
    /// `E`'s guard, if `guarded`.
    pub(crate) fn of<E: Entity>(guarded: bool) -> Option<Self> {
        guarded.then_some(Self {
            pk: E::MODEL.primary.pk.attribute,
            attribute: E::MODEL.identity_attribute,
            name: E::MODEL.name,
        })
    }

    /// Whether `item` (a stored item) is another entity's.
    pub(crate) fn is_foreign(&self, item: &Item) -> bool {
        !matches!(item.get(self.attribute), Some(AttributeValue::S(name)) if name == self.name)
    }

    /// The expressions with the guard ANDed to their condition.
    pub(crate) fn render(&self, mut expressions: Expressions) -> Expressions {
        let guard =
            format!("(attribute_not_exists({GUARD_PK}) OR {GUARD_ATTRIBUTE} = {GUARD_VALUE})");
        expressions.condition = Some(match expressions.condition.take() {
            // As `Condition::and` renders: the condition is one operand
            // already (a comparison, a function, or parenthesized).
            Some(condition) => format!("({condition} AND {guard})"),
            None => guard,
        });
        let names = expressions.names.get_or_insert_with(Default::default);
        names.insert(GUARD_PK.to_owned(), self.pk.to_owned());
        names.insert(GUARD_ATTRIBUTE.to_owned(), self.attribute.to_owned());
        expressions
            .values
            .get_or_insert_with(Default::default)
            .insert(
                GUARD_VALUE.to_owned(),
                AttributeValue::S(self.name.to_owned()),
            );
        expressions
    }

    /// A refusal by the guard (the stored item is another entity's) as
    /// `Error::TenantMismatch`, without the foreign item; any other error
    /// as it is.
    pub(crate) fn refusal(&self, client: &Client, error: Error) -> Error {
        match &error {
            Error::ConditionFailed { old: Some(old), .. } if self.is_foreign(old) => {
                self.mismatch(client)
            }
            _ => error,
        }
    }

    /// The refusal of a write whose key holds another entity's item: the
    /// key is not this tenant's (whose item it is, is not said).
    pub(crate) fn mismatch(&self, client: &Client) -> Error {
        Error::TenantMismatch {
            expected: client.scoped_tenant().unwrap_or_default().to_owned(),
            found: None,
        }
    }
}

impl SingleWrite {
    pub(crate) fn new(entity: &'static str, action: Action, expressions: Expressions) -> Self {
        Self {
            entity,
            action,
            expressions,
            idempotent: false,
            return_value: ReturnValue::None,
            companions: Vec::new(),
            token: None,
            identity: None,
        }
    }

    fn operation(&self) -> &'static str {
        match self.action {
            Action::Put { .. } => "PutItem",
            Action::Update { .. } => "UpdateItem",
            Action::Delete { .. } => "DeleteItem",
        }
    }
}

/// How a write is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// A single-item call with the SDK's retries.
    Plain,
    /// A single-item call retried only where nothing was applied.
    AtMostOnce,
    /// A one-item (or item-and-sentinels) transaction with a token.
    Transaction,
}

fn route(client: &Client, write: &SingleWrite) -> Result<Route> {
    let returns = write.return_value != ReturnValue::None;
    if returns && (write.token.is_some() || !write.companions.is_empty()) {
        return Err(crate::ValidationError::InvalidRequest(format!(
            "a {} write that returns the item must be a single-item call, which cannot carry {}",
            write.entity,
            if write.token.is_some() {
                "an idempotency token"
            } else {
                "the unique sentinels or history snapshots this write moves"
            }
        ))
        .into());
    }
    // A repeat of an idempotent write changes nothing, but the item it
    // returns as it was before is the first attempt's result.
    let returns_old = matches!(
        write.return_value,
        ReturnValue::AllOld | ReturnValue::UpdatedOld
    );
    let idempotent = write.idempotent && !returns_old;
    let transaction = !write.companions.is_empty() || write.token.is_some();
    if transaction {
        client.require(
            |c| c.transactions,
            "TransactWriteItems",
            "unique constraints, history snapshots and idempotency tokens are written in a transaction",
        )?;
    }
    if write.token.is_some() {
        client.require(
            |c| c.client_request_tokens,
            "idempotency tokens",
            "the engine ignores client request tokens, so a write resent with its token would apply again",
        )?;
    }
    // Exactly-once is never silently downgraded: on an engine that cannot
    // keep it, a write that relies on it is refused until the client
    // accepts at-least-once.
    if client.inner.exactly_once && (transaction || (!idempotent && !returns)) {
        client.require(
            |c| c.exactly_once(),
            "exactly-once writes",
            "they need transactions with honoured client request tokens; `with_exactly_once(false)` accepts that a write whose response is lost can apply twice",
        )?;
    }
    Ok(if transaction {
        Route::Transaction
    } else if idempotent || !client.inner.exactly_once {
        Route::Plain
    } else if returns {
        Route::AtMostOnce
    } else {
        Route::Transaction
    })
}

/// Sends the write; the returned attributes (for a single-item call that
/// asked for them).
pub(crate) async fn send(client: &Client, mut write: SingleWrite) -> Result<Option<Item>> {
    // Routed before the identity guard joins the condition: it is no
    // condition of the caller's.
    let route = route(client, &write)?;
    let identity = write.identity;
    if let Some(guard) = &identity {
        write.expressions = guard.render(std::mem::take(&mut write.expressions));
    }
    let result = match route {
        // Sent once, as the SDK retries it (awaited here rather than
        // through another future: each one made copies the SDK's inside).
        Route::Plain => single_attempt(client, write, false)
            .await
            .map_err(Attempt::into_error),
        Route::AtMostOnce => at_most_once_call(client, write).await,
        Route::Transaction => transaction(client, write).await.map(|()| None),
    };
    match identity {
        Some(guard) => result.map_err(|e| guard.refusal(client, e)),
        None => result,
    }
}

/// Sends one PutItem, UpdateItem or DeleteItem that must not be applied
/// twice: without the SDK's retries, resending (under the batch policy)
/// only what a throttle refused, which applied nothing.
async fn at_most_once_call(client: &Client, write: SingleWrite) -> Result<Option<Item>> {
    // The SDK consumes what it sends: an attempt that may be followed by
    // another sends a copy, the last one the write itself.
    let policy = client.inner.batch;
    for attempt in 1..policy.max_attempts.max(1) {
        match single_attempt(client, write.attempt_copy(), true).await {
            Err(Attempt::Throttled(_)) => tokio::time::sleep(policy.backoff(attempt)).await,
            other => return other.map_err(Attempt::into_error),
        }
    }
    single_attempt(client, write, true)
        .await
        .map_err(Attempt::into_error)
}

/// Why one attempt failed: a throttle (nothing applied), or anything else.
enum Attempt {
    Throttled(Error),
    Failed(Error),
}

impl Attempt {
    fn into_error(self) -> Error {
        match self {
            Attempt::Throttled(e) | Attempt::Failed(e) => e,
        }
    }
}

impl SingleWrite {
    /// A copy of what a single-item call sends (which carries no
    /// companions).
    fn attempt_copy(&self) -> Self {
        Self {
            entity: self.entity,
            action: self.action.clone(),
            expressions: self.expressions.clone(),
            idempotent: self.idempotent,
            return_value: self.return_value.clone(),
            companions: Vec::new(),
            token: self.token.clone(),
            identity: self.identity,
        }
    }
}

/// One request. Without the SDK's retries when `at_most_once`: a failure
/// that might have been applied is `OutcomeUnknown`.
async fn single_attempt(
    client: &Client,
    write: SingleWrite,
    at_most_once: bool,
) -> std::result::Result<Option<Item>, Attempt> {
    let sdk = &client.inner.sdk;
    let table = client
        .checked_table()
        .map_err(|e| Attempt::Failed(e.into()))?;
    let (operation, entity) = (write.operation(), write.entity);
    // `NONE` is DynamoDB's default: not sent.
    let return_value = Some(write.return_value).filter(|r| *r != ReturnValue::None);
    let expressions = write.expressions;
    macro_rules! send {
        ($builder:expr) => {{
            let builder = $builder
                .table_name(table)
                .expressions(expressions)
                .set_return_values(return_value);
            let result = if at_most_once {
                builder
                    .customize()
                    .config_override(
                        aws_sdk_dynamodb::config::Builder::default()
                            .retry_config(RetryConfig::disabled()),
                    )
                    .send()
                    .await
            } else {
                builder.send().await
            };
            result
                .map(|output| output.attributes)
                .map_err(|e| classify(operation, entity, e, at_most_once))
        }};
    }
    match write.action {
        Action::Put { item } => send!(sdk.put_item().set_item(Some(item))),
        Action::Update { key, expression } => send!(sdk
            .update_item()
            .set_key(Some(key))
            .update_expression(expression)),
        Action::Delete { key } => send!(sdk.delete_item().set_key(Some(key))),
    }
}

/// Our error for a failed single-item call.
fn classify<E, R>(
    operation: &'static str,
    entity: &'static str,
    error: RawSdkError<E, R>,
    at_most_once: bool,
) -> Attempt
where
    crate::SdkError: From<RawSdkError<E, R>>,
    R: HttpStatus,
{
    let unknown = at_most_once && might_have_applied(&error);
    let error = from_sdk(operation, entity, error);
    match error {
        Error::Throttled { .. } => Attempt::Throttled(error),
        Error::Service { source, .. } if unknown => Attempt::Failed(Error::OutcomeUnknown {
            operation,
            entity,
            token: None,
            source,
        }),
        other => Attempt::Failed(other),
    }
}

/// The status of a raw response.
pub(crate) trait HttpStatus {
    fn is_server_error(&self) -> bool;
}

impl HttpStatus for aws_sdk_dynamodb::config::http::HttpResponse {
    fn is_server_error(&self) -> bool {
        self.status().is_server_error()
    }
}

/// Whether the server may have applied a request that failed this way: a
/// 5xx, a failure while sending or reading, a timeout. (A request never
/// built, or refused with a 4xx, was not applied.)
fn might_have_applied<E, R: HttpStatus>(error: &RawSdkError<E, R>) -> bool {
    match error {
        RawSdkError::ConstructionFailure(_) => false,
        RawSdkError::ServiceError(e) => e.raw().is_server_error(),
        _ => true,
    }
}

/// Our error for a failed TransactWriteItems sent with `token`: one that
/// might have been applied (every attempt's response lost, or another
/// attempt with the token still under way) is `OutcomeUnknown`, with the
/// token the caller can resend it with to apply it at most once.
pub(crate) fn transaction_error<E, R>(
    entity: &'static str,
    token: String,
    error: RawSdkError<E, R>,
) -> Error
where
    crate::SdkError: From<RawSdkError<E, R>>,
    R: HttpStatus,
{
    let lost = might_have_applied(&error);
    match from_sdk("TransactWriteItems", entity, error) {
        Error::Service { source, .. }
            if lost || matches!(*source, crate::SdkError::TransactionInProgressException(_)) =>
        {
            Error::OutcomeUnknown {
                operation: "TransactWriteItems",
                entity,
                token: Some(token),
                source,
            }
        }
        other => other,
    }
}

/// Attempts at a one-item transaction canceled by a conflict with another
/// transaction (nothing was applied, so it is safe to resend).
const CONFLICT_ATTEMPTS: u32 = 8;

/// Sends the write and its companions as one transaction with a token.
async fn transaction(client: &Client, write: SingleWrite) -> Result<()> {
    let table = client.checked_table()?.to_owned();
    let entity = write.entity;
    let caller_token = write.token.clone();
    check_items(&write)?;
    let items = transact_items(&table, write.action, write.expressions, &write.companions)?;
    let policy = client.inner.batch;
    let mut attempt = 0;
    loop {
        attempt += 1;
        // A fresh token per attempt of ours: a canceled attempt applied
        // nothing. The SDK's own retries of one attempt reuse its token.
        let token = caller_token.clone().unwrap_or_else(new_token);
        let result = client
            .inner
            .sdk
            .transact_write_items()
            .set_transact_items(Some(items.clone()))
            .client_request_token(&token)
            .send()
            .await
            .map_err(|e| transaction_error(entity, token, e));
        match result {
            Ok(_) => return Ok(()),
            Err(Error::TransactionCanceled { reasons, source }) => {
                if is_conflict_only(&reasons) && attempt < CONFLICT_ATTEMPTS {
                    tokio::time::sleep(policy.backoff(attempt)).await;
                    continue;
                }
                return Err(canceled(entity, &write.companions, reasons, source));
            }
            Err(other) => return Err(other),
        }
    }
}

/// The transaction's items: the write first, then its companions.
fn transact_items(
    table: &str,
    action: Action,
    expressions: Expressions,
    companions: &[Companion],
) -> Result<Vec<TransactWriteItem>> {
    let first = transact_item(table, action, expressions)?;
    Ok(std::iter::once(first)
        .chain(companions.iter().map(|c| c.item.clone()))
        .collect())
}

impl SingleWrite {
    /// The write as a transaction's item, its identity guard rendered, and
    /// the companions that go with it (a transaction's whole write:
    /// assembled as a single write is, sent as part of a larger request).
    pub(crate) fn into_transact_items(
        self,
        table: &str,
    ) -> Result<(TransactWriteItem, Vec<Companion>)> {
        let expressions = match self.identity {
            Some(guard) => guard.render(self.expressions),
            None => self.expressions,
        };
        Ok((
            transact_item(table, self.action, expressions)?,
            self.companions,
        ))
    }
}

/// One write as a transaction item.
pub(crate) fn transact_item(
    table: &str,
    action: Action,
    expressions: Expressions,
) -> Result<TransactWriteItem> {
    let invalid = |e: aws_sdk_dynamodb::error::BuildError| {
        Error::from(crate::ValidationError::InvalidRequest(e.to_string()))
    };
    let item = TransactWriteItem::builder();
    Ok(match action {
        Action::Put { item: put } => item.put(
            Put::builder()
                .table_name(table)
                .set_item(Some(put))
                .expressions(expressions)
                .build()
                .map_err(invalid)?,
        ),
        Action::Update { key, expression } => item.update(
            Update::builder()
                .table_name(table)
                .set_key(Some(key))
                .update_expression(expression)
                .expressions(expressions)
                .build()
                .map_err(invalid)?,
        ),
        Action::Delete { key } => item.delete(
            Delete::builder()
                .table_name(table)
                .set_key(Some(key))
                .expressions(expressions)
                .build()
                .map_err(invalid)?,
        ),
    }
    .build())
}

/// The write and its sentinels must fit in one transaction.
fn check_items(write: &SingleWrite) -> Result<()> {
    let count = 1 + write.companions.len();
    if count > crate::limits::MAX_TRANSACTION_ITEMS {
        return Err(crate::ValidationError::TooManyTransactionItems {
            count,
            limit: crate::limits::MAX_TRANSACTION_ITEMS,
        }
        .into());
    }
    if let Some(token) = &write.token {
        crate::limits::check_idempotency_token(token)?;
    }
    Ok(())
}

fn is_conflict_only(reasons: &[CancellationReason]) -> bool {
    let failed = |r: &&CancellationReason| r.code.as_deref().is_some_and(|c| c != "None");
    let mut failures = reasons.iter().filter(failed).peekable();
    failures.peek().is_some() && failures.all(|r| r.code.as_deref() == Some("TransactionConflict"))
}

/// What a canceled one-write transaction means: the write's own condition
/// failed (as a single-item call would report it), a sentinel's value is
/// taken, or the raw reasons.
pub(crate) fn canceled(
    entity: &'static str,
    companions: &[Companion],
    reasons: Vec<CancellationReason>,
    source: Box<crate::SdkError>,
) -> Error {
    for reason in reasons.iter().filter(|r| r.is_condition_failed()) {
        if reason.index == 0 {
            return Error::ConditionFailed {
                entity,
                why: crate::error::FailedCondition::Condition,
                old: reason.item.clone().map(Box::new),
                source,
            };
        }
        let companion = companions.get(reason.index - 1);
        if let Some((constraint, value)) = companion.and_then(|c| c.violation.clone()) {
            return Error::UniqueViolation {
                entity,
                constraint,
                value,
            };
        }
        if companion.is_some_and(|c| c.slot) {
            return Error::ConditionFailed {
                entity,
                why: crate::error::FailedCondition::Condition,
                old: reason.item.clone().map(Box::new),
                source,
            };
        }
    }
    Error::TransactionCanceled { reasons, source }
}

/// A new random client request token (32 hex digits, within DynamoDB's 36).
pub(crate) fn new_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> IdentityGuard {
        IdentityGuard {
            pk: "pk",
            attribute: "__entity",
            name: "Note",
        }
    }

    #[test]
    fn the_identity_guard_joins_the_condition_as_an_operand() {
        let alone = guard().render(Expressions::default());
        assert_eq!(
            alone.condition.as_deref(),
            Some("(attribute_not_exists(#identity_guard_pk) OR #identity_guard = :identity_guard)")
        );
        let names = alone.names.unwrap_or_default();
        assert_eq!(names.get(GUARD_PK).map(String::as_str), Some("pk"));
        assert_eq!(
            names.get(GUARD_ATTRIBUTE).map(String::as_str),
            Some("__entity")
        );
        let values = alone.values.unwrap_or_default();
        assert_eq!(
            values.get(GUARD_VALUE),
            Some(&AttributeValue::S("Note".into()))
        );

        let user = Expressions {
            condition: Some("attribute_exists(#n0)".into()),
            names: Some([("#n0".to_owned(), "pk".to_owned())].into()),
            values: None,
        };
        let both = guard().render(user);
        assert_eq!(
            both.condition.as_deref(),
            Some("(attribute_exists(#n0) AND (attribute_not_exists(#identity_guard_pk) OR #identity_guard = :identity_guard))")
        );
        assert_eq!(both.names.map(|n| n.len()), Some(3));
    }

    #[test]
    fn only_an_item_of_another_entity_is_foreign() {
        let item =
            |name: &str| Item::from([("__entity".to_owned(), AttributeValue::S(name.into()))]);
        assert!(!guard().is_foreign(&item("Note")));
        assert!(guard().is_foreign(&item("Memo")));
        assert!(guard().is_foreign(&item("Note#history")));
        assert!(guard().is_foreign(&Item::new()));
    }
}
