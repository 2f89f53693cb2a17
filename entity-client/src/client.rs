//! The client: an `aws_sdk_dynamodb::Client`, a table name and policies,
//! behind an `Arc` so clones are cheap.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use crate::rate_limit::{Kind, RateLimit};
use crate::scoping::{Reads, Scope, Unscoped};
use entity_core::Readable;

/// How batch operations retry unprocessed items.
///
/// Unprocessed keys and items are retried with exponential backoff and full
/// jitter (a random delay between zero and `base_delay * 2^attempt`, capped
/// at `max_delay`) until `max_attempts` requests have been made for them;
/// whatever is still unprocessed then is returned in the output, never
/// dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPolicy {
    /// Requests per chunk, the first included.
    pub max_attempts: u32,
    /// The first backoff ceiling.
    pub base_delay: Duration,
    /// The largest backoff ceiling.
    pub max_delay: Duration,
    /// Chunks in flight at once.
    pub concurrency: usize,
}

impl Default for BatchPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 10,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(2),
            concurrency: 4,
        }
    }
}

impl BatchPolicy {
    /// The SDK's retries of one batch request: a batch that fails as a
    /// whole (throttled, a server error) is resent by the SDK, which keeps
    /// the serialized request, so the batch needs no copy of it.
    fn sdk_retries(&self) -> aws_sdk_dynamodb::config::retry::RetryConfig {
        aws_sdk_dynamodb::config::retry::RetryConfig::standard()
            .with_max_attempts(self.max_attempts.max(1))
            .with_initial_backoff(self.base_delay)
            .with_max_backoff(self.max_delay)
    }

    /// The backoff before retry `attempt` (1 for the first retry).
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        let ceiling = self
            .base_delay
            .saturating_mul(1u32 << attempt.min(20))
            .min(self.max_delay);
        ceiling.mul_f64(fastrand::f64())
    }
}

/// Executes entity operations against one table.
///
/// Cheap to clone: clones share the SDK client and settings.
///
/// ```no_run
/// # async fn demo(sdk: aws_sdk_dynamodb::Client) {
/// let client = entity_client::Client::new(sdk, "app");
/// let other_handle = client.clone();
/// # }
/// ```
///
/// `Client` is the plain client, for entities without a tenant; a tenant's
/// client ([`Client::tenant`]) and the cross-tenant one
/// ([`Client::cross_tenant`]) are the same type in another
/// [`scope`](crate::scope): every operation is defined once, for every
/// scope.
#[derive(Clone, Debug)]
pub struct Client<S = Unscoped> {
    pub(crate) inner: Arc<Inner>,
    /// What this client reaches, and how it completes keys and queries.
    pub(crate) scope: S,
}

#[derive(Debug, Clone)]
pub(crate) struct Inner {
    pub(crate) sdk: aws_sdk_dynamodb::Client,
    pub(crate) table: String,
    /// Why `table` is not a name DynamoDB accepts, if it is not: checked
    /// once, when the table is set, for every request it names.
    table_error: Option<crate::ValidationError>,
    pub(crate) batch: BatchPolicy,
    pub(crate) cursor_secret: Vec<u8>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) exactly_once: bool,
    pub(crate) engine: crate::Engine,
    /// What the engine can do: the engine's declared profile, or what
    /// [`Client::probe`] found.
    pub(crate) capabilities: crate::Capabilities,
    /// Request statistics, when [`Client::with_stats`] turned them on
    /// (a `stats::Stats`).
    pub(crate) stats: Option<Arc<dyn Extension>>,
    /// The capacity budget of [`Client::with_rate_limit`], which bulk
    /// operations wait for.
    pub(crate) rate_limit: Option<RateLimit>,
    /// The tenant of a tenant client ([`Client::tenant`]).
    pub(crate) tenant: Option<Arc<str>>,
    /// The tenant clients made from this client, for reuse.
    pub(crate) tenants: TenantCache,
    /// `sdk` with the batch policy's retries, made when a batch first
    /// needs it ([`Client::batch_sdk`]).
    batch_sdk: OnceLock<aws_sdk_dynamodb::Client>,
    /// Whether `sdk` encrypts (`Client::with_encryption`, feature
    /// `encryption`): writes of entities with encrypted fields need it.
    pub(crate) encrypts: bool,
}

