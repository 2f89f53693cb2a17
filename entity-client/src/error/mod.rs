//! One error type for every operation, saying what happened to the data.

use entity_core::{AttributeError, DecodeError, EncodeError, Item};
use std::fmt;

pub(crate) mod stream;

/// Which condition of a write failed ([`Error::ConditionFailed`]), as far
/// as the stored item tells.
///
/// ```
/// use entity_client::FailedCondition;
///
/// let why = FailedCondition::Composites { differ: vec!["status"] };
/// assert!(why.to_string().contains("the stored `status` differs"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailedCondition {
    /// A `create` met an item with its key, or a `rekey` an item at the
    /// new key.
    Exists,
    /// A group setter (`Task::set_status_priority(..)`) met stored
    /// composites other than the ones it was given: these fields differ.
    /// It recomposes index keys from the values given, so it writes only
    /// over an item that holds them.
    Composites {
        /// The fields whose stored values differ from the ones given.
        differ: Vec<&'static str>,
    },
    /// The caller's condition (or one the client cannot tell apart).
    Condition,
}

impl fmt::Display for FailedCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailedCondition::Exists => f.write_str(
                "an item with this key exists (a create, or a rekey onto this key, writes only where no item is: `put` replaces one, `upsert` merges into it)",
            ),
            FailedCondition::Composites { differ } => {
                let names: Vec<String> = differ.iter().map(|d| format!("`{d}`")).collect();
                let verb = if differ.len() == 1 { "differs" } else { "differ" };
                write!(
                    f,
                    "the stored {} {verb} from the value given to the group setter, which recomposes index keys from it: pass the stored value (read the item first)",
                    names.join(", ")
                )
            }
            FailedCondition::Condition => {
                f.write_str("its condition did not hold (the stored item is in `Error::old_item`)")
            }
        }
    }
}

/// The SDK's error for any operation, kept as the source of ours.
pub type SdkError = aws_sdk_dynamodb::Error;

/// What went wrong with an operation.
///
/// The variants say what happened to the data; the SDK error, where there is
/// one, is the [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A write's condition did not hold; nothing was written. `why` says
    /// which condition, as far as the stored item tells; `old` is the item
    /// as it was, when DynamoDB returned it.
    #[error("condition failed on a {entity} write, nothing was written: {why}")]
    ConditionFailed {
        /// The entity written.
        entity: &'static str,
        /// Which condition failed.
        why: FailedCondition,
        /// The stored item at the time, if any.
        old: Option<Box<Item>>,
        /// The SDK error.
        #[source]
        source: Box<SdkError>,
    },
    /// The item's optimistic-lock version was not the one the write
    /// expected: another write came first. Nothing was written; read the
    /// item again and retry.
    #[error("version conflict on {entity}: expected version {expected}, found {}", describe_found(*found))]
    VersionConflict {
        /// The entity written.
        entity: &'static str,
        /// The version the write expected (0: that the item did not exist).
        expected: u64,
        /// The stored version (`None`: there is no item).
        found: Option<u64>,
        /// The stored item, when DynamoDB returned it.
        current: Option<Box<Item>>,
    },
    /// A unique constraint holds this value for another item. Nothing was
    /// written.
    #[error("{entity}.{constraint} is unique and {value:?} is taken")]
    UniqueViolation {
        /// The entity written.
        entity: &'static str,
        /// The constraint's name (`email`).
        constraint: &'static str,
        /// The value, as the constraint composes it (lowercased when
        /// case-insensitive; a tenant entity's after its tenant:
        /// `acme#ada@example.com`).
        value: String,
    },
    /// A write that is not idempotent lost its response (a 5xx, a dropped
    /// connection, a timeout; or its token's first request is still under
    /// way): it may or may not have been applied.
    ///
    /// A write that asked for the item back went as a single-item call,
    /// which is not retried so that it cannot apply twice: `token` is
    /// `None`; read the item to see.
    ///
    /// Any other (a one-item `TransactWriteItems`, or a `transact_write()`)
    /// went with a client request token, which the SDK's retries resent,
    /// and every attempt's response was lost: `token` is that token. Resend
    /// the same write with `.idempotency_token(token)` within ten minutes of
    /// the first attempt and DynamoDB applies it at most once, answering a
    /// resend of an applied write with success. (A resend that stamped
    /// other timestamps or generated ids is [`Error::TokenReused`], not
    /// applied.)
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity, Error};
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, views: u32 }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let f = Doc::fields();
    /// let add = || client.update(Doc::key("d1")).add(f.views, 1u32);
    /// match add().await {
    ///     Err(Error::OutcomeUnknown { token: Some(token), .. }) => {
    ///         add().idempotency_token(token).await?; // applied at most once
    ///     }
    ///     other => other?,
    /// }
    /// # Ok(()) }
    /// ```
    #[error("{operation} on {entity}: the response was lost, so whether it was applied is unknown{}", match token {
        Some(_) => " (resend it with its idempotency token to apply it at most once)",
        None => " (not retried, to never apply it twice)",
    })]
    OutcomeUnknown {
        /// The operation.
        operation: &'static str,
        /// The entity written.
        entity: &'static str,
        /// The client request token the write was sent with, if it had one.
        token: Option<String>,
        /// The SDK error.
        #[source]
        source: Box<SdkError>,
    },
    /// A write was sent with an idempotency token already used, within
    /// DynamoDB's ten minutes, by a request with other values: typically a
    /// resend of a write whose timestamps or generated ids were stamped
    /// again. The first request was applied (or failed); this one was not
    /// applied. Read the item to see.
    #[error("{operation}: the idempotency token was already used by a request with other values; this one was not applied")]
    TokenReused {
        /// The operation.
        operation: &'static str,
        /// The SDK error.
        #[source]
        source: Box<SdkError>,
    },
    /// The engine the client talks to lacks what the request needs
    /// ([`Client::with_engine`](crate::Client::with_engine)); nothing was
    /// sent.
    #[error("{engine} does not support {feature}: {reason}")]
    Unsupported {
        /// The engine.
        engine: crate::Engine,
        /// What the request needed.
        feature: &'static str,
        /// Why it is needed.
        reason: &'static str,
    },
    /// A write of an entity with `#[entity(encrypt)]` fields through a
    /// client that does not encrypt: refused before sending, so nothing is
    /// stored in plain text.
    #[error("{entity} has encrypted fields and this client does not encrypt: configure it with `Client::with_encryption` (feature `encryption`)")]
    EncryptionNotConfigured {
        /// The entity.
        entity: &'static str,
    },
    /// The Database Encryption SDK refused an item or a request: a
    /// signature that does not verify (a tampered item), a key it cannot
    /// unwrap, a plain-text item where it reads only encrypted ones, or a
    /// request it cannot encrypt. Nothing was returned or written.
    #[error("{operation}: encryption: {reason}")]
    Encryption {
        /// The operation.
        operation: &'static str,
        /// What the Database Encryption SDK said.
        reason: String,
    },
    /// A read that returns whole results (`hydrate`) still had keys
    /// unprocessed when DynamoDB's retries ran out (throttling): it returns
    /// this instead of a partial result. Sending it again reads them all.
    #[error("{operation}: {keys} key(s) still unprocessed when the retries ran out; nothing partial was returned")]
    Unprocessed {
        /// The operation.
        operation: &'static str,
        /// How many keys were left.
        keys: usize,
    },
    /// The item does not exist (`patch`, `remove`).
    #[error("{entity} not found")]
    NotFound {
        /// The entity looked for.
        entity: &'static str,
    },
    /// A transaction was canceled; nothing was written. One reason per item,
    /// in request order.
    #[error("transaction canceled: {}", describe(reasons))]
    TransactionCanceled {
        /// Why each item failed (`None` code for the items that did not).
        reasons: Vec<CancellationReason>,
        /// The SDK error.
        #[source]
        source: Box<SdkError>,
    },
    /// An item read from DynamoDB could not be read as the entity.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// An entity could not be written as an item.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The request was refused before sending: a DynamoDB limit or a
    /// malformed request.
    #[error(transparent)]
    Validation(#[from] ValidationError),
    /// DynamoDB throttled the request and the SDK's retries ran out.
    #[error("{operation} was throttled and retries ran out")]
    Throttled {
        /// The operation.
        operation: &'static str,
        /// The SDK error.
        #[source]
        source: Box<SdkError>,
    },
    /// A query cursor was altered, or belongs to another query.
    #[error("invalid cursor: {reason}")]
    InvalidCursor {
        /// What did not match.
        reason: &'static str,
    },
    /// A request of a query or scan failed (after the SDK's retries) once
    /// the read had a position: `cursor` resumes it exactly after the last
    /// item the caller received, with nothing read twice and nothing
    /// skipped. Pass it to `.cursor(..)` of the same query or scan.
    ///
    /// Streams (`items`, `pages`) resume after the last item or page they
    /// yielded; reads that hand back nothing until done (`all`, one page by
    /// `.await`, `one`) resume where they began, at the cursor they were
    /// given. A read that failed at its very beginning (no cursor given,
    /// nothing delivered) returns its error as it is: sending it again is
    /// the resume. So does a parallel scan, which has no single position.
    /// The query's limit is not in the cursor: it counts again from there.
    #[error("a page failed ({source}); the error's cursor resumes after the last item delivered")]
    PageFailed {
        /// Resumes the read after the last item delivered.
        cursor: String,
        /// Why the page failed: `Throttled`, `Service`, ...
        #[source]
        source: Box<Error>,
    },
    /// A tenant client ([`Client::tenant`](crate::Client::tenant)) was
    /// handed data of another tenant, or a request naming a key of another
    /// tenant (or of none, such as a scan): nothing was sent. Also a tenant
    /// client's write whose key holds an item of another entity (a key
    /// another entity's format spells for another tenant, `ORG#{tenant}`
    /// and `ORG#X{tenant}`): its identity condition refused it, and
    /// nothing was written (`found` is `None`, and the item is not handed
    /// over).
    #[error("tenant {expected:?} cannot address {}", describe_tenant(found.as_deref()))]
    TenantMismatch {
        /// The tenant client's tenant.
        expected: String,
        /// The tenant the entity or key holds (`None`: a key that holds no
        /// tenant, a request that names no key, or a key holding another
        /// entity's item).
        found: Option<String>,
    },
    /// A DynamoDB Streams record that cannot be decoded (it lacks an image
    /// its event needs), or a request of the streams SDK that failed.
    #[error(transparent)]
    Stream(#[from] stream::StreamError),
    /// The client's table does not exist (DynamoDB's
    /// `ResourceNotFoundException`): nothing was read or written. Create it
    /// for the entities it holds, `client.create_table(&[Task::MODEL,
    /// ..]).await?` (or from the table design export,
    /// [`design`](crate::design)), or give the client the table's name.
    #[error("{operation}: table {table:?} does not exist; create it with `client.create_table(&[YourEntity::MODEL, ..])` (or from the design export, `entity_client::design`), or give the client the name of an existing table")]
    TableNotFound {
        /// The client's table.
        table: String,
        /// The operation.
        operation: &'static str,
        /// The SDK error.
        #[source]
        source: Box<SdkError>,
    },
    /// Any other failure of the service or the connection.
    #[error("{operation} failed: {source}")]
    Service {
        /// The operation.
        operation: &'static str,
        /// The SDK error.
        #[source]
        source: Box<SdkError>,
    },
}

fn describe_tenant(found: Option<&str>) -> String {
    match found {
        Some(tenant) => format!("tenant {tenant:?}"),
        None => {
            "a key that is not its own (of no tenant, or holding another entity's item)".to_owned()
        }
    }
}

fn describe_found(found: Option<u64>) -> String {
    match found {
        Some(version) => version.to_string(),
        None => "no item".to_owned(),
    }
}

fn describe(reasons: &[CancellationReason]) -> String {
    let failed: Vec<String> = reasons
        .iter()
        .filter(|r| r.code.as_deref().is_some_and(|c| c != "None"))
        .map(|r| format!("item {}: {}", r.index, r.code.as_deref().unwrap_or("?")))
        .collect();
    failed.join(", ")
}

/// Why one item of a canceled transaction failed.
#[derive(Debug, Clone, PartialEq)]
pub struct CancellationReason {
    /// The item's position in the request.
    pub index: usize,
    /// DynamoDB's code: `ConditionalCheckFailed`, `TransactionConflict`,
    /// `None` for an item that did not fail, ...
    pub code: Option<String>,
    /// DynamoDB's message.
    pub message: Option<String>,
    /// The item as it was, for a failed condition.
    pub item: Option<Item>,
}

impl CancellationReason {
    /// Whether this item's condition failed.
    pub fn is_condition_failed(&self) -> bool {
        self.code.as_deref() == Some("ConditionalCheckFailed")
    }
}

/// Two entities' projections of one shared index
/// ([`ValidationError::IndexProjectionMismatch`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("index {index} projects {first_projection} for {first} and {second_projection} for {second}: entities sharing an index declare the same `projection`")]
pub struct ProjectionMismatch {
    /// The physical index.
    pub index: String,
    /// The entity that declared it first.
    pub first: String,
    /// Its projection (`ALL`, `KEYS_ONLY`, `INCLUDE (a, b)`).
    pub first_projection: String,
    /// The entity that declares it otherwise.
    pub second: String,
    /// Its projection.
    pub second_projection: String,
}

/// A request refused before it was sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidationError {
    /// The item is over DynamoDB's 400 KB limit.
    #[error("{entity} item is {size} bytes, over DynamoDB's {limit}-byte item limit; its largest attribute is `{}` ({} bytes): `#[entity(compress)]` on a large text or binary field stores it compressed", largest.0, largest.1)]
    ItemTooLarge {
        /// The entity.
        entity: &'static str,
        /// The item's size as DynamoDB counts it.
        size: usize,
        /// 400 KB.
        limit: usize,
        /// The item's largest attribute and its bytes (name plus value), as
        /// `entity_core::size::item_size` breaks the item down.
        largest: (String, usize),
    },
    /// A key value is over its length limit (2048 bytes for a partition key,
    /// 1024 for a sort key).
    #[error("{attribute} is {length} bytes, over DynamoDB's {limit}-byte limit for {kind} keys")]
    KeyTooLong {
        /// The key attribute.
        attribute: String,
        /// `partition` or `sort`.
        kind: &'static str,
        /// Its length in UTF-8 bytes.
        length: usize,
        /// The limit.
        limit: usize,
    },
    /// A history entity's sort key that ends as its snapshots' keys do
    /// (the separator, `@` by default, and ten digits): the item would
    /// share its key with the snapshot of another item's version.
    #[error("{entity}'s sort key {attribute} = `{value}` ends as a history snapshot's key does (`{separator}` and ten digits), so the item would share its key with another item's snapshot: change the value that ends the key, or give `history(separator = \"..\")` a character the values never hold")]
    SnapshotKey {
        /// The entity.
        entity: &'static str,
        /// The sort key attribute.
        attribute: &'static str,
        /// The sort key's value.
        value: String,
        /// The entity's history separator.
        separator: &'static str,
    },
    /// A key value is empty, which DynamoDB rejects.
    #[error("{attribute} is empty; DynamoDB keys cannot be empty strings")]
    EmptyKey {
        /// The key attribute.
        attribute: String,
    },
    /// A transaction holds more items than DynamoDB allows.
    #[error("a transaction of {count} items is over DynamoDB's limit of {limit}")]
    TooManyTransactionItems {
        /// Items in the request.
        count: usize,
        /// 100.
        limit: usize,
    },
    /// The same key appears twice in one batch write or transaction.
    #[error("the key {key} appears twice in one {operation}; DynamoDB refuses that")]
    DuplicateKey {
        /// The operation.
        operation: &'static str,
        /// The key.
        key: String,
    },
    /// A TTL value DynamoDB would not use as the writer meant: 0 or before
    /// 1970 (the item is expired, hidden by every read, once written), or
    /// past the year 9999 in seconds (milliseconds, most likely: DynamoDB's
    /// TTL is seconds, and such an item never expires).
    #[error("{entity}.{field} = {value} is no TTL DynamoDB can use: {reason}")]
    Ttl {
        /// The entity.
        entity: &'static str,
        /// The TTL field.
        field: &'static str,
        /// The value, as written.
        value: i64,
        /// What is wrong, and what to write instead.
        reason: &'static str,
    },
    /// An update with no changes.
    #[error("an update of {entity} with no changes")]
    EmptyUpdate {
        /// The entity.
        entity: &'static str,
    },
    /// A value in a condition, filter or update cannot be stored.
    #[error("{context}: {source}")]
    Value {
        /// Where the value was used.
        context: &'static str,
        /// Why it cannot be stored.
        #[source]
        source: AttributeError,
    },
    /// A table cannot hold these entities together.
    #[error("{0}")]
    TableDesign(String),
    /// Two entities share a physical index but declare different
    /// projections for it (`#[index(.., projection = ...)]`); DynamoDB
    /// gives an index one.
    #[error("{0}")]
    IndexProjectionMismatch(Box<ProjectionMismatch>),
    /// Two entities given for one table (`create_table`, the design
    /// export) would mix their items: [`Overlap`](entity_core::Overlap)
    /// says how.
    #[error("{first} and {second} cannot share a table: {}", overlap.explain())]
    EntitiesOverlap {
        /// The first entity: its name, and its fields or keys (what tells
        /// the two apart).
        first: String,
        /// The second entity, alike.
        second: String,
        /// How their items would mix.
        overlap: entity_core::Overlap,
    },
    /// A request that DynamoDB would refuse: a zero limit, an empty
    /// transaction.
    #[error("{0}")]
    InvalidRequest(String),
    /// The table name is not one DynamoDB accepts: 3 to 255 characters of
    /// `A-Z a-z 0-9 _ . -`.
    #[error("table name {name:?} {reason}")]
    InvalidTableName {
        /// The name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An idempotency (client request) token outside DynamoDB's 1 to 36
    /// characters.
    #[error("an idempotency token of {length} characters; DynamoDB takes 1 to {limit}")]
    InvalidIdempotencyToken {
        /// Its length in characters.
        length: usize,
        /// 36.
        limit: usize,
    },
    /// A query that would read whole entities from an index declared with
    /// a smaller projection (`projection = keys_only` or `include(..)`),
    /// whose items lack the other fields.
    #[error("index {index} projects {projection}, not whole items: its query cannot read whole {entity} entities")]
    QueryOfProjectedIndex {
        /// The physical index name.
        index: String,
        /// The entity queried.
        entity: &'static str,
        /// What the index projects: `KEYS_ONLY` or `INCLUDE`.
        projection: &'static str,
    },
    /// A strongly consistent read of a global secondary index, which
    /// DynamoDB does not offer.
    #[error("consistent reads are not supported on global secondary index {index}")]
    ConsistentReadOnGlobalIndex {
        /// The physical index name.
        index: String,
    },
    /// A count DynamoDB cannot take: a `Limit` or page size over
    /// `i32::MAX`, a parallel scan of 0 or more than 1,000,000 segments.
    #[error("{what} of {value} is outside DynamoDB's range 1 to {max}")]
    OutOfRange {
        /// What the count is (`limit`, `page size`, `segments`).
        what: &'static str,
        /// The count given.
        value: u64,
        /// The largest count DynamoDB takes.
        max: u64,
    },
}

impl Error {
    /// The stored item that made a condition fail, if DynamoDB returned it.
    pub fn old_item(&self) -> Option<&Item> {
        match self {
            Error::ConditionFailed { old, .. } => old.as_deref(),
            Error::VersionConflict { current, .. } => current.as_deref(),
            _ => None,
        }
    }

    /// The cursor that resumes a read after the last item it delivered,
    /// when one of its pages failed ([`Error::PageFailed`]).
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity};
    /// # use futures::TryStreamExt;
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let mut cursor = String::new();
    /// let mut docs = Vec::new();
    /// loop {
    ///     let mut items = std::pin::pin!(client.scan::<Doc>().cursor(&cursor).items());
    ///     let error = loop {
    ///         match items.try_next().await {
    ///             Ok(Some(doc)) => docs.push(doc),
    ///             Ok(None) => return Ok(()),
    ///             Err(error) => break error,
    ///         }
    ///     };
    ///     // Resume after the last doc read; nothing twice, nothing skipped.
    ///     match error.resume_cursor().map(str::to_owned) {
    ///         Some(next) => cursor = next,
    ///         None => return Err(error), // nothing read yet, or not resumable
    ///     }
    /// }
    /// # }
    /// ```
    pub fn resume_cursor(&self) -> Option<&str> {
        match self {
            Error::PageFailed { cursor, .. } => Some(cursor),
            _ => None,
        }
    }

    /// Whether a condition failed (`ConditionFailed`, or a transaction
    /// canceled by a failed condition).
    pub fn is_condition_failed(&self) -> bool {
        match self {
            Error::ConditionFailed { .. }
            | Error::VersionConflict { .. }
            | Error::UniqueViolation { .. } => true,
            Error::TransactionCanceled { reasons, .. } => {
                reasons.iter().any(CancellationReason::is_condition_failed)
            }
            _ => false,
        }
    }
}