impl Inner {
    /// Forgets what was made from the SDK client and policies (the batch
    /// SDK client), to be made again from them as they are now.
    pub(crate) fn reset_derived(&mut self) {
        self.batch_sdk = OnceLock::new();
    }
}

/// A value that a layer above the client keeps on it (the statistics of
/// [`Client::with_stats`], the tenant clients of [`Client::tenant`]): the
/// client holds it by type, and names none of those layers.
pub(crate) trait Extension: Any + std::fmt::Debug + Send + Sync {
    /// The value, to downcast to its type.
    fn as_any(&self) -> &dyn Any;
}

/// The tenant clients a client made, by tenant. A client derived with
/// other settings (`with_table`, `with_stats`, ...) starts with none: a
/// clone of the cache is empty.
#[derive(Debug, Default)]
pub(crate) struct TenantCache(Mutex<HashMap<Arc<str>, Arc<dyn Extension>>>);

/// Tenants kept before the cache starts over.
const CACHED_TENANTS: usize = 4096;

impl Clone for TenantCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl TenantCache {
    pub(crate) fn get(&self, tenant: &str) -> Option<Arc<dyn Extension>> {
        self.0.lock().ok()?.get(tenant).cloned()
    }

    pub(crate) fn put(&self, tenant: Arc<str>, scoped: Arc<dyn Extension>) {
        if let Ok(mut tenants) = self.0.lock() {
            if tenants.len() >= CACHED_TENANTS {
                tenants.clear();
            }
            tenants.insert(tenant, scoped);
        }
    }
}

/// Where the client reads the time it writes into `created_at` and
/// `updated_at` fields. [`SystemClock`] unless set with
/// [`Client::with_clock`] (a fixed or stepping clock in tests).
///
/// ```
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
///
/// #[derive(Debug)]
/// struct Fixed(SystemTime);
/// impl entity_client::Clock for Fixed {
///     fn now(&self) -> SystemTime {
///         self.0
///     }
/// }
/// let clock = Fixed(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
/// # let _ = clock;
/// ```
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The operating system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

impl Client {
    /// A client for `table` over `sdk` as it is: [`Client::new`] (in
    /// `trace`, as it installs that module's interceptor) first adds what
    /// every client's SDK client carries.
    pub(crate) fn assemble(sdk: aws_sdk_dynamodb::Client, table: String) -> Self {
        // Cursors are sealed with a random secret of this client (and its
        // clones) unless the user sets one; either way a cursor never reads
        // outside its query, as its key is checked against the query.
        let cursor_secret = random_secret();
        Self {
            inner: Arc::new(Inner {
                sdk,
                table_error: crate::limits::check_table_name(&table).err(),
                table,
                batch: BatchPolicy::default(),
                cursor_secret,
                clock: Arc::new(SystemClock),
                exactly_once: true,
                engine: crate::Engine::default(),
                capabilities: crate::Engine::default().capabilities(),
                stats: None,
                rate_limit: None,
                tenant: None,
                tenants: Default::default(),
                batch_sdk: OnceLock::new(),
                encrypts: false,
            }),
            scope: Unscoped,
        }
    }

    /// A client for `table` at a local endpoint (DynamoDB Local, LocalStack,
    /// ScyllaDB Alternator, the embedded server): static credentials,
    /// region `us-east-1`.
    pub fn local(endpoint_url: &str, table: impl Into<String>) -> Self {
        Self::new(local_sdk_client(endpoint_url), table)
    }

    /// Seals cursors with a key derived from your secret (XChaCha20-Poly1305:
    /// a cursor reveals nothing and cannot be forged). Without one, each
    /// client uses a random secret of its own: cursors are then only valid
    /// for that client and its clones. Set the same secret on every instance of a
    /// service so cursors survive restarts and work on any replica.
    pub fn with_cursor_secret(self, secret: impl Into<Vec<u8>>) -> Self {
        self.map_inner(|inner| inner.cursor_secret = secret.into())
    }