impl Error {
    /// This error, for a request to `table`: a service error saying a
    /// resource is missing is [`Error::TableNotFound`] naming it (a request
    /// names one resource, its table; an index that does not exist is
    /// DynamoDB's `ValidationException`). [`from_sdk`] cannot know the
    /// table; where errors leave a request to it, they pass through here:
    /// every operation's run (`ops::operation::run`) and the requests whose
    /// errors are kept in an output or a stream (pages, batch chunks).
    pub(crate) fn in_table(self, table: &str) -> Error {
        match self {
            Error::Service { operation, source }
                if matches!(*source, SdkError::ResourceNotFoundException(_)) =>
            {
                Error::TableNotFound {
                    table: table.to_owned(),
                    operation,
                    source,
                }
            }
            Error::PageFailed { cursor, source } => Error::PageFailed {
                cursor,
                source: Box::new(source.in_table(table)),
            },
            other => other,
        }
    }
}

/// Maps any SDK failure of `operation` on `entity` to our error.
pub(crate) fn from_sdk<E>(operation: &'static str, entity: &'static str, error: E) -> Error
where
    SdkError: From<E>,
{
    let error = SdkError::from(error);
    // A tenant client's check refused the request before it was sent.
    if let Some(refusal) = Refusal::find(&error) {
        return Error::TenantMismatch {
            expected: refusal.expected.clone(),
            found: refusal.found.clone(),
        };
    }
    // The Database Encryption SDK's interceptor refused an item or a
    // request (feature `encryption`).
    if let Some(reason) = encryption_failure(&error) {
        return Error::Encryption { operation, reason };
    }
    match &error {
        SdkError::ConditionalCheckFailedException(e) => Error::ConditionFailed {
            entity,
            why: FailedCondition::Condition,
            old: e.item().map(|item| Box::new(item.clone())),
            source: Box::new(error),
        },
        SdkError::TransactionCanceledException(e) => {
            let reasons = e
                .cancellation_reasons()
                .iter()
                .enumerate()
                .map(|(index, r)| CancellationReason {
                    index,
                    code: r.code().map(str::to_owned),
                    message: r.message().map(str::to_owned),
                    item: r.item().cloned(),
                })
                .collect();
            Error::TransactionCanceled {
                reasons,
                source: Box::new(error),
            }
        }
        SdkError::IdempotentParameterMismatchException(_) => Error::TokenReused {
            operation,
            source: Box::new(error),
        },
        SdkError::ProvisionedThroughputExceededException(_)
        | SdkError::ThrottlingException(_)
        | SdkError::RequestLimitExceeded(_) => Error::Throttled {
            operation,
            source: Box::new(error),
        },
        _ => Error::Service {
            operation,
            source: Box::new(error),
        },
    }
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for CancellationReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "item {}: {}",
            self.index,
            self.code.as_deref().unwrap_or("None")
        )
    }
}

/// What the Database Encryption SDK's interceptor said, when it is what
/// failed: its message, without the wrapping of its error types.
fn encryption_failure(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    use aws_smithy_runtime_api::client::interceptors::error::InterceptorError;
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(failed) = error.downcast_ref::<InterceptorError>() {
            if !format!("{failed:?}").contains("\"DbEsdkInterceptor\"") {
                return None;
            }
            let said = std::error::Error::source(failed)
                .map(ToString::to_string)
                .unwrap_or_default();
            // `..Exception { message: "..." }`: the message alone.
            let message = said
                .split_once("message: \"")
                .and_then(|(_, rest)| rest.rsplit_once('"'))
                .map_or(said.as_str(), |(message, _)| message);
            return Some(message.replace("\\\"", "\""));
        }
        next = error.source();
    }
    None
}

/// A request refused because it names a key of another tenant, or of no
/// tenant. Travels inside the SDK's error to [`from_sdk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) expected: String,
    pub(crate) found: Option<String>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.found {
            Some(found) => write!(
                f,
                "tenant {:?} cannot address tenant {found:?}",
                self.expected
            ),
            None => write!(
                f,
                "tenant {:?} cannot address keys of no tenant",
                self.expected
            ),
        }
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// The refusal inside an SDK error, if it is one.
    pub(crate) fn find<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a Refusal> {
        let mut next = Some(error);
        while let Some(error) = next {
            if let Some(refusal) = error.downcast_ref::<Refusal>() {
                return Some(refusal);
            }
            next = error.source();
        }
        None
    }
}