    /// Sets how batch operations retry.
    pub fn with_batch_policy(self, policy: BatchPolicy) -> Self {
        self.map_inner(|inner| inner.batch = policy)
    }

    /// Reads the time written into `created_at`/`updated_at` fields from
    /// `clock` instead of the system clock.
    pub fn with_clock(self, clock: impl Clock + 'static) -> Self {
        self.map_inner(|inner| inner.clock = Arc::new(clock))
    }

    /// Whether writes that are not idempotent (a create, a conditional or
    /// versioned write, an `add`, a `remove`) go through
    /// `TransactWriteItems` with a client request token, so that the SDK's
    /// retry of a write whose response was lost cannot apply it twice (on
    /// by default; a transactional write costs twice the write capacity).
    /// Off, they are single-item calls that a lost response can repeat.
    /// See the [integrity guide](crate::guide::integrity#exactly-once-writes)
    /// for what each operation guarantees.
    pub fn with_exactly_once(self, on: bool) -> Self {
        self.map_inner(|inner| inner.exactly_once = on)
    }

    /// Declares the engine behind the endpoint: what it lacks is refused
    /// before sending (`Error::Unsupported`), as documented on
    /// [`Capabilities`](crate::Capabilities). DynamoDB unless set;
    /// `EmbeddedDynamo::client` sets dynoxide.
    pub fn with_engine(self, engine: crate::Engine) -> Self {
        self.map_inner(|inner| {
            inner.engine = engine;
            inner.capabilities = engine.capabilities();
        })
    }

    /// Sets what the engine can do, keeping its name: most often what
    /// [`Client::probe`] detected (`client.with_capabilities(probe.capabilities)`).
    pub fn with_capabilities(self, capabilities: crate::Capabilities) -> Self {
        self.map_inner(|inner| inner.capabilities = capabilities)
    }

    /// Refuses `feature` when the engine lacks it.
    pub(crate) fn require(
        &self,
        supported: impl Fn(crate::Capabilities) -> bool,
        feature: &'static str,
        reason: &'static str,
    ) -> Result<(), crate::Error> {
        let engine = self.inner.engine;
        if supported(self.inner.capabilities) {
            return Ok(());
        }
        Err(crate::Error::Unsupported {
            engine,
            feature,
            reason,
        })
    }

    /// The same client (SDK client, policies, cursor secret) on another
    /// table.
    pub fn with_table(&self, table: impl Into<String>) -> Self {
        let table = table.into();
        self.clone().map_inner(|inner| inner.table = table)
    }
}

impl<S: Scope> Client<S> {
    pub(crate) fn map_inner(self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Inner::clone(&self.inner);
        change(&mut inner);
        // Made again from the table, SDK client and policy as they are now.
        inner.table_error = crate::limits::check_table_name(&inner.table).err();
        inner.reset_derived();
        Self {
            inner: Arc::new(inner),
            scope: self.scope,
        }
    }

    /// The same client (in its scope) over its SDK client with
    /// `interceptor` added, and `change` made to its settings: how tenant
    /// clients, statistics, rate limits, encryption and explain wrap one.
    pub(crate) fn intercepted(
        &self,
        interceptor: impl aws_sdk_dynamodb::config::Intercept + 'static,
        change: impl FnOnce(&mut Inner),
    ) -> Self {
        let config = self
            .inner
            .sdk
            .config()
            .to_builder()
            .interceptor(interceptor)
            .build();
        let sdk = aws_sdk_dynamodb::Client::from_conf(config);
        self.clone().map_inner(|inner| {
            inner.sdk = sdk;
            change(inner);
        })
    }

    /// The engine the client was told it talks to.
    pub fn engine(&self) -> crate::Engine {
        self.inner.engine
    }

    /// What the client holds the engine able to do
    /// ([`Client::with_engine`], [`Client::with_capabilities`]).
    pub fn capabilities(&self) -> crate::Capabilities {
        self.inner.capabilities
    }

    /// The SDK client, for anything this crate does not cover.
    pub fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        &self.inner.sdk
    }

    /// The SDK client batch requests are sent with: the client's, retrying
    /// under the batch policy (the same SDK client, configured once rather
    /// than overridden on every request, which costs the SDK a
    /// configuration of its own per request).
    pub(crate) fn batch_sdk(&self) -> &aws_sdk_dynamodb::Client {
        self.inner.batch_sdk.get_or_init(|| {
            let config = self.inner.sdk.config().to_builder();
            aws_sdk_dynamodb::Client::from_conf(
                config.retry_config(self.inner.batch.sdk_retries()).build(),
            )
        })
    }

    /// Waits until the client's capacity budget ([`Client::with_rate_limit`])
    /// of `kind` lets one more request through: what a bulk operation does
    /// before each request.
    pub(crate) async fn capacity_ready(&self, kind: Kind) {
        if let Some(limit) = &self.inner.rate_limit {
            limit.ready(kind).await;
        }
    }

    /// Waits until the client's capacity budget of `kind` is out of debt.
    pub(crate) async fn capacity_paid_up(&self, kind: Kind) {
        if let Some(limit) = &self.inner.rate_limit {
            limit.paid_up(kind).await;
        }
    }

    /// The current time of the client's clock.
    pub(crate) fn now(&self) -> SystemTime {
        self.inner.clock.now()
    }

    /// The table name.
    pub fn table(&self) -> &str {
        &self.inner.table
    }

    /// The table name, once it is known to be one DynamoDB accepts: every
    /// request takes it from here, so none is sent to a bad name.
    pub(crate) fn checked_table(&self) -> Result<&str, crate::ValidationError> {
        match &self.inner.table_error {
            Some(error) => Err(error.clone()),
            None => Ok(&self.inner.table),
        }
    }

    /// The plain client behind this one (for a tenant's, over the SDK
    /// client that checks its requests).
    pub(crate) fn unscoped(&self) -> Client {
        Client {
            inner: self.inner.clone(),
            scope: Unscoped,
        }
    }

    /// The plain client behind this one, to run an operation on `R`: the
    /// scope has checked `R` (at compile time) and registered it with its
    /// request check.
    /// Refuses a write of `model`'s items when they have encrypted fields
    /// and this client does not encrypt: nothing is stored in plain text.
    pub(crate) fn check_encrypts(
        &self,
        model: &'static entity_core::EntityModel,
    ) -> crate::Result<()> {
        match model.encrypts() && !self.inner.encrypts {
            true => Err(crate::Error::EncryptionNotConfigured { entity: model.name }),
            false => Ok(()),
        }
    }

    pub(crate) fn reach<R: Readable>(&self) -> Client
    where
        S: Reads<R>,
    {
        self.scope.enter();
        self.unscoped()
    }
}

/// An SDK client for a local endpoint: static credentials (letters and
/// digits only, as DynamoDB Local requires) and region `us-east-1`.
pub fn local_sdk_client(endpoint_url: &str) -> aws_sdk_dynamodb::Client {
    use aws_sdk_dynamodb::config::BehaviorVersion;
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(local_region())
        .credentials_provider(local_credentials())
        .endpoint_url(endpoint_url)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// The static credentials of a local endpoint's SDK clients.
pub(crate) fn local_credentials() -> aws_sdk_dynamodb::config::Credentials {
    aws_sdk_dynamodb::config::Credentials::new("local", "local", None, None, "entity-client")
}

/// The region of a local endpoint's SDK clients.
pub(crate) fn local_region() -> aws_sdk_dynamodb::config::Region {
    aws_sdk_dynamodb::config::Region::new("us-east-1")
}

/// 32 random bytes from the operating system; if it cannot give them, from
/// the standard library's randomly keyed hasher.
fn random_secret() -> Vec<u8> {
    let mut secret = vec![0u8; 32];
    if getrandom::fill(&mut secret).is_err() {
        use std::hash::{BuildHasher, Hasher};
        for chunk in secret.chunks_mut(8) {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_usize(chunk.as_ptr() as usize);
            chunk.copy_from_slice(&hasher.finish().to_le_bytes());
        }
    }
    secret
}
